// The worker side of `eacu serve` (docs/serve-protocol.md §1): a run spawned by the server talks
// to it over one file descriptor (a socketpair end), one JSON object per '\n'-terminated line.
// The worker writes run, intent, step, awaiting_user, answer, paused, resumed, input_done and
// end lines. It reads the server's lines (ack, take_over, hand_back, input, stop: §5.2) on a
// thread of its own from the start. It is also the run's UserChannel: confirm, ask_user, the
// autopilot's needs_user and a click handed over to the person all become awaiting_user; while the
// run waits for the person (or is paused by take_over) the person's input events are injected
// by the run's own thread through the input handler.
#pragma once
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include <nlohmann/json.hpp>

#include "runlog/RunRecords.h"
#include "step/UserChannel.h"

namespace eacu {

/// The serve protocol over `fd`. Writes are thread-safe (the run's thread and its watchdog both
/// write) and never end the run: when the server has gone (EPIPE, a peer that does not read
/// for 5 s) the channel counts as disconnected, later lines are dropped and the run goes on
/// and is recorded. SIGPIPE is never raised for a socket (MSG_NOSIGNAL); for a pipe the
/// process must ignore SIGPIPE (eacu run does when given --serve-fd).
class ServeChannel : public UserChannel {
public:
    /// Takes `fd` (closed by the destructor) and starts reading it. Throws std::invalid_argument
    /// when `fd` is not an open descriptor.
    explicit ServeChannel(int fd);
    ~ServeChannel() override;
    ServeChannel(const ServeChannel&) = delete;
    ServeChannel& operator=(const ServeChannel&) = delete;

    /// `{"type":"run","run_id":N}`: the run is open (the first line).
    void run(int64_t run_id);
    /// `{"type":"intent","text":...}`: what the run is about to do. Empty texts are not sent.
    void intent(const std::string& text);
    /// `{"type":"step","step":{...}}`: a committed step (stepJson).
    void step(const StepRecord& s);
    /// `{"type":"answer","text":...}`: the task's answer; only the first call sends.
    void answer(const std::string& text);
    /// `{"type":"end","status":...,"error":first line}`: the last line; only the first call
    /// sends, nothing is sent after.
    void end(const std::string& status, const std::string& error);

    /// Kind "confirm": "" when the person acknowledged (allowed), else why not (the channel
    /// closed: failing closed). Throws Cancelled when the run stops meanwhile.
    std::string confirm(const std::string& what, const CancelToken& cancel) override;
    /// Kind "ask": the ack's text ("" when it has none). Throws StepError "blocked" when the channel is closed.
    std::string ask(const std::string& text, const CancelToken& cancel) override;
    /// Kind `kind` ("needs_user", "click"): the ack's text ("我已经操作" when it has none).
    std::string awaitAction(const std::string& kind, const std::string& text, const CancelToken& cancel) override;

    /// Performs one input event of the person ({kind, x, y, ...}: §5.2) on the run's thread and
    /// returns the recorded step as stepJson; throws (any std::exception) to refuse it with
    /// what() as the reason. Set before the run starts; without one every input is refused.
    using InputHandler = std::function<nlohmann::json(const nlohmann::json& event)>;
    void setInputHandler(InputHandler h);
    /// Called (on the reader thread) for a {"type":"stop","reason":...} line: it must end the
    /// run as SIGTERM does (cancel its token). Without one a stop line is ignored.
    void setStopHandler(std::function<void(const std::string& reason)> h);
    /// A step boundary of the run (called by its thread before each action). When the person
    /// took over (a take_over line came), sends {"type":"paused"}, injects their input events
    /// until a hand_back or an ack line, sends {"type":"resumed"} and returns true; else returns
    /// false at once. Throws Cancelled when the run stops meanwhile, StepError "blocked" when
    /// the server closed the channel while it was paused.
    bool checkpoint(const CancelToken& cancel);

    /// The lease check of a remote run (docs/serve-protocol.md §1 lease line): once the
    /// supervisor told the run a lease ({"type":"lease","seconds":S}: it holds the task for S
    /// more seconds) and that ran out without a newer one, ends the run as a stop line does and
    /// throws Cancelled (and keeps throwing: a lease line after that does not bring the run
    /// back); else returns at once. Called by checkpoint() (before every input of the
    /// script or the model, and before each target lookup and sleep) and before each input of
    /// the person: every input of the run passes it. Without a lease line it never refuses
    /// (a local serve gives none).
    void checkLease();
    /// Writes `line` (one JSON object) and '\n'. Returns false when it could not be written
    /// (disconnected, or after end()).
    bool send(const nlohmann::json& line);
    /// False once a write failed or the peer closed while the run waited.
    bool connected() const { return !broken_.load(); }

private:
    enum class Wait { None, Person, Paused };
    // Sends awaiting_user and waits for an ack (injecting the person's input meanwhile);
    // returns its text ("" when it has none). Checks `cancel` every 50 ms. Throws StepError
    // "blocked" when the peer closed or sent something that is not JSON, Cancelled on a stop.
    std::string awaitAck(const std::string& kind, const std::string& text, const CancelToken& cancel);
    // The wait of awaitAck and checkpoint: `first` (awaiting_user or paused) is sent once the
    // lines that came before the wait are read (they are stale), then input events are
    // performed until an ack (or, paused, a hand_back). Returns the ack's text.
    std::string serveWait(Wait kind, const std::string& what, const nlohmann::json& first, const CancelToken& cancel);
    // Performs one input line (on the run's thread) and answers input_done or input_refused.
    void performInput(const nlohmann::json& line);
    void readLoop();
    void onLine(const std::string& line);  // reader thread
    // Writes one line; write_mu_ must be held. False when disconnected (then marked so).
    bool writeLine(const nlohmann::json& line);
    void markBroken(const std::string& why);

    int fd_;
    std::mutex write_mu_;
    std::atomic<bool> broken_{false};
    bool ended_ = false;      // under write_mu_
    bool answered_ = false;   // under write_mu_

    std::mutex wait_mu_;  // one wait at a time (the run's thread)
    std::mutex mu_;       // guards what the reader thread hands over:
    std::condition_variable cv_;
    Wait waiting_ = Wait::None;
    std::deque<nlohmann::json> inputs_;
    std::optional<std::string> ack_;
    bool take_over_ = false, hand_back_ = false, closed_ = false;
    std::string bad_line_;
    InputHandler input_handler_;
    std::function<void(const std::string&)> stop_handler_;
    std::atomic<double> lease_until_{0};  // monotonic seconds; 0: never told a lease
    std::atomic<bool> lease_lost_{false};
    std::atomic<bool> busy_{false};  // the reader has bytes not yet handed over
    std::atomic<bool> quit_{false};
    std::thread reader_;
};

/// A step as the protocol's step object: id, idx, parent_id (null or int), action, target,
/// status, error, input [x,y] or null, box [x,y,w,h] or null, frame_before, frame_after (ids
/// or null), params (an object; {} when the row's params are not JSON), started_at, ended_at
/// (Unix seconds), method, actor (script | model | user).
nlohmann::json stepJson(const StepRecord& s);

/// The open descriptor named by a --serve-fd value ("3"). Throws std::invalid_argument naming
/// what came when it is not a number >= 0 or not an open descriptor.
int serveFdFromArg(const std::string& value);

}  // namespace eacu
