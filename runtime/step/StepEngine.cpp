#include "step/StepEngine.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "assets/AssetLibrary.h"
#include "base/Cancel.h"
#include "base/Clock.h"
#include "device/DeviceWait.h"
#include "model/Action.h"
#include "model/ModelTypes.h"
#include "step/Limits.h"
#include "step/Session.h"

namespace eacu {
namespace {

// A number as Lua prints it ("5", "0.5"), for messages that read like the script.
std::string num(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.14g", v);
    return buf;
}

// A number for the run log's JSON: an integer when it is one (5, not 5.0).
nlohmann::json jsonNumber(double v) {
    if (std::floor(v) == v && std::fabs(v) < 1e15) return int64_t(v);
    return v;
}

bool needsTarget(const std::string& kind) { return kind == "tap" || kind == "double_tap" || kind == "long_press"; }

bool knownKind(const std::string& kind) {
    return needsTarget(kind) || kind == "input" || kind == "key" || kind == "scroll" || kind == "swipe" ||
           kind == "wait" || kind == "call";
}

// Throws std::invalid_argument when an action cannot be run as given.
void checkAction(const StepAction& a, const std::string& what) {
    if (!knownKind(a.kind))
        throw std::invalid_argument(what + ": expected an action tap, double_tap, long_press, input, key, scroll, "
                                           "swipe, wait or call, got \"" + a.kind + "\"");
    if (a.perform) return;
    if (needsTarget(a.kind) && !a.target) throw std::invalid_argument(what + ": " + a.kind + " needs a target");
    if (a.kind == "call") throw std::invalid_argument(what + ": call needs a function");
    if (a.to && !a.target) throw std::invalid_argument(what + ": a swipe needs its start (from=) and end (to=)");
}

void checkCheck(const StepCheck& c, const std::string& what) {
    if (!c.target && !c.holds && !c.check)
        throw std::invalid_argument(what + ": expected a target, a condition or a check");
}

// A failure as the engine decides on it: the code, the message, the exception as thrown.
struct Failure {
    StepError error;
    std::exception_ptr cause;
    const std::string& code() const { return error.code; }
    std::string message() const { return error.what(); }
};

Failure failureOf(const std::exception_ptr& e) { return {asStepError(e), e}; }

Failure stepFailure(const std::string& code, const std::string& msg) {
    return {StepError(code, msg), std::make_exception_ptr(StepError(code, msg))};
}

}  // namespace

std::optional<Match> performAction(Session& ses, const StepAction& a, double timeout) {
    auto io = ses.ioBound(timeout);
    if (a.perform) return a.perform(timeout);
    const std::string& k = a.kind;
    if (needsTarget(k)) {
        TapOptions o;
        o.button = a.button;
        o.timeout = timeout;
        o.action = k;
        if (k == "double_tap") o.count = 2;
        if (k == "long_press") o.hold = a.seconds >= 0 ? a.seconds : 1.0;
        return ses.tap(*a.target, o);
    }
    if (k == "input") {
        ses.input(a.text);
    } else if (k == "key") {
        ses.key(a.text);
    } else if (k == "scroll" || (k == "swipe" && !a.to)) {
        ses.scroll(a.dx, a.dy, a.target);
    } else if (k == "swipe") {
        ses.drag(*a.target, *a.to, a.seconds >= 0 ? a.seconds : 0.3);
    } else if (k == "wait") {
        if (a.target) return ses.wait(*a.target, timeout, "wait");
        ses.sleep(std::max(0.0, a.seconds));
    }
    return std::nullopt;
}

namespace {

// Runs a check; throws when it does not hold (a `holds` condition: StepError kVerifyFailed
// naming the last exception it threw; an abort from it is rethrown at once).
void runCheck(Session& ses, const StepCheck& c, double timeout) {
    auto io = ses.ioBound(timeout);
    if (c.check) return c.check(timeout);
    if (c.target) {
        ses.wait(*c.target, timeout, "verify");
        return;
    }
    const double deadline = monotonicSeconds() + timeout;
    std::string last;
    for (;;) {
        ses.cancel().check();
        try {
            if (c.holds()) return;
            last.clear();
        } catch (...) {
            Failure f = failureOf(std::current_exception());
            if (isAbortCode(f.code())) throw;
            last = f.message();
        }
        if (monotonicSeconds() >= deadline) break;
        ses.cancel().sleep(0.05);
    }
    throw StepError(failure::kVerifyFailed,
                    "verify: " + c.what + " is not true after " + num(timeout) + " s" + (last.empty() ? "" : ": " + last));
}

std::string checkLabel(const StepCheck& c) {
    if (!c.label.empty()) return c.label;
    if (c.target) return describeTarget(*c.target);
    return "(function)";
}


}  // namespace

StepAction scrollAction(const std::string& direction, bool swipe, int clicks) {
    // A swipe moves the content the other way: swiping up shows what is below (scroll down).
    std::string d = direction;
    if (swipe) d = d == "up" ? "down" : d == "down" ? "up" : d == "left" ? "right" : d == "right" ? "left" : d;
    StepAction a;
    a.kind = swipe ? "swipe" : "scroll";
    a.text = direction;
    a.dx = d == "right" ? clicks : d == "left" ? -clicks : 0;
    a.dy = d == "down" ? clicks : d == "up" ? -clicks : 0;
    if (a.dx == 0 && a.dy == 0)
        throw std::invalid_argument(a.kind + ": expected up|down|left|right, got " + direction);
    return a;
}

std::string actionLabel(const StepAction& a) {
    if (!a.label.empty()) return a.label;
    std::string what;
    if (a.kind == "call") {
        what = "(function)";
    } else if (a.kind == "input" || a.kind == "key") {
        what = "\"" + a.text + "\"";
    } else if (a.kind == "scroll" || a.kind == "swipe") {
        if (!a.text.empty()) what = "\"" + a.text + "\"";
        else if (a.to) what = describeTarget(*a.target) + " -> " + describeTarget(*a.to);
        else what = "{dx=" + std::to_string(a.dx) + ", dy=" + std::to_string(a.dy) + "}";
        if (a.target && !a.to) what += " at " + describeTarget(*a.target);
    } else if (a.kind == "wait" && !a.target) {
        what = num(std::max(0.0, a.seconds));
    } else if (a.target) {
        what = describeTarget(*a.target);
    }
    return what.empty() ? a.kind : a.kind + " " + what;
}

std::string stepLabel(const StepSpec& s) {
    if (!s.name.empty()) return s.name;
    if (s.action) return actionLabel(*s.action);
    if (s.verify) return "verify " + checkLabel(*s.verify);
    return "verify " + (s.success ? checkLabel(*s.success) : std::string("(nothing)"));
}

namespace {

// True when `e` is a device wait that ended at its bound (DeviceStalled).
bool isStall(const std::exception_ptr& e) {
    try {
        if (e) std::rethrow_exception(e);
    } catch (const DeviceStalled&) {
        return true;
    } catch (...) {
    }
    return false;
}

}  // namespace

std::string failureCode(const std::exception_ptr& e) {
    try {
        std::rethrow_exception(e);
    } catch (const StepError& x) {
        return x.code;
    } catch (const LimitExceeded&) {
        return failure::kLimit;
    } catch (const Cancelled& x) {
        return x.timeout ? failure::kTimeout : failure::kCancelled;
    } catch (const model::ModelError& x) {
        return x.cancelled() ? failure::kCancelled : failure::kModel;
    } catch (const model::ActionParseError&) {
        return failure::kModel;
    } catch (const DeviceError&) {
        return failure::kDevice;
    } catch (const TargetNotFound&) {
        return failure::kInvalid;
    } catch (const std::invalid_argument&) {
        return failure::kInvalid;
    } catch (...) {
        return failure::kFailed;
    }
}

StepError asStepError(const std::exception_ptr& e) {
    try {
        std::rethrow_exception(e);
    } catch (const StepError& x) {
        return x;
    } catch (const std::exception& x) {
        return StepError(failureCode(e), x.what());
    } catch (...) {
        return StepError(failure::kFailed, "unknown error");
    }
}

bool isAbortCode(const std::string& code) {
    return code == failure::kLimit || code == failure::kCancelled || code == failure::kTimeout ||
           code == failure::kRefused || code == failure::kModel || code == failure::kInvalid;
}

StepResult executeStep(Session& ses, const StepSpec& s) {
    const std::string label = stepLabel(s);
    if (!s.action && !s.verify && !s.success)
        throw std::invalid_argument("step: expected an action (tap=, input=, key=, scroll=, swipe=, wait=, call=, "
                                    "or action=) or verify=");
    if (s.action) checkAction(*s.action, "step");
    for (const auto& f : s.fallback) checkAction(f, "step fallback");
    if (s.verify) checkCheck(*s.verify, "step verify");
    if (s.success) checkCheck(*s.success, "step success");
    if (s.retry < 0) throw std::invalid_argument("step: retry must be >= 0, got " + std::to_string(s.retry));
    if (s.fallback_max < 0)
        throw std::invalid_argument("step: fallback_max must be >= 0, got " + std::to_string(s.fallback_max));
    if (!(s.timeout >= 0)) throw std::invalid_argument("step: timeout must be >= 0 seconds, got " + num(s.timeout));
    ses.intent(label);

    const double t0 = wallSeconds();
    StepResult res;
    std::optional<Failure> last;  // the failure the step ends with

    auto finish = [&]() -> StepResult& {
        nlohmann::json blockers = nlohmann::json::array();
        for (const Blocker& b : ses.blockers().list())
            blockers.push_back({{"name", b.name}, {"kind", b.kind}, {"handled", b.handled}});
        nlohmann::json params{{"retry", s.retry},           {"timeout", jsonNumber(s.timeout)},
                              {"optional", s.optional},     {"attempts", res.attempts},
                              {"fallbacks", res.fallbacks}, {"reason", res.reason},
                              {"suggestion", res.suggestion}, {"blockers", blockers}};
        if (s.action) params["action"] = s.action->kind;
        StepRecord r = ses.beginStep("step", label);
        r.started_at = t0;
        r.status = res.ok ? "ok" : s.optional ? "skipped" : "failed";
        r.error = res.ok ? "" : res.reason + " (suggestion: " + res.suggestion + ")";
        r.params_json = params.dump();
        r.method = s.method;
        res.step_id = ses.commitStep(r);
        if (!res.ok) {
            const StepError* inner = last ? &last->error : nullptr;
            std::string target = inner && !inner->target.empty() ? inner->target
                                 : s.action && s.action->target ? describeTarget(*s.action->target)
                                                                : "";
            res.error = StepError(res.code, "step " + label + ": " + r.error, res.step_id, inner ? inner->frame_id : 0,
                                  target, inner ? inner->best : std::nullopt);
            res.cause = last ? last->cause : std::make_exception_ptr(*res.error);
        }
        return res;
    };
    auto fail = [&](Failure f, std::string reason, std::string code, std::string suggestion) {
        res.reason = std::move(reason);
        res.code = std::move(code);
        res.suggestion = std::move(suggestion);
        last = std::move(f);
    };

    try {
        if (s.risky) {
            std::string why = ses.confirm(label);
            if (!why.empty()) {
                fail(stepFailure(failure::kRefused, "refused: " + why), "refused: " + why, failure::kRefused, "abort");
                return finish();
            }
        }
        if (s.wait_before > 0) ses.sleep(s.wait_before);

        for (int attempt = 0; attempt <= s.retry; ++attempt) {
            res.attempts = attempt + 1;
            std::optional<Failure> failed;
            auto attemptAction = [&](double timeout) {
                try {
                    res.match = performAction(ses, *s.action, timeout);
                    return true;
                } catch (...) {
                    failed = failureOf(std::current_exception());
                    return false;
                }
            };
            bool ok = true;
            if (s.action) {
                ok = attemptAction(attempt == 0 ? s.timeout : std::min(s.timeout, 2.0));
                // Not found: run the fallbacks, then look again, up to fallback_max times.
                while (!ok && failed->code() == failure::kNotFound && !s.fallback.empty() &&
                       res.fallbacks < s.fallback_max) {
                    ++res.fallbacks;
                    std::optional<Failure> fb;
                    for (const StepAction& f : s.fallback) {
                        try {
                            performAction(ses, f, f.timeout >= 0 ? f.timeout : ses.options().find_timeout);
                        } catch (...) {
                            fb = failureOf(std::current_exception());
                            break;
                        }
                    }
                    if (fb) {
                        std::string msg = failed->message() + "; fallback " + std::to_string(res.fallbacks) + ": " +
                                          fb->message();
                        if (isAbortCode(fb->code())) failed = std::move(fb);
                        failed->error = StepError(failed->code(), msg, failed->error.step_id, failed->error.frame_id,
                                                  failed->error.target, failed->error.best);
                        break;
                    }
                    ok = attemptAction(std::min(s.timeout, 1.0));
                }
            }
            if (ok) {
                if (s.wait_after > 0) ses.sleep(s.wait_after);
                try {
                    if (s.verify) runCheck(ses, *s.verify, s.timeout);
                    if (s.success) runCheck(ses, *s.success, s.timeout);
                    res.ok = true;
                    res.code = res.reason = res.suggestion = "";
                    last.reset();
                    return finish();
                } catch (...) {
                    Failure f = failureOf(std::current_exception());
                    if (isAbortCode(f.code())) {
                        std::string msg = f.message();
                        std::string code = f.code();
                        fail(std::move(f), msg, code, "abort");
                        break;
                    }
                    std::string msg = "verification failed: " + f.message();
                    fail(std::move(f), msg, failure::kVerifyFailed, attempt < s.retry ? "retry" : "replan");
                }
            } else {
                std::string msg = failed->message();
                std::string code = failed->code();
                // A device that stopped answering is not asked again within this step: the
                // step ends at its deadline (the next step, or run, finds it answering again).
                const bool stalled = isStall(failed->cause);
                std::string suggestion = isAbortCode(code) ? "abort"
                                         : stalled                  ? "replan"
                                         : code == failure::kNotFound
                                             ? (!ses.blockers().empty() || s.fallback.empty() ? "dismiss" : "replan")
                                             : "retry";
                fail(std::move(*failed), msg, code, suggestion);
                if (suggestion == "abort" || stalled) break;
            }
        }
    } catch (...) {
        // Outside an action: a wait_before/wait_after cancelled, a bad EACU_CONFIRM.
        Failure f = failureOf(std::current_exception());
        std::string msg = f.message();
        std::string code = f.code();
        fail(std::move(f), msg, code, isAbortCode(code) ? "abort" : "retry");
    }
    if (res.suggestion == "retry") res.suggestion = "replan";
    return finish();
}

StepResult runStep(Session& ses, const StepSpec& spec) {
    StepResult r = executeStep(ses, spec);
    if (!r.ok && !spec.optional) throw *r.error;
    return r;
}

}  // namespace eacu
