#include "device/adb/AdbTouch.h"

#include <algorithm>
#include <map>
#include <regex>
#include <sstream>
#include <stdexcept>

namespace eacu {

namespace {

// linux/input-event-codes.h
constexpr int kEvSyn = 0, kEvKey = 1, kEvAbs = 3;
constexpr int kSynReport = 0, kBtnTouch = 0x14a;
constexpr int kAbsMtSlot = 0x2f, kAbsMtTouchMajor = 0x30, kAbsMtPositionX = 0x35, kAbsMtPositionY = 0x36,
              kAbsMtTrackingId = 0x39, kAbsMtPressure = 0x3a;

// One device block of `getevent -pl`.
struct Block {
    std::string path, name;
    std::map<std::string, TouchAxis> axes;
    bool btn_touch = false, props = false, direct = false;
};

std::optional<Touchscreen> touchscreenOf(const Block& b) {
    auto axis = [&](const char* n) -> std::optional<TouchAxis> {
        auto it = b.axes.find(n);
        if (it == b.axes.end()) return std::nullopt;
        return it->second;
    };
    auto x = axis("ABS_MT_POSITION_X"), y = axis("ABS_MT_POSITION_Y"), id = axis("ABS_MT_TRACKING_ID");
    if (b.path.empty() || !x || !y || !id || x->max <= x->min || y->max <= y->min || (b.props && !b.direct))
        return std::nullopt;
    Touchscreen t;
    t.path = b.path;
    t.name = b.name;
    t.x = *x;
    t.y = *y;
    t.tracking = *id;
    t.pressure = axis("ABS_MT_PRESSURE");
    t.touch_major = axis("ABS_MT_TOUCH_MAJOR");
    t.slot = axis("ABS_MT_SLOT").has_value();
    t.btn_touch = b.btn_touch;
    return t;
}

}  // namespace

std::optional<Touchscreen> parseTouchscreen(const std::string& text) {
    static const std::regex add(R"(^add device [0-9]+: (\S+))");
    static const std::regex name(R"(^\s*name:\s*"(.*)\"\s*$)");
    static const std::regex abs(R"((ABS_MT_[A-Z_]+)\s*\*?\s*: value -?[0-9]+, min (-?[0-9]+), max (-?[0-9]+))");
    static const std::regex btn(R"((^|\s)BTN_TOUCH(\s|\*|$))");
    std::istringstream in(text);
    std::string line;
    Block b;
    bool in_props = false;
    while (std::getline(in, line)) {
        if (!line.empty() && line.back() == '\r') line.pop_back();
        std::smatch m;
        if (std::regex_search(line, m, add)) {
            if (auto t = touchscreenOf(b)) return t;
            b = Block{};
            b.path = m[1];
            in_props = false;
            continue;
        }
        if (std::regex_search(line, m, name)) {
            b.name = m[1];
            continue;
        }
        if (line.find("input props:") != std::string::npos) {
            b.props = in_props = true;
            continue;
        }
        if (line.find("events:") != std::string::npos) in_props = false;
        if (in_props) {
            if (line.find("INPUT_PROP_DIRECT") != std::string::npos) b.direct = true;
            continue;
        }
        if (std::regex_search(line, m, abs)) b.axes[m[1]] = {std::stoi(m[2]), std::stoi(m[3])};
        if (std::regex_search(line, btn)) b.btn_touch = true;
    }
    return touchscreenOf(b);
}

Point touchAxes(const Touchscreen& t, Point p, Size screen, int rotation) {
    rotation = ((rotation % 4) + 4) % 4;
    const Size natural = rotation % 2 ? Size{screen.h, screen.w} : screen;
    const int x = std::clamp(p.x, 0, std::max(0, screen.w - 1)), y = std::clamp(p.y, 0, std::max(0, screen.h - 1));
    Point n{x, y};  // the pixel in the panel's natural orientation
    if (rotation == 1) n = {natural.w - 1 - y, x};
    else if (rotation == 2) n = {natural.w - 1 - x, natural.h - 1 - y};
    else if (rotation == 3) n = {y, natural.h - 1 - x};
    auto scale = [](int v, int pixels, const TouchAxis& a) {
        const double range = double(a.max) - double(a.min) + 1;
        const int r = a.min + static_cast<int>((v + 0.5) * range / std::max(1, pixels));
        return std::clamp(r, a.min, a.max);
    };
    return {scale(n.x, natural.w, t.x), scale(n.y, natural.h, t.y)};
}

std::string touchCommand(const Touchscreen& t, const std::vector<Point>& axes, int step_ms, int id) {
    if (axes.empty()) throw std::invalid_argument("touchCommand: expected at least one point, got none");
    std::string line;
    auto ev = [&](int type, int code, int value) {
        line += (line.empty() ? "" : " && ") + std::string("sendevent ") + t.path + " " + std::to_string(type) + " " +
                std::to_string(code) + " " + std::to_string(value);
    };
    auto pause = [&] {
        if (step_ms <= 0) return;
        char s[32];
        std::snprintf(s, sizeof s, "%.3f", step_ms / 1000.0);
        line += std::string(" && sleep ") + s;
    };
    auto mid = [](const TouchAxis& a) { return std::max(a.min + 1, a.min + (a.max - a.min) / 2); };
    const int span = std::max(1, t.tracking.max - t.tracking.min + 1);
    if (t.slot) ev(kEvAbs, kAbsMtSlot, 0);
    ev(kEvAbs, kAbsMtTrackingId, t.tracking.min + ((id % span) + span) % span);
    ev(kEvAbs, kAbsMtPositionX, axes[0].x);
    ev(kEvAbs, kAbsMtPositionY, axes[0].y);
    if (t.pressure) ev(kEvAbs, kAbsMtPressure, std::min(t.pressure->max, mid(*t.pressure)));
    if (t.touch_major) ev(kEvAbs, kAbsMtTouchMajor, std::min(t.touch_major->max, std::max(t.touch_major->min + 1, 5)));
    if (t.btn_touch) ev(kEvKey, kBtnTouch, 1);
    ev(kEvSyn, kSynReport, 0);
    for (size_t i = 1; i < axes.size(); ++i) {
        pause();
        ev(kEvAbs, kAbsMtPositionX, axes[i].x);
        ev(kEvAbs, kAbsMtPositionY, axes[i].y);
        ev(kEvSyn, kSynReport, 0);
    }
    if (axes.size() == 1) pause();
    ev(kEvAbs, kAbsMtTrackingId, -1);
    if (t.btn_touch) ev(kEvKey, kBtnTouch, 0);
    ev(kEvSyn, kSynReport, 0);
    return line;
}

}  // namespace eacu
