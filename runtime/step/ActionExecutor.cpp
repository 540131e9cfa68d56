#include "step/ActionExecutor.h"

#include <algorithm>
#include <stdexcept>

#include "base/Cancel.h"
#include "base/Clock.h"
#include "device/Gestures.h"
#include "device/KeyCombo.h"
#include "step/Limits.h"
#include "step/Session.h"
#include "step/StepError.h"
#include "step/TypedCheck.h"
#include "vision/ScreenDiff.h"

namespace eacu {

using json = nlohmann::json;

namespace {

// Pixels of `box` (physical) that moved more than `tolerance` grey levels from `a` to `b`; 0
// without a box or when the frames differ in size.
int changedInBox(const Frame& a, const Frame& b, const std::optional<Rect>& box, int tolerance) {
    if (!box || box->empty() || a.bgr.empty() || a.bgr.size() != b.bgr.size()) return 0;
    const Rect r = box->intersect(Rect{0, 0, a.bgr.cols, a.bgr.rows});
    if (r.empty()) return 0;
    return int(changeRatio(a.bgr, b.bgr, tolerance, r) * double(r.w) * double(r.h) + 0.5);
}

std::string whatOf(const InputAction& a) {
    if (a.action == "input") return "input " + (a.secret ? a.target : json(a.text).dump());
    if (a.action == "key" || a.action == "hold_key") return a.action + " " + a.combo;
    return a.action + (a.target.empty() ? "" : " " + a.target);
}

// What the run log says of a secret text: its length only.
std::string secretLabel(const std::string& utf8) {
    size_t n = 0;
    for (unsigned char c : utf8) n += (c & 0xC0) != 0x80;
    return "(secret, " + std::to_string(n) + " characters)";
}

bool pointerAction(const std::string& action) {
    return action == "tap" || action == "double_tap" || action == "long_press" || action == "drag" ||
           action == "move" || action == "mouse_down" || action == "mouse_up";
}

}  // namespace

void ActionExecutor::checkLimits(const std::string& what) const {
    session_.checkpoint();
    try {
        session_.limits().check(what);
    } catch (const LimitExceeded& e) {
        throw StepError(session_.limits().timeUsedUp() ? failure::kTimeout : failure::kLimit, e.what());
    }
}

Point ActionExecutor::moveExactly(Point p) {
    Device& d = session_.device();
    const int attempts = std::max(1, session_.options().cursor_attempts);
    Point c{};
    for (int i = 0; i < attempts; ++i) {
        d.move(p);
        d.sync();
        c = d.cursor();
        if (c.x == p.x && c.y == p.y) return c;
    }
    throw StepError(failure::kDevice, "the pointer is at (" + std::to_string(c.x) + "," + std::to_string(c.y) +
                                          ") after " + std::to_string(attempts) + " moves, expected (" +
                                          std::to_string(p.x) + "," + std::to_string(p.y) + "): not pressing");
}

Frame ActionExecutor::capture(const InputAction& a) {
    Device& d = session_.device();
    if (a.window && !window_gone_) {
        try {
            return d.windows().capture(a.window).frame;
        } catch (const DeviceError&) {
            window_gone_ = true;  // closed by the input, say: its effect shows on the screen
        }
    }
    return d.capture();
}

// Sends the input itself (the pointer is already at `p` for pointer actions; for events sent
// to a window, it stays where it is).
void ActionExecutor::send(const InputAction& a, Point p) {
    Device& d = session_.device();
    const CancelToken& cancel = session_.cancel();
    if (a.element) {
        if (a.action == "set_text") d.accessibility().setText(*a.element, a.text);
        else d.accessibility().doAction(*a.element, a.element_action);
        d.sync();
        return;
    }
    if (a.send_events) {
        Windows& w = d.windows();
        if (a.action == "input") w.sendText(a.window, a.text);
        else if (a.action == "key") w.sendKeys(a.window, parseKeyCombo(a.combo));
        else w.sendClick(a.window, p, a.button, a.count);
        return;
    }
    if (a.action == "input") {
        if (a.secret) d.typeSecret(a.text);
        else d.typeText(a.text);
    } else if (a.action == "key") {
        d.keyCombo(parseKeyCombo(a.combo));
    } else if (a.action == "scroll") {
        d.scroll(a.dx, a.dy);
    } else if (a.action == "drag") {
        dragPointer(d, p, *a.to, a.duration, cancel);
    } else if (a.action == "move") {
        // The pointer is already there (moved and read back).
    } else if (a.action == "mouse_down") {
        d.press(a.button);
    } else if (a.action == "mouse_up") {
        d.release(a.button);
    } else if (a.action == "hold_key") {
        std::vector<Key> keys = parseKeyCombo(a.combo);
        size_t down = 0;
        try {
            for (; down < keys.size(); ++down) d.keyDown(keys[down]);
            d.sync();
            cancel.sleep(a.hold);
        } catch (...) {
            while (down > 0) d.keyUp(keys[--down]);
            d.sync();
            throw;
        }
        while (down > 0) d.keyUp(keys[--down]);
    } else if (a.hold > 0) {
        d.press(a.button);
        d.sync();
        try {
            cancel.sleep(a.hold);
        } catch (...) {
            d.release(a.button);
            d.sync();
            throw;
        }
        d.release(a.button);
    } else {
        d.click(a.button, a.count);
    }
    d.sync();
}

InputResult ActionExecutor::perform(InputAction a) {
    Session& s = session_;
    const SessionOptions& o = s.options();
    const bool by_user = a.actor == "user";
    // Typed text arrives whole: the field is read before the text is sent and again after
    // (step/TypedCheck); a password field found so makes the text a secret.
    std::optional<TypedCheck> typed;
    if (a.action == "input" && !by_user) {
        if (!a.check) typed = TypedCheck::off("check = false");
        else if (a.send_events) typed = TypedCheck::off("the keys went to a window as events (focus = false)");
        else if (!a.wait_effect) typed = TypedCheck::off("an input inside a batch is not awaited");
        else typed = TypedCheck::forInput(s.device(), a.text, a.secret);
        if (typed->fieldSecret()) a.secret = true;
    } else if (a.action == "set_text" && a.element && !by_user) {
        typed = a.check ? TypedCheck::forSetText(s.device(), *a.element, a.text) : TypedCheck::off("check = false");
    }
    if (a.action == "input" && !a.send_events && !a.secret && !(typed && typed->active()) && s.device().focusIsSecret())
        a.secret = true;
    if (a.secret) a.target = secretLabel(a.text);
    const std::string what = whatOf(a);
    s.cancel().check();
    // A step boundary: after a pause the screen is not the one the input was aimed on.
    if (!by_user && s.checkpoint()) {
        a.before = Frame();
        a.before_id = 0;
        if (a.action == "input" && typed && typed->active())
            typed = TypedCheck::forInput(s.device(), a.text, a.secret);  // the field read again
    }
    // The run's limits: nothing is sent past them (the person's own input is not the run's).
    if (!by_user) try {
        s.limits().beforeAction(what);
    } catch (const LimitExceeded& e) {
        throw StepError(s.limits().timeUsedUp() ? failure::kTimeout : failure::kLimit, e.what(), 0, 0, a.target);
    }
    if (by_user) {
        a.risky = false;
        a.retry_without_effect = false;
    }
    if (a.risky) {
        std::string why = s.confirm(what);
        if (!why.empty()) throw StepError(failure::kRefused, what + ": refused: " + why, 0, 0, a.target);
    }
    if (a.action == "key" || a.action == "hold_key") parseKeyCombo(a.combo);  // an unknown key fails before any input
    if (a.action == "drag" && (!a.at || !a.to)) throw std::invalid_argument("drag: expected both points");
    if (a.send_events) {
        const bool sendable = ((a.action == "tap" || a.action == "double_tap") && a.hold <= 0 && a.at) ||
                              a.action == "input" || a.action == "key";
        if (!a.window || !sendable)
            throw std::invalid_argument(a.action + ": focus = false (events sent to a window) works with tap, "
                                        "double_tap, input and key in a window (window = ...), not " +
                                        a.action + (a.window ? "" : " without a window"));
    }
    window_gone_ = false;
    StepRecord st = s.beginStep(a.action, a.target, a.idx);
    if (!a.actor.empty()) st.actor = a.actor;
    st.parent_id = a.parent_id;
    st.method = a.method.empty() ? (pointerAction(a.action) ? "point" : a.action == "scroll" ? "wheel" : "keyboard")
                                 : a.method;
    st.score = a.score;
    st.threshold = a.threshold;
    st.box = a.box;
    st.locate_ms = a.locate_ms;
    json params = json::object();
    if (a.action == "tap" || a.action == "double_tap" || a.action == "long_press")
        params = {{"button", buttonNumber(a.button)}, {"count", a.count}, {"hold", a.hold}};
    else if (a.action == "scroll")
        params = {{"dx", a.dx}, {"dy", a.dy}};
    else if (a.action == "drag")
        params = {{"to", {a.to->x, a.to->y}}, {"duration", a.duration}};
    for (auto it = a.params.begin(); it != a.params.end(); ++it) params[it.key()] = it.value();

    auto fail = [&](const std::string& code, const std::string& msg) -> StepError {
        st.status = "failed";
        st.error = msg;
        st.params_json = params.dump();
        int64_t id = s.commitStep(st);
        last_step_ = st;
        return StepError(code, msg, id, st.frame_before.value_or(0), a.target);
    };

    Frame before = a.before.empty() ? capture(a) : std::move(a.before);
    Point p{};
    if (a.at) {
        p = *a.at;
        st.input = p;
        try {
            if (!a.send_events) moveExactly(p);
        } catch (const StepError& e) {
            throw fail(e.code, a.action + " " + a.target + ": " + e.what());
        }
    } else if (a.action == "scroll") {
        st.input = s.device().cursor();
    }
    InputResult r;
    double a0 = monotonicSeconds();
    if (a.element) {
        params["a11y"] = {{"role", a.element->role}, {"name", a.element->name}, {"path", a.element->path},
                          {"pid", a.element->pid}};
        if (a.action != "set_text") params["a11y"]["action"] = a.element_action;
        try {
            send(a, p);
        } catch (const DeviceError& e) {
            throw fail(failure::kDevice, a.action + " " + a.target + ": " + e.what());
        }
    } else {
        send(a, p);
    }
    st.action_ms = (monotonicSeconds() - a0) * 1000;
    if (by_user) params["sent_at"] = wallSeconds();
    st.frame_before = a.before_id ? std::optional<int64_t>(a.before_id) : std::nullopt;
    if (!a.before_id)
        if (int64_t id = s.recordFrame(before)) st.frame_before = id;
    if (!a.wait_effect) {  // a batch's inner action: the batch settles once at its end
        if (a.send_events) params["delivery"] = "events";
        if (typed) params["typed"] = typed->note();
        params["effect"] = "not awaited";
        st.params_json = params.dump();
        r.step_id = s.commitStep(st);
        last_step_ = st;
        r.input = st.input;
        return r;
    }
    auto grab = [this, &a] { return capture(a); };
    Settle settle = waitEffectAndSettle(grab, before, s.stability());

    // Seed 000 §5: a single tap that changed nothing is pressed again a few pixels off, inside
    // the target's box. Before each press the screen is looked at again against the frame from
    // before the first input, for up to late_effect_timeout: a slow redraw is a late effect,
    // recorded as such, and the press is not repeated.
    const bool may_retry = a.retry_without_effect && a.action == "tap" && a.count == 1 && a.hold <= 0 && a.at;
    if (!settle.changed && may_retry && o.tap_retries > 0) {
        static const int dirs[4][2] = {{1, 0}, {0, 1}, {-1, 0}, {0, -1}};
        json tried = json::array();
        double waited = settle.ms;
        for (int i = 0;; ++i) {
            StabilityOptions late_o = s.stability();
            late_o.effect_timeout = o.late_effect_timeout;
            Settle late = waitEffectAndSettle(grab, before, late_o);
            waited += late.ms;
            late.ms = waited;
            settle = std::move(late);
            if (settle.changed) {
                r.late_effect = true;
                params["late_effect"] = true;
                break;
            }
            // An effect too small for the whole screen's noise ratio, drawn inside the target
            // itself (a check box's mark: ~25 px of a 1280x800 screen in Wine, under the 51 px of
            // noise): the tap took. Pressing again would undo it (a check box ticked and
            // unticked; e2e_studio_agent's replay saw the form get 0 for its ticked box).
            if (int px = changedInBox(before, settle.frame, a.box, s.stability().tolerance); px >= kTargetEffectPixels) {
                settle.changed = true;
                params["effect_in_target"] = px;
                break;
            }
            if (i >= o.tap_retries) break;
            Point q{p.x + dirs[i % 4][0] * o.jitter, p.y + dirs[i % 4][1] * o.jitter};
            if (a.box && !a.box->empty()) {
                q.x = std::clamp(q.x, a.box->x, a.box->x + std::max(0, a.box->w - 1));
                q.y = std::clamp(q.y, a.box->y, a.box->y + std::max(0, a.box->h - 1));
            }
            try {
                if (!a.send_events) moveExactly(q);
            } catch (const StepError& e) {
                throw fail(e.code, a.action + " " + a.target + ": " + e.what());
            }
            send(a, q);
            ++r.retries;
            tried.push_back({q.x, q.y});
            st.input = q;
            Settle again = waitEffectAndSettle(grab, before, s.stability());
            waited += again.ms;
            again.ms = waited;
            settle = std::move(again);
            if (settle.changed) break;
        }
        params["retried_at"] = tried;
    }
    if (may_retry) params["retries"] = r.retries;
    if (a.send_events) params["delivery"] = "events";
    params["effect"] = settle.changed ? "changed" : "none";
    params["settled"] = settle.settled;
    st.params_json = params.dump();
    st.change_ratio = settle.change_ratio;
    st.settle_ms = settle.ms;
    if (int64_t id = s.recordFrame(settle.frame)) st.frame_after = id;
    if (typed) {
        typed->onScreen(before.bgr, settle.frame.bgr, a.secret);  // where the tree could not check
        std::optional<std::string> bad = typed->after();
        params["typed"] = typed->note();
        st.params_json = params.dump();
        if (bad) throw fail(failure::kVerifyFailed, whatOf(a) + ": " + *bad);
    }
    r.step_id = s.commitStep(st);
    last_step_ = st;
    r.input = st.input;
    r.settle = std::move(settle);
    return r;
}

}  // namespace eacu
