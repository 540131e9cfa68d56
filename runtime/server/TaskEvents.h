// A task's worker lines turned into the service's state: the run log's task row and messages and
// the session's events (progress items, awaiting_user, the final event), and its live frames.
// The one consumer of the worker protocol on the server's side, whether the lines came over a
// local socketpair or through Redis from another machine.
#pragma once
#include <atomic>
#include <mutex>
#include <string>

#include <nlohmann/json.hpp>

#include "server/ServiceStore.h"
#include "server/TaskSink.h"

namespace eacu::server {

/// The server-side TaskSink of one task. line(), running() and ended() from one thread;
/// takeAwaiting()/resumed() from any.
class TaskEvents : public TaskSink {
public:
    /// `frame_url`: where a progress item's screenshot is served, followed by the frame id
    /// ("/api/frames/" for frames of this server's run log; a remote task's are answered from
    /// Redis under "/api/tasks/ID/frames/").
    /// `own_runs`: the run ids of the worker's run lines are runs of this server's run log (a
    /// local worker); false for a remote one (its run is copied in at its end).
    TaskEvents(ServiceStore& store, TaskRecord task, std::string frame_url = "/api/frames/", bool own_runs = true);

    void running() override;
    void line(const std::string& line) override;
    void live(LiveFrame frame) override;
    void ended(const std::string& status, const std::string& answer, const std::string& error) override;

    /// Picks up where the events of the task in the run log left off (a restarted server
    /// relaying a task that runs on elsewhere): the progress items' count, an intent still
    /// open, awaiting_user.
    void restore();
    /// True (once) when the task awaits the person: the caller then sends the ack line and
    /// calls resumed(). False when it does not wait.
    bool takeAwaiting();
    /// Records the person's answer `text` and that the task runs again (task.started resumed).
    void resumed(const std::string& text);
    /// The step last reported done ("" before the first): "#idx action target".
    std::string lastStep() const;
    const TaskRecord& task() const { return task_; }

private:
    void progress(const nlohmann::json& step);

    ServiceStore& store_;
    TaskRecord task_;
    std::string frame_url_;
    bool own_runs_;
    std::atomic<bool> awaiting_{false};
    int progress_count_ = 0;
    int pending_intent_ = 0;  // the progress item an intent opened, completed by the next step
    std::string pending_text_;
    mutable std::mutex mu_;   // guards last_step_
    std::string last_step_;
};

}  // namespace eacu::server
