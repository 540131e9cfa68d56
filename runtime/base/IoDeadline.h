// A per-thread bound on waits for a far end (a device's socket or pipe): the step engine sets
// it around a step's action and checks, device code ends each wait at it.
#pragma once
#include <string>

#include "base/Cancel.h"

namespace eacu {

/// What bounds a wait for a far end's answer on this thread: a moment (monotonic seconds, 0 =
/// none), the token that cancels the wait (the run's; may be null) and how the bound is named in
/// messages ("the step's deadline of 5 s").
struct IoBound {
    double at = 0;
    const CancelToken* token = nullptr;
    std::string what;
    /// Set by IoDeadlineScope::cleanup: a pending signal (a SIGTERM, serve's stop) does not
    /// cancel the wait, only the moment `at` ends it.
    bool cleanup = false;
};

/// Sets the calling thread's IoBound for the scope's life. Scopes nest: the inner bound is the
/// earlier of the two moments (with its name), its token the inner one when given, else the
/// outer's. Construct and destroy on the same thread, innermost first (RAII does).
class IoDeadlineScope {
public:
    /// `at`: monotonic seconds (<= 0: no moment of its own); `token`: may be null; `what`: the
    /// bound's name in messages.
    IoDeadlineScope(double at, const CancelToken* token, std::string what);
    /// Sets the bound `seconds` from now (see above).
    static IoDeadlineScope in(double seconds, const CancelToken* token, const std::string& what);
    /// For cleanup that must run after the thread's bound and its token's deadline have passed
    /// or the run was cancelled (a display's keyboard mapping restored when a run ends at its
    /// time limit, a page closed when serve stops its task): the bound is `seconds` from now,
    /// with no token and no cancelling by a pending signal, whatever the outer scopes say.
    static IoDeadlineScope cleanup(double seconds, const std::string& what);
    ~IoDeadlineScope();
    IoDeadlineScope(const IoDeadlineScope&) = delete;
    IoDeadlineScope& operator=(const IoDeadlineScope&) = delete;
    IoDeadlineScope(IoDeadlineScope&& other) noexcept;

private:
    IoBound saved_;
    bool active_ = true;
};

/// The calling thread's bound (at = 0 and token = null outside every scope). A token's own
/// deadline (the run's time limit) is not folded in here: see ioWaitEnd.
const IoBound& currentIoBound();

/// The least time a wait is given under a bound, in seconds: a wait that starts with less than
/// this left to the thread's bound (an input or a settle capture after a find that used its
/// whole timeout) ends this long after its start instead (chromium's 2560x1600 screenshot takes
/// 0.3 s on 2 loaded cores: 2 s is a stall, not a slow answer).
constexpr double kIoWaitFloor = 2.0;

/// When a wait that allows itself `own_timeout` seconds from now must end (monotonic seconds):
/// the earliest of now + own_timeout, the thread's bound (but not sooner than `least` from now:
/// kIoWaitFloor, or more for an operation whose measured cost is longer, e.g. a raw screencap
/// over Wi-Fi adb, 2.3 s) and its token's deadline. `limited_by`, when given, receives the name
/// of what set the end ("" when it is the wait's own timeout).
double ioWaitEnd(double own_timeout, std::string* limited_by = nullptr, double least = kIoWaitFloor);

/// Throws Cancelled when the thread's token is cancelled (a stop, a signal, the run's time
/// limit); outside every scope, on a pending signal; never inside a cleanup scope.
void ioCheckCancel();

}  // namespace eacu
