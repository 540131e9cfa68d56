#include "device/adb/AdbDevice.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <regex>
#include <sstream>
#include <stdexcept>
#include <string_view>
#include <thread>

#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include "base/Base64.h"
#include "base/Clock.h"
#include "base/Format.h"
#include "base/IoDeadline.h"
#include "base/ImageDecode.h"
#include "base/Utf8.h"
#include "device/adb/AdbAccessibility.h"
#include "device/adb/AdbKeys.h"
#include "device/adb/RawScreencap.h"

namespace eacu {

namespace {

constexpr const char* kAdbKeyboard = "com.android.adbkeyboard/.AdbIME";
constexpr const char* kInfoCommand =
    "getprop ro.build.version.sdk; getprop ro.product.model; wm size; wm density; "
    "dumpsys input | grep -m1 -E 'SurfaceOrientation|InputDeviceOrientation'";

// The value after `label` ("Physical size: 1080x2400"), the override's when there is one.
std::string lastValue(const std::string& text, const std::string& physical, const std::string& override_label) {
    std::string v;
    for (const std::string& label : {physical, override_label}) {
        size_t at = text.find(label);
        if (at == std::string::npos) continue;
        size_t end = text.find('\n', at);
        v = text.substr(at + label.size(), end == std::string::npos ? std::string::npos : end - at - label.size());
        while (!v.empty() && (v.back() == '\r' || v.back() == ' ')) v.pop_back();
        while (!v.empty() && v.front() == ' ') v.erase(0, 1);
    }
    return v;
}

}  // namespace

int parseOrientation(const std::string& text) {
    std::smatch m;
    static const std::regex orientation("(SurfaceOrientation|InputDeviceOrientation): *(Rotation)?([0-9]+)");
    if (!std::regex_search(text, m, orientation)) return 0;
    int v = std::stoi(m[3]);
    return (m[2].matched ? v / 90 : v) % 4;
}

AndroidInfo parseAndroidInfo(const std::string& out, const std::string& serial) {
    AndroidInfo info;
    std::istringstream in(out);
    std::string sdk, model;
    std::getline(in, sdk);
    std::getline(in, model);
    info.sdk = std::atoi(sdk.c_str());
    while (!model.empty() && (model.back() == '\r' || model.back() == ' ')) model.pop_back();
    info.model = model;
    std::string size = lastValue(out, "Physical size:", "Override size:");
    int w = 0, h = 0;
    if (std::sscanf(size.c_str(), "%dx%d", &w, &h) != 2 || w <= 0 || h <= 0)
        throw DeviceError("adb " + serial + ": expected the screen size (\"Physical size: WxH\") in `wm size`, got \"" +
                          out + "\"");
    std::string density = lastValue(out, "Physical density:", "Override density:");
    info.density = std::max(1, std::atoi(density.c_str()));
    if (density.empty()) info.density = 160;
    info.rotation = parseOrientation(out);
    info.size = info.rotation % 2 ? Size{h, w} : Size{w, h};
    return info;
}

AdbDevice::AdbDevice(AdbClient client) : client_(std::move(client)), shell_(client_) {}

std::unique_ptr<AdbDevice> AdbDevice::open(const std::string& serial, int port, bool stream) {
    std::string s = serial;
    if (s.empty()) {
        std::vector<AdbDeviceInfo> all = listAdbDevices(port);
        if (all.size() != 1) {
            std::string list;
            for (const auto& d : all) list += (list.empty() ? "" : ", ") + d.serial + " (" + d.state + ")";
            throw DeviceError(std::string("adb: expected exactly one device, got ") + std::to_string(all.size()) +
                              (all.empty() ? " (connect one, or `adb connect HOST:PORT`)" : ": " + list +
                                                                                       "; name one with adb:SERIAL"));
        }
        s = all[0].serial;
    }
    std::unique_ptr<AdbDevice> d(new AdbDevice(AdbClient(s, port)));
    d->readInfo();
    const char* env = std::getenv("EACU_ADB_STREAM");
    d->stream_wanted_ = stream && !(env && std::string(env) == "0");
    if (const char* limit = std::getenv("EACU_ADB_STREAM_LIMIT")) {
        char* end = nullptr;
        const double v = std::strtod(limit, &end);
        if (end == limit || *end || v < 1 || v > 180)
            throw DeviceError(std::string("EACU_ADB_STREAM_LIMIT: expected screenrecord's time limit in seconds, 1 to "
                                          "180, got \"") + limit + "\"");
        d->stream_limit_ = v;
    }
    if (const char* touch = std::getenv("EACU_ADB_TOUCH"); touch && std::string(touch) == "input") {
        d->touch_why_ = "EACU_ADB_TOUCH=input";
    } else {
        // The touchscreen, once per connection (its node and axis ranges do not change while it runs).
        AdbShellResult r = d->shell_.run("getevent -pl");
        d->touch_ = parseTouchscreen(r.out);
        if (!d->touch_)
            d->touch_why_ = r.exit_code != 0 ? "`getevent -pl` exited with status " + std::to_string(r.exit_code)
                                             : std::string("no touchscreen in `getevent -pl`");
    }
    if (d->stream_wanted_) d->startStream();
    return d;
}

void AdbDevice::startStream() {
    setStream(nullptr);  // the old one stops first: one screenrecord at a time
    setStream(std::make_shared<AdbScreenStream>(client_, info_.size, stream_limit_));
    stream_seen_ = 0;
    endings_seen_ = 0;
}

void AdbDevice::setStream(std::shared_ptr<AdbScreenStream> s) {
    std::shared_ptr<AdbScreenStream> old;
    {
        std::lock_guard<std::mutex> lock(stream_mu_);
        old = std::move(stream_);
        stream_ = std::move(s);
    }
    old.reset();  // outside the lock: its destructor joins its threads
}

AdbDevice::~AdbDevice() {
    if (probe_) {  // a stale check beside a dump: its thread holds copies only; let a raw frame under way end
        probe_->cancel = true;
        std::unique_lock<std::mutex> lock(probe_->mu);
        probe_->cv.wait_for(lock, std::chrono::duration<double>(std::max(kIoWaitFloor, 2 * raw_s_)),
                            [this] { return probe_->done; });
    }
    if (!stream_ && failed_stream_) stream_ = failed_stream_;  // for the summary
    if (touches_sent_ + touches_input_ > 0)
        std::fprintf(stderr, "adb %s: touches: %ld by sendevent, %ld by `input`%s%s\n", client_.serial().c_str(),
                     touches_sent_, touches_input_, touch_why_.empty() ? "" : " (", touch_why_.empty() ? "" : (touch_why_ + ")").c_str());
    if (stream_ && counts_.stream + counts_.raw > 0)
        std::fprintf(stderr, "adb %s: frames: %ld from the video stream (%d screenrecord runs, %d restarts), %ld raw "
                             "screencaps, %ld PNG, stale %ld times, %ld late pictures not taken%s%s\n",
                     client_.serial().c_str(), counts_.stream, stream_->runs(), stream_->restarts(), counts_.raw,
                     counts_.png, counts_.stale, counts_.late, stream_->working() ? "" : "; the stream stopped: ",
                     stream_->working() ? "" : stream_->failure().c_str());
    setStream(nullptr);
    if (previous_ime_.empty()) return;
    try {
        // Restored after a stop, a signal or the run's time limit too (a bound of its own).
        IoDeadlineScope own = IoDeadlineScope::cleanup(5, "the close's bound of 5 s");
        shell_.run("ime set " + shellQuote(previous_ime_), 5);
    } catch (const std::exception&) {
        // The device is gone: nothing to restore.
    }
}

std::string AdbDevice::run(const std::string& command, double timeout) {
    ++inputs_;
    AdbShellResult r = shell_.run(command, timeout);
    last_input_at_ = monotonicSeconds();
    if (r.exit_code != 0)
        throw DeviceError("adb " + client_.serial() + ": `" + command + "` exited with status " +
                          std::to_string(r.exit_code) + (r.err.empty() ? "" : ": " + r.err) +
                          (r.err.empty() && !r.out.empty() ? ": " + r.out : ""));
    return r.out;
}

void AdbDevice::readInfo() { info_ = parseAndroidInfo(shell_.run(kInfoCommand).out, client_.serial()); }

std::string AdbDevice::describe() const {
    char scale[32];
    std::snprintf(scale, sizeof scale, "%g", scaleFactor());
    return "adb " + client_.serial() + " " + (info_.model.empty() ? "android" : info_.model) + " " +
           std::to_string(info_.size.w) + "x" + std::to_string(info_.size.h) + "@" + scale + " (sdk " +
           std::to_string(info_.sdk) + ", touch: " + (touch_ ? "sendevent" : "input") + ")";
}

void AdbDevice::click(MouseButton button, int count) {
    if (button == MouseButton::Right) swipe(cursor_, cursor_, 700);  // a long press
    else tap(cursor_, count);
}

bool AdbDevice::sendTouch(const std::vector<Point>& points, int step_ms, int count) {
    if (!touch_) return false;
    std::vector<Point> axes;
    for (Point p : points) axes.push_back(touchAxes(*touch_, p, info_.size, info_.rotation));
    std::string line;
    for (int i = 0; i < count; ++i) line += (i ? " && " : "") + touchCommand(*touch_, axes, step_ms, ++touch_id_);
    ++inputs_;
    const Point a = points.front(), b = points.back();
    const std::string label = "sendevent " + std::string(points.size() > 1 ? "swipe " : count > 1 ? "taps " : "tap ") +
                              std::to_string(a.x) + " " + std::to_string(a.y) +
                              (points.size() > 1 ? " " + std::to_string(b.x) + " " + std::to_string(b.y) : "");
    AdbShellResult r = shell_.run(line, 20 + count * step_ms * double(points.size()) / 1000, label);
    last_input_at_ = monotonicSeconds();
    if (r.exit_code == 0) {
        touches_sent_ += count;
        return true;
    }
    touch_why_ = "sendevent on " + touch_->path + " exited with status " + std::to_string(r.exit_code) +
                 (r.err.empty() ? "" : ": " + clipUtf8(r.err, 200));
    while (!touch_why_.empty() && (touch_why_.back() == '\n' || touch_why_.back() == '\r')) touch_why_.pop_back();
    std::fprintf(stderr, "adb %s: touches by `input` from now on: %s\n", client_.serial().c_str(), touch_why_.c_str());
    touch_.reset();
    return false;
}

void AdbDevice::tap(Point p, int count) {
    count = std::max(1, count);
    if (sendTouch({p}, 0, count)) return;
    std::string tap = "input tap " + std::to_string(p.x) + " " + std::to_string(p.y);
    std::string line = tap;
    for (int i = 1; i < count; ++i) line += "; " + tap;
    run(line);
    touches_input_ += count;
}

void AdbDevice::swipe(Point from, Point to, int ms) {
    ms = std::max(1, ms);
    std::vector<Point> points{from};
    int step_ms = ms;
    if (from.x != to.x || from.y != to.y) {
        const int steps = std::clamp(ms / 50, 1, 20);
        step_ms = ms / steps;
        for (int i = 1; i <= steps; ++i)
            points.push_back({from.x + (to.x - from.x) * i / steps, from.y + (to.y - from.y) * i / steps});
    }
    if (sendTouch(points, step_ms, 1)) return;
    run("input swipe " + std::to_string(from.x) + " " + std::to_string(from.y) + " " + std::to_string(to.x) + " " +
        std::to_string(to.y) + " " + std::to_string(ms));
    ++touches_input_;
}

void AdbDevice::press(MouseButton) {
    pressed_at_ = cursor_;
    pressed_time_ = monotonicSeconds();
}

void AdbDevice::release(MouseButton button) {
    if (pressed_time_ < 0) return;
    int ms = static_cast<int>((monotonicSeconds() - pressed_time_) * 1000);
    pressed_time_ = -1;
    bool moved = std::abs(cursor_.x - pressed_at_.x) > 2 || std::abs(cursor_.y - pressed_at_.y) > 2;
    if (moved) swipe(pressed_at_, cursor_, std::clamp(ms, 100, 5000));
    else if (ms >= 500) swipe(pressed_at_, pressed_at_, std::min(ms, 5000));
    else {
        Point keep = cursor_;
        cursor_ = pressed_at_;
        click(MouseButton::Left, 1);
        cursor_ = keep;
    }
}

void AdbDevice::scroll(int dx, int dy) {
    int step_y = info_.size.h / 8, step_x = info_.size.w / 8;
    auto clampX = [&](int x) { return std::clamp(x, 1, std::max(1, info_.size.w - 2)); };
    auto clampY = [&](int y) { return std::clamp(y, 1, std::max(1, info_.size.h - 2)); };
    // Scrolling down moves the content up: the finger goes up.
    Point to{clampX(cursor_.x - dx * step_x), clampY(cursor_.y - dy * step_y)};
    swipe(cursor_, to, 300);
}

void AdbDevice::typeText(const std::string& utf8) {
    decodeUtf8(utf8);  // std::invalid_argument on invalid UTF-8
    if (isTypableAscii(utf8)) {
        for (const std::string& c : asciiTextCommands(utf8)) run(c);
        return;
    }
    selectAdbKeyboard();
    // The broadcast completes whether or not a field heard it: the input step reads the field
    // back (step/TypedCheck).
    run("am broadcast -a ADB_INPUT_B64 --es msg " + shellQuote(base64Encode(utf8)));
}

void AdbDevice::selectAdbKeyboard() {
    if (!previous_ime_.empty()) return;
    std::string list = shell_.run("ime list -s").out;
    if (list.find(kAdbKeyboard) == std::string::npos)
        throw DeviceError("adb " + client_.serial() + ": typing non-ASCII text needs the ADBKeyBoard IME (" +
                          kAdbKeyboard + ", github.com/senzhk/ADBKeyBoard): install it and enable it with `adb "
                          "shell ime enable " + kAdbKeyboard + "` (`input text` types ASCII only)");
    std::string current = shell_.run("settings get secure default_input_method").out;
    while (!current.empty() && (current.back() == '\n' || current.back() == '\r')) current.pop_back();
    previous_ime_ = current.empty() || current == "null" ? kAdbKeyboard : current;
    if (current == kAdbKeyboard) return;
    run(std::string("ime set ") + kAdbKeyboard);
    // The keyboard binds to the input a moment after `ime set`: a broadcast before that is lost.
    // 5 s of its own, never past the step's deadline (IoBound).
    const double t0 = monotonicSeconds(), deadline = ioWaitEnd(5);
    std::string bound;
    for (;;) {
        bound = shell_.run("dumpsys input_method | grep -m1 mCurMethodId").out;
        if (bound.find(kAdbKeyboard) != std::string::npos) return;
        // A dump that does not name the current method (another Android's format): nothing to wait on.
        if (bound.find("mCurMethodId") == std::string::npos) return;
        if (monotonicSeconds() + 0.1 > deadline)
            throw DeviceError("adb " + client_.serial() + ": ADBKeyBoard was selected (`ime set " + kAdbKeyboard +
                              "`) but the input method is still \"" + bound.substr(0, 200) + "\" after " +
                              fixed(monotonicSeconds() - t0, 1) + " s");
        ioCheckCancel();
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
}

bool AdbDevice::focusIsSecret() {
    A11yScope scope;
    scope.deadline = monotonicSeconds() + 5;
    try {
        const A11yElement root = accessibility().snapshot(scope);
        const A11yElement* field = focusedTextField(root);
        return field && isPasswordField(*field);
    } catch (const DeviceError&) {
        return false;  // no tree now (an animating screen): the step's own typing goes on
    }
}

void AdbDevice::typeSecret(const std::string& utf8) {
    decodeUtf8(utf8);  // std::invalid_argument on invalid UTF-8
    if (!isTypableAscii(utf8))
        throw DeviceError("adb " + client_.serial() +
                          ": a secret (a password field, or input(text, {secret = true})) is typed only with `input "
                          "text`, which carries ASCII only; this one has other characters, and the ADB keyboard's "
                          "broadcast can be read by any app on the phone: not sent");
    for (const std::string& c : asciiTextCommands(utf8)) {
        ++inputs_;
        AdbShellResult r = shell_.run(c);
        last_input_at_ = monotonicSeconds();
        if (r.exit_code != 0)
            throw DeviceError("adb " + client_.serial() + ": `input text` of a secret exited with status " +
                              std::to_string(r.exit_code));
    }
}

void AdbDevice::checkKeys(const std::vector<Key>& keys) const {
    for (const Key& k : keys) androidKeyCode(k);
}

void AdbDevice::keyCombo(const std::vector<Key>& keys) {
    std::vector<std::string> codes;
    for (const Key& k : keys) codes.push_back(androidKeyCode(k));
    if (codes.empty()) return;
    if (keys.size() == 1 && needsShift(keys[0])) {
        // An upper-case letter alone: typed (a Shift combination needs `input keycombination`).
        run("input text " + std::string(1, static_cast<char>(keys[0].codepoint)));
        return;
    }
    if (codes.size() == 1) {
        run("input keyevent " + codes[0]);
        return;
    }
    if (info_.sdk > 0 && info_.sdk < 33)
        throw DeviceError("adb " + client_.serial() + ": a key combination needs Android 13 (`input " +
                          "keycombination`, SDK 33); this device has SDK " + std::to_string(info_.sdk));
    std::string line = "input keycombination";
    for (const auto& c : codes) line += " " + c;
    run(line);
}

void AdbDevice::keyDown(const Key& key) {
    throw DeviceError("adb " + client_.serial() + ": cannot hold " + describeKey(key) +
                      " down: Android's `input` has no separate key down and up (use key() for a combination)");
}

void AdbDevice::keyUp(const Key& key) { keyDown(key); }

Accessibility& AdbDevice::accessibility() {
    if (!a11y_) a11y_ = std::make_unique<AdbAccessibility>(*this);
    return *a11y_;
}

namespace {
// A package name as Android allows it: letters, digits, '_' and '.', starting with a letter.
void checkPackage(const std::string& serial, const std::string& package) {
    bool ok = !package.empty() && std::isalpha(static_cast<unsigned char>(package[0]));
    for (char c : package) ok = ok && (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.');
    if (!ok)
        throw DeviceError("adb " + serial + ": expected an app's package name (\"com.example.app\"), got \"" +
                          package + "\"");
}
}  // namespace

void AdbDevice::launchApp(const std::string& package) {
    checkPackage(client_.serial(), package);
    ++inputs_;
    AdbShellResult r = shell_.run("monkey -p " + package + " -c android.intent.category.LAUNCHER 1");
    last_input_at_ = monotonicSeconds();
    if (r.exit_code != 0 || r.out.find("No activities found") != std::string::npos ||
        r.err.find("No activities found") != std::string::npos)
        throw DeviceError("adb " + client_.serial() + ": cannot launch \"" + package +
                          "\": no launcher activity of that package is installed (" + r.err + r.out + ")");
}

void AdbDevice::stopApp(const std::string& package) {
    checkPackage(client_.serial(), package);
    run("am force-stop " + package);
}

std::string AdbDevice::currentApp() {
    std::string out = shell_.run("dumpsys window | grep -m1 mCurrentFocus").out;
    // mCurrentFocus=Window{1a2b u0 com.example.chat/com.example.chat.MainActivity}
    static const std::regex focus(R"(([A-Za-z][\w.]*/[\w.$]+)\})");
    std::smatch m;
    return std::regex_search(out, m, focus) ? m[1].str() : "";
}

void AdbDevice::openUrl(const std::string& url) {
    run("am start -a android.intent.action.VIEW -d " + shellQuote(url));
}

}  // namespace eacu
