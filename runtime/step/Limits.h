// Per-run limits and confirmation of risky actions (seed 001 §9: at most 80 actions and
// 8 minutes; submit, pay, delete need a human's yes).
#pragma once
#include <stdexcept>
#include <string>
#include <vector>

#include "base/Cancel.h"
#include "step/UserChannel.h"

namespace eacu {

/// Thrown when a run goes past one of its limits.
struct LimitExceeded : std::runtime_error {
    using std::runtime_error::runtime_error;
};

/// Limits of one run. 0 means "no limit" (a default-constructed RunLimits; SessionOptions and
/// `eacu run` use kDefaultMaxActions and kDefaultMaxSeconds, `eacu repl` none).
/// - `max_actions`: input steps (tap, double_tap, long_press, input, key, scroll, drag);
///   looking (locate, wait, verify) does not count.
/// - `max_seconds`: wall time since the run started.
struct RunLimits {
    int max_actions = 0;
    double max_seconds = 0;
};

constexpr int kDefaultMaxActions = 80;
constexpr double kDefaultMaxSeconds = 480;

/// Counts actions against RunLimits. The time limit is also the deadline of the run's cancel
/// token (when given), so that every wait, sleep and model call stops at it, not only the next
/// action.
class LimitGuard {
public:
    /// Starts the clock now. `deadline` (may be null) gets the deadline of `limits.max_seconds`.
    explicit LimitGuard(RunLimits limits = {}, CancelToken* deadline = nullptr);
    const RunLimits& limits() const { return limits_; }
    /// Changes the limits (limits{...} in a script); the deadline moves with max_seconds.
    void setLimits(const RunLimits& limits);
    int actions() const { return actions_; }
    double elapsed() const;
    /// Called before an action: throws LimitExceeded ("tap \"OK\": the run's limit of 80
    /// actions is reached (set limits{max_actions=} or --max-actions)") when this action would
    /// pass max_actions, or the run has used up max_seconds.
    void beforeAction(const std::string& what);
    /// Checks only the time limit (for waits), with the same message form.
    void checkTime(const std::string& what) const;
    /// beforeAction's checks without counting the action.
    void check(const std::string& what) const;
    /// True when max_seconds is set and used up.
    bool timeUsedUp() const;

private:
    void updateDeadline();
    RunLimits limits_;
    CancelToken* deadline_;
    int actions_ = 0;
    double t0_;
};

/// "the run's time limit of 3 s is used up (set limits{max_seconds=} or eacu run --max-time)".
std::string timeLimitMessage(double max_seconds);

/// How risky actions are confirmed: Ask (on a terminal: ask; with none: refuse), Yes (allowed,
/// e.g. `eacu run --yes` or EACU_CONFIRM=yes), No (always refused).
enum class ConfirmMode { Ask, Yes, No };

/// ConfirmMode from EACU_CONFIRM (yes|no|ask; unset: Ask). Throws std::invalid_argument for
/// other values.
ConfirmMode confirmModeFromEnv();

/// Whether the risky action `what` may run: Yes allows, No refuses, Ask asks the person through
/// `channel` (the terminal: "eacu: confirm: <what> [y/N] ", y/yes allows; without a terminal it
/// refuses). Returns "" when allowed, else the reason it was refused. Throws Cancelled when
/// `cancel` is cancelled while it waits.
std::string confirmRisky(const std::string& what, ConfirmMode mode, UserChannel& channel, const CancelToken& cancel);

/// True when `text` contains a word that marks an action as risky (pay, delete, send, submit,
/// purchase, remove, transfer, 付款, 支付, 删除, 发送, 提交, 转账), case-insensitive for ASCII.
/// `extra` adds words (a template's own).
bool looksRisky(const std::string& text, const std::vector<std::string>& extra = {});

}  // namespace eacu
