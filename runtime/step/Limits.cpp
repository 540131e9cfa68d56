#include "step/Limits.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <unistd.h>

#include "base/Ascii.h"
#include "base/Frame.h"

namespace eacu {

LimitGuard::LimitGuard(RunLimits limits, CancelToken* deadline)
    : limits_(limits), deadline_(deadline), t0_(monotonicSeconds()) {
    updateDeadline();
}

void LimitGuard::setLimits(const RunLimits& limits) {
    limits_ = limits;
    updateDeadline();
}

std::string timeLimitMessage(double max_seconds) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.0f s", max_seconds);
    return std::string("the run's time limit of ") + buf + " is used up (set limits{max_seconds=} or eacu run --max-time)";
}

void LimitGuard::updateDeadline() {
    if (!deadline_) return;
    if (limits_.max_seconds > 0) deadline_->setDeadline(t0_ + limits_.max_seconds, timeLimitMessage(limits_.max_seconds));
    else deadline_->setDeadline(0, "");
}

double LimitGuard::elapsed() const { return monotonicSeconds() - t0_; }

void LimitGuard::checkTime(const std::string& what) const {
    if (timeUsedUp()) throw LimitExceeded(what + ": " + timeLimitMessage(limits_.max_seconds));
}

bool LimitGuard::timeUsedUp() const { return limits_.max_seconds > 0 && elapsed() > limits_.max_seconds; }

void LimitGuard::check(const std::string& what) const {
    checkTime(what);
    if (limits_.max_actions > 0 && actions_ >= limits_.max_actions)
        throw LimitExceeded(what + ": the run's limit of " + std::to_string(limits_.max_actions) +
                            " actions is reached (set limits{max_actions=} or eacu run --max-actions)");
}

void LimitGuard::beforeAction(const std::string& what) {
    check(what);
    ++actions_;
}

ConfirmMode confirmModeFromEnv() {
    const char* v = std::getenv("EACU_CONFIRM");
    std::string s = v ? v : "";
    if (s.empty() || s == "ask") return ConfirmMode::Ask;
    if (s == "yes") return ConfirmMode::Yes;
    if (s == "no") return ConfirmMode::No;
    throw std::invalid_argument("EACU_CONFIRM: expected yes, no or ask, got \"" + s + "\"");
}

std::string confirmRisky(const std::string& what, ConfirmMode mode, UserChannel& channel, const CancelToken& cancel) {
    if (mode == ConfirmMode::Yes) return "";
    if (mode == ConfirmMode::No) return "risky actions are refused (EACU_CONFIRM=no)";
    return channel.confirm(what, cancel);
}

bool looksRisky(const std::string& text, const std::vector<std::string>& extra) {
    std::string t = asciiLower(text);
    static const std::vector<std::string> words = {"pay",     "delete", "send",   "submit", "purchase", "remove",
                                                   "transfer", "付款",  "支付",   "删除",   "发送",     "提交",
                                                   "转账"};
    for (const auto& w : words)
        if (t.find(w) != std::string::npos) return true;
    for (const auto& w : extra)
        if (!w.empty() && t.find(asciiLower(w)) != std::string::npos) return true;
    return false;
}

}  // namespace eacu
