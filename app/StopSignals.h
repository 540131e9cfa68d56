// The stop signals of a command that takes them on one thread (serve, worker, studio).
#pragma once
#include <signal.h>

namespace eacu {

/// Blocks SIGINT and SIGTERM in the calling thread (and the threads it starts after), so that
/// one thread takes them with sigwait and no handler runs inside a request; ignores SIGPIPE.
/// Returns the set to wait on.
sigset_t blockStopSignals();

}  // namespace eacu
