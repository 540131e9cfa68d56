// A task's worker lines turned into the service's state: the run log's task row and messages and
// the session's events (progress items, awaiting_user, the final event), and its live frames.
// The one consumer of the worker protocol on the server's side, whether the lines came over a
// local socketpair or through Redis from another machine.
#pragma once
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "server/ServiceStore.h"
#include "server/TaskSink.h"

namespace eacu::server {

/// What the run did with one input event of the person (docs/serve-protocol.md §5.2): `done`
/// with the step it recorded (stepJson), or refused with `reason`; `seq` the number the input
/// line carried (0 when none was sent).
struct InputOutcome {
    bool done = false;
    int64_t seq = 0;
    nlohmann::json step;
    std::string reason;
};

/// The server-side TaskSink of one task, and the person's side of it: whether the task awaits
/// the person, is being taken over or is paused, and the answers to the person's input lines.
/// The same for a local task and a remote one: only the way a line reaches the run differs
/// (`SendLine`: TaskRunner::sendLine, or the task's Redis control stream).
/// line(), running() and ended() from one thread; ack(), takeOver(), handBack() and input()
/// from any (they never hold a lock of this object while they send).
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
    /// Sends one protocol line (a JSON object, no '\n') to the task's run. May throw (the
    /// line was not sent).
    using SendLine = std::function<void(const std::string& line)>;
    /// Answers the task's awaiting_user (or ends a take-over's pause) with `text` ("我已经操作"
    /// for the ack button): sends the ack line, records the person's message and publishes
    /// task.started {resumed}. False (nothing sent) when the task neither awaits the person
    /// nor is paused.
    bool ack(const std::string& text, const SendLine& send);
    /// The person takes the screen: sends take_over; the run pauses at its next step boundary
    /// (its paused line publishes task.paused). False (nothing sent) when the run has ended,
    /// the task awaits the person, or is taken over already.
    bool takeOver(const SendLine& send);
    /// Gives the screen back after takeOver(): sends hand_back (the run's resumed line
    /// publishes task.resumed). False when the task is not taken over.
    bool handBack(const SendLine& send);
    /// Sends the person's input `event` ({kind, x, y, ...}) as an input line and waits up to
    /// `timeout` seconds for the run's input_done / input_refused. Refused at once (`reason`
    /// says why) when the task neither awaits the person nor is paused by a take-over, or when
    /// its run has ended.
    InputOutcome input(const nlohmann::json& event, double timeout, const SendLine& send);
    /// The step last reported done ("" before the first): "#idx action target".
    std::string lastStep() const;
    const TaskRecord& task() const { return task_; }

private:
    void progress(const nlohmann::json& step);
    // The run has ended (its end line, or ended()): no one waits, no input is answered.
    void runEnded();

    ServiceStore& store_;
    TaskRecord task_;
    std::string frame_url_;
    bool own_runs_;
    std::mutex send_mu_;      // one person's operation at a time (decide, then send); never
                              // taken by line()
    std::mutex ctl_mu_;       // guards what follows up to next_seq_
    std::condition_variable input_cv_;
    bool awaiting_ = false;      // awaiting_user seen, no ack yet
    bool taking_over_ = false;   // take_over sent, paused not yet seen
    bool paused_ = false;        // the run said paused
    bool run_ended_ = false;
    std::map<int64_t, std::optional<InputOutcome>> inputs_;  // seq -> its answer, once it came
    int64_t next_seq_ = 0;
    int progress_count_ = 0;
    int pending_intent_ = 0;  // the progress item an intent opened, completed by the next step
    std::string pending_text_;
    mutable std::mutex mu_;   // guards last_step_
    std::string last_step_;
};

}  // namespace eacu::server
