// Where a running task reports to. A TaskRunner (which owns the task's display, its programs and
// its `eacu run --serve-fd 3` process) sends everything the task produces to a TaskSink: the
// store of this server (TaskEvents, a local worker) or a Redis stream read by a server on
// another machine (RedisTaskSink, `eacu worker`). The worker protocol lines pass unchanged
// (docs/serve-protocol.md §1, §5.1).
#pragma once
#include <string>

#include "server/ServiceStore.h"

namespace eacu::server {

/// What a TaskRunner reports, in order, from its run() thread (live() from the live-screen
/// thread). Implementations must not throw out of these calls.
class TaskSink {
public:
    virtual ~TaskSink() = default;
    /// The task has left the queue and is being set up (display, programs, worker process).
    virtual void running() = 0;
    /// One worker protocol line (a JSON object, without the '\n'), exactly as the run wrote it.
    virtual void line(const std::string& line) = 0;
    /// A new live frame of the task's screen (the pointer marked; seq is set by the receiver).
    virtual void live(LiveFrame frame) = 0;
    /// The task ended: `status` completed|failed|stopped|interrupted|lost, the answer (for
    /// completed) or the error (else). Called once, last.
    virtual void ended(const std::string& status, const std::string& answer, const std::string& error) = 0;
};

}  // namespace eacu::server
