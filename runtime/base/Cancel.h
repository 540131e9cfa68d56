// Cancellation of one run's blocking work (waits, locate loops, sleeps, HTTP, gestures), and the
// one piece of process-wide state: a signal cancels every run.
#pragma once
#include <atomic>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>

namespace eacu {

/// Thrown when a token is cancelled or its deadline passes. `what()` is "cancelled" for a stop
/// or a signal, and the deadline's message for a timeout ("the run's time limit of 3 s is
/// reached"); `timeout` tells the two apart.
struct Cancelled : std::runtime_error {
    Cancelled(const std::string& msg, bool is_timeout) : std::runtime_error(msg), timeout(is_timeout) {}
    bool timeout;
};

/// A run's cancel token. Thread-safe: any thread (a watchdog, a server's stop request) may
/// cancel it while the run's thread waits. A token counts as cancelled when cancel() was
/// called, its deadline (monotonic seconds) has passed, or a signal arrived
/// (cancelAllFromSignal). Blocking calls poll it at least every 20 ms.
class CancelToken {
public:
    /// Cancels the token; the first reason given is kept ("interrupted", "stopped by the user").
    void cancel(const std::string& reason = "cancelled");
    /// Sets the deadline: from monotonic time `at` on, the token counts as timed out and
    /// check() throws Cancelled(`message`, timeout = true). `at` <= 0 clears it.
    void setDeadline(double at, const std::string& message);
    /// The deadline in monotonic seconds (0 = none).
    double deadline() const { return deadline_.load(); }
    /// True when cancelled, past the deadline, or a signal is pending.
    bool cancelled() const;
    /// True when the deadline has passed (and the token was not cancelled before).
    bool timedOut() const;
    /// Why it is cancelled: the cancel() reason, "signal N", or the deadline's message; "" if not.
    std::string reason() const;
    /// Throws Cancelled when cancelled() is true.
    void check() const;
    /// Sleeps `seconds` on the monotonic clock in slices of at most 20 ms, checking the token;
    /// throws Cancelled when it is cancelled meanwhile.
    void sleep(double seconds) const;

private:
    std::atomic<bool> cancelled_{false};
    std::atomic<double> deadline_{0};
    mutable std::mutex mu_;
    std::string reason_;
    std::string deadline_message_;
};

/// A token that is never cancelled except by a signal (for tools and tests without a run).
CancelToken& processToken();

/// Records that signal `signo` arrived: every token counts as cancelled from now on.
/// Async-signal-safe (one atomic store).
void cancelAllFromSignal(int signo);
/// The signal that cancelled every token, or 0.
int pendingSignal();
/// Forgets a pending signal (the REPL, after Ctrl-C interrupted one command).
void clearPendingSignal();

}  // namespace eacu
