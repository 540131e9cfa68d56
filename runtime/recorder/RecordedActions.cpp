#include "recorder/RecordedActions.h"

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <optional>

namespace eacu {

namespace {

const char* buttonName(int b) { return b == 3 ? "right" : b == 2 ? "middle" : "left"; }

bool near(Point a, Point b, int px) { return std::abs(a.x - b.x) <= px && std::abs(a.y - b.y) <= px; }

bool isModifierKey(const std::string& name) {
    for (const char* m : {"Shift_L", "Shift_R", "Control_L", "Control_R", "Alt_L", "Alt_R", "Meta_L", "Meta_R",
                          "Super_L", "Super_R", "ISO_Level3_Shift", "Caps_Lock", "Num_Lock"})
        if (name == m) return true;
    return false;
}

// The combo `key` takes for a key pressed with modifiers: "ctrl+shift+t".
std::string comboOf(const RecordedInput& e) {
    std::string name = e.key_name;
    if (name.size() == 1) name[0] = char(std::tolower(static_cast<unsigned char>(name[0])));
    if (name.empty()) name = "0x" + std::to_string(e.keysym);
    std::string combo;
    if (e.ctrl) combo += "ctrl+";
    if (e.alt) combo += "alt+";
    if (e.super) combo += "super+";
    if (e.shift && (e.ctrl || e.alt || e.super || e.text.empty())) combo += "shift+";
    return combo + name;
}

}  // namespace

const char* actionName(UserAction::Kind k) {
    switch (k) {
    case UserAction::Kind::Tap: return "tap";
    case UserAction::Kind::DoubleTap: return "double_tap";
    case UserAction::Kind::LongPress: return "long_press";
    case UserAction::Kind::Drag: return "drag";
    case UserAction::Kind::Scroll: return "scroll";
    case UserAction::Kind::Input: return "input";
    case UserAction::Kind::Key: return "key";
    }
    return "?";
}

std::vector<UserAction> groupInputs(const std::vector<RecordedInput>& events, const GroupOptions& o) {
    std::vector<UserAction> out;
    std::optional<RecordedInput> pressed;  // a pointer button held (1-3)
    for (const RecordedInput& e : events) {
        using K = RecordedInput::Kind;
        if (e.kind == K::ButtonDown && e.button >= 4 && e.button <= 7) {
            int dy = e.button == 4 ? -1 : e.button == 5 ? 1 : 0;
            int dx = e.button == 6 ? -1 : e.button == 7 ? 1 : 0;
            if (!out.empty() && out.back().kind == UserAction::Kind::Scroll && e.time - out.back().end <= o.scroll_gap_s &&
                near(out.back().at, e.at, o.double_tap_px)) {
                out.back().dx += dx;
                out.back().dy += dy;
                out.back().end = e.time;
                continue;
            }
            UserAction a;
            a.kind = UserAction::Kind::Scroll;
            a.at = e.at;
            a.time = a.end = e.time;
            a.dx = dx;
            a.dy = dy;
            out.push_back(a);
        } else if (e.kind == K::ButtonDown && e.button >= 1 && e.button <= 3) {
            pressed = e;
        } else if (e.kind == K::ButtonUp && pressed && e.button == pressed->button) {
            UserAction a;
            a.button = buttonName(e.button);
            a.at = pressed->at;
            a.time = pressed->time;
            a.end = e.time;
            if (!near(pressed->at, e.at, o.drag_px)) {
                a.kind = UserAction::Kind::Drag;
                a.to = e.at;
            } else if (e.time - pressed->time > o.long_press_s) {
                a.kind = UserAction::Kind::LongPress;
                a.hold = e.time - pressed->time;
            } else if (!out.empty() && out.back().kind == UserAction::Kind::Tap && out.back().button == a.button &&
                       a.time - out.back().time <= o.double_tap_s && near(out.back().at, a.at, o.double_tap_px)) {
                out.back().kind = UserAction::Kind::DoubleTap;
                out.back().end = a.end;
                pressed.reset();
                continue;
            } else {
                a.kind = UserAction::Kind::Tap;
            }
            out.push_back(a);
            pressed.reset();
        } else if (e.kind == K::KeyDown) {
            if (isModifierKey(e.key_name)) continue;
            bool typed = !e.text.empty() && !e.ctrl && !e.alt && !e.super;
            if (typed && !out.empty() && out.back().kind == UserAction::Kind::Input) {
                out.back().text += e.text;
                out.back().end = e.time;
                continue;
            }
            UserAction a;
            a.kind = typed ? UserAction::Kind::Input : UserAction::Kind::Key;
            a.text = typed ? e.text : comboOf(e);
            a.time = a.end = e.time;
            out.push_back(a);
        }
    }
    return out;
}

}  // namespace eacu
