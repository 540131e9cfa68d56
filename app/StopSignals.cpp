#include "StopSignals.h"

#include <pthread.h>

namespace eacu {

sigset_t blockStopSignals() {
    sigset_t sigs;
    sigemptyset(&sigs);
    sigaddset(&sigs, SIGINT);
    sigaddset(&sigs, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &sigs, nullptr);
    ::signal(SIGPIPE, SIG_IGN);
    return sigs;
}

}  // namespace eacu
