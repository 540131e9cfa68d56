// The worker side of `eacu serve` (docs/serve-protocol.md §1): a run spawned by the server talks
// to it over one file descriptor (a socketpair end), one JSON object per '\n'-terminated line.
// The worker writes run, intent, step, awaiting_user, answer and end lines; while it waits for
// the person it reads one ack line. It is also the run's UserChannel: confirm, ask_user, the
// agent's needs_user and a click handed over to the person all become awaiting_user.
#pragma once
#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>

#include <nlohmann/json.hpp>

#include "record/RunRecords.h"
#include "task/UserChannel.h"

namespace eacu {

/// The serve protocol over `fd`. Writes are thread-safe (the run's thread and its watchdog both
/// write) and never end the run: when the server has gone (EPIPE, a peer that does not read
/// for 5 s) the channel counts as disconnected, later lines are dropped and the run goes on
/// and is recorded. SIGPIPE is never raised for a socket (MSG_NOSIGNAL); for a pipe the
/// process must ignore SIGPIPE (eacu run does when given --serve-fd).
class ServeChannel : public UserChannel {
public:
    /// Takes `fd` (closed by the destructor). Throws std::invalid_argument when `fd` is not an
    /// open descriptor.
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

    /// Writes `line` (one JSON object) and '\n'. Returns false when it could not be written
    /// (disconnected, or after end()).
    bool send(const nlohmann::json& line);
    /// False once a write failed or the peer closed while the run waited.
    bool connected() const { return !broken_.load(); }

private:
    // Sends awaiting_user and reads lines until an ack; returns its text ("" when it has
    // none). Polls `cancel` every
    // 50 ms. Throws StepError "blocked" when the peer closed or sent something that is not
    // JSON, Cancelled on a stop.
    std::string awaitAck(const std::string& kind, const std::string& text, const CancelToken& cancel);
    // Writes one line; write_mu_ must be held. False when disconnected (then marked so).
    bool writeLine(const nlohmann::json& line);
    // Discards input that arrived while nobody waited (a second ack of an earlier wait).
    void drainStale();
    void markBroken(const std::string& why);

    int fd_;
    std::mutex write_mu_;
    std::mutex read_mu_;
    std::string inbuf_;
    std::atomic<bool> broken_{false};
    bool ended_ = false;      // under write_mu_
    bool answered_ = false;   // under write_mu_
};

/// A step as the protocol's step object: id, idx, parent_id (null or int), action, target,
/// status, error, input [x,y] or null, box [x,y,w,h] or null, frame_before, frame_after (ids
/// or null), params (an object; {} when the row's params are not JSON), started_at, ended_at
/// (Unix seconds), method.
nlohmann::json stepJson(const StepRecord& s);

/// The open descriptor named by a --serve-fd value ("3"). Throws std::invalid_argument naming
/// what came when it is not a number >= 0 or not an open descriptor.
int serveFdFromArg(const std::string& value);

}  // namespace eacu
