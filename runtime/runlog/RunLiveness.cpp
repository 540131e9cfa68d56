#include "runlog/RunLiveness.h"

#include "process/ProcessIdentity.h"

namespace eacu {

std::string shownRunStatus(const RunRecord& run, double now) {
    if (run.status != "running") return run.status;
    if (run.pid > 0 && !run.host.empty() && run.host == hostName())
        return processAlive({run.pid, run.pid_start, run.host}) ? "running" : "crashed";
    double last = run.heartbeat_at > 0 ? run.heartbeat_at : run.started_at;
    return now - last > kRunHeartbeatStaleSeconds ? "crashed" : "running";
}

}  // namespace eacu
