#include "run/UserInput.h"

#include <cstdlib>
#include <stdexcept>
#include <string>

#include "base/Clock.h"
#include "step/Session.h"

namespace eacu {

using json = nlohmann::json;

namespace {

int intField(const json& e, const char* key, const std::string& kind) {
    auto it = e.find(key);
    if (it == e.end() || !it->is_number())
        throw std::invalid_argument("input " + kind + ": expected \"" + key + "\" (a number of pixels), got " +
                                    (it == e.end() ? std::string("nothing") : it->dump()));
    return int(it->get<double>() + (it->get<double>() >= 0 ? 0.5 : -0.5));
}

Point pointField(const json& e, const char* xk, const char* yk, const std::string& kind, Size screen) {
    Point p{intField(e, xk, kind), intField(e, yk, kind)};
    if (screen.w > 0 && (p.x < 0 || p.y < 0 || p.x >= screen.w || p.y >= screen.h))
        throw std::invalid_argument("input " + kind + ": expected a point on the " + std::to_string(screen.w) + "x" +
                                    std::to_string(screen.h) + " screen, got (" + std::to_string(p.x) + "," +
                                    std::to_string(p.y) + ")");
    return p;
}

std::string stringField(const json& e, const char* key, const std::string& kind) {
    auto it = e.find(key);
    if (it == e.end() || !it->is_string() || it->get<std::string>().empty())
        throw std::invalid_argument("input " + kind + ": expected \"" + key + "\" (a non-empty string), got " +
                                    (it == e.end() ? std::string("nothing") : it->dump()));
    return it->get<std::string>();
}

}  // namespace

InputAction userInputAction(const json& event, Size screen) {
    if (!event.is_object()) throw std::invalid_argument("input: expected an event object {kind, ...}, got " + event.dump());
    auto k = event.find("kind");
    if (k == event.end() || !k->is_string())
        throw std::invalid_argument("input: expected \"kind\" (move, click, double_click, right_click, drag, wheel, "
                                    "key or text), got " + (k == event.end() ? std::string("nothing") : k->dump()));
    const std::string kind = *k;
    InputAction a;
    a.actor = "user";
    a.method = "person";
    // The person sees the screen and acts again if a click did nothing: it is not repeated
    // a few pixels off as a script's unseen tap is (which could turn one click into two).
    a.retry_without_effect = false;
    a.params = {{"event", kind}};
    if (kind == "move" || kind == "click" || kind == "double_click" || kind == "right_click") {
        a.at = pointField(event, "x", "y", kind, screen);
        a.action = kind == "move" ? "move" : kind == "double_click" ? "double_tap" : "tap";
        if (kind == "double_click") a.count = 2;
        if (kind == "right_click") a.button = MouseButton::Right;
    } else if (kind == "long_press") {
        a.at = pointField(event, "x", "y", kind, screen);
        a.action = "long_press";
        a.hold = 1.0;
        if (auto h = event.find("hold"); h != event.end()) {
            if (!h->is_number() || h->get<double>() < 0.3 || h->get<double>() > 30)
                throw std::invalid_argument("input long_press: expected \"hold\" in [0.3, 30] seconds, got " + h->dump());
            a.hold = h->get<double>();
        }
    } else if (kind == "drag") {
        a.action = "drag";
        a.at = pointField(event, "x", "y", kind, screen);
        a.to = pointField(event, "to_x", "to_y", kind, screen);
        a.duration = 0.2;
    } else if (kind == "wheel") {
        a.action = "scroll";
        if (event.contains("x") || event.contains("y")) a.at = pointField(event, "x", "y", kind, screen);
        a.dx = event.contains("dx") ? intField(event, "dx", kind) : 0;
        a.dy = event.contains("dy") ? intField(event, "dy", kind) : 0;
        if (a.dx == 0 && a.dy == 0)
            throw std::invalid_argument("input wheel: expected \"dx\" or \"dy\" (wheel clicks, not 0), got " + event.dump());
    } else if (kind == "key") {
        a.action = "key";
        a.combo = stringField(event, "keys", kind);
    } else if (kind == "text") {
        a.action = "input";
        a.text = stringField(event, "text", kind);
    } else {
        throw std::invalid_argument("input: expected \"kind\" move, click, double_click, right_click, long_press, drag, wheel, "
                                    "key or text, got \"" + kind + "\"");
    }
    // The step's target as a script's input and key steps name theirs (the text, the combo),
    // which `eacu script` writes back.
    a.target = a.at ? "(" + std::to_string(a.at->x) + "," + std::to_string(a.at->y) + ")"
                    : kind == "text" ? a.text : kind == "key" ? a.combo : std::string();
    return a;
}

StepRecord performUserInput(Session& session, const json& event, const Frame& before, bool await_effect) {
    InputAction a = userInputAction(event, session.device().screenSize());
    a.before = before;
    a.wait_effect = await_effect;
    // The page sends a click at once and, when a second press follows at the same place, the
    // double click: the device gets a click, then one double click started kDoubleClickGap
    // after that click, so the application sees a click and a double click, never a triple.
    const StepRecord& last = session.executor().lastStep();
    if (a.action == "double_tap" && last.actor == "user" && last.action == "tap" && last.input && a.at &&
        std::abs(last.input->x - a.at->x) <= kDoubleClickSlop && std::abs(last.input->y - a.at->y) <= kDoubleClickSlop) {
        json p = json::parse(last.params_json, nullptr, false);
        double sent = p.is_object() ? p.value("sent_at", 0.0) : 0.0;
        const double now = wallSeconds(), wait = sent + kDoubleClickGap - now;
        if (sent > 0 && now - sent < kDoubleClickAfter) {
            a.params["after_click"] = last.idx;
            if (wait > 0) session.cancel().sleep(wait);
        }
    }
    session.executor().perform(std::move(a));
    return session.executor().lastStep();
}

}  // namespace eacu
