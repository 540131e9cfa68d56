#include "device/adb/AdbAccessibility.h"

#include <algorithm>
#include <thread>

#include "base/Clock.h"
#include "base/Format.h"
#include "base/IoDeadline.h"
#include "base/Utf8.h"
#include "device/adb/AdbDevice.h"
#include "device/adb/UiautomatorXml.h"

namespace eacu {

namespace {
constexpr const char* kDumpPath = "/sdcard/eacu_window_dump.xml";
// Seconds a dump (and its pull) may take on its own: a phone's uiautomator waits up to 10 s for
// an idle screen, then walks the tree.
constexpr double kDumpTimeout = 30;
// Sleeps `seconds`, ended by the thread's cancel token (Cancelled).
void sleepChecked(double seconds) {
    const double until = monotonicSeconds() + seconds;
    for (double left = seconds; left > 0; left = until - monotonicSeconds()) {
        ioCheckCancel();
        std::this_thread::sleep_for(std::chrono::duration<double>(std::min(left, 0.02)));
    }
    ioCheckCancel();
}
}

AdbAccessibility::AdbAccessibility(AdbDevice& device) : device_(device) {}

bool AdbAccessibility::reusable() {
    if (last_dump_.empty() || dump_mark_.frame == 0 || device_.inputs() != dump_mark_.inputs) return false;
    AdbScreenMark m = device_.lastMark();
    // No frame since the tree was last handed out: look at the screen now when a frame costs
    // less than a dump, else read the tree again.
    if (m.frame == checked_frame_) {
        if (dump_s_ <= 0 || device_.captureSeconds() >= dump_s_) return false;
        device_.capture();
        m = device_.lastMark();
    }
    if (m.hash != dump_mark_.hash || m.inputs != dump_mark_.inputs) return false;
    checked_frame_ = m.frame;
    return true;
}

A11yElement AdbAccessibility::snapshot(const A11yScope& scope) {
    const std::string& serial = device_.client().serial();
    found_deadline_ = scope.deadline;
    if (reusable()) {
        ++reused_;
        return parse(scope);
    }
    // The frame the tree is read on: the newest, when no input came after it (else the tree,
    // read after the input, may not match it: no mark, no reuse).
    AdbScreenMark mark = device_.lastMark();
    if (mark.inputs != device_.inputs()) mark = {};
    // The stale check that the next capture will owe runs beside the dump, not after it.
    device_.checkStaleBeside();
    const double t0 = monotonicSeconds();
    // The retries end at the scope's deadline or the thread's IoBound (the step's deadline),
    // whichever comes first; each dump is bounded the same way by its connection.
    std::string bound_by;
    const double io_end = ioWaitEnd(scope.deadline > 0 ? scope.deadline - t0 : kDumpTimeout, &bound_by);
    const double end = scope.deadline > 0 ? std::min(scope.deadline, io_end) : io_end;
    std::string last;
    for (int attempt = 1;; ++attempt) {
        AdbShellResult r = device_.client().shell(std::string("uiautomator dump ") + kDumpPath, kDumpTimeout);
        last = r.out + r.err;
        while (!last.empty() && (last.back() == '\n' || last.back() == '\r' || last.back() == ' ')) last.pop_back();
        if (last.find("dumped to") != std::string::npos) break;
        const double now = monotonicSeconds();
        if (now + 0.3 >= end)
            throw DeviceError("adb " + serial + ": uiautomator dump gave no tree after " + std::to_string(attempt) +
                              (attempt == 1 ? " attempt" : " attempts") + " in " + fixed(now - t0, 1) + " s (" +
                              (scope.deadline > 0 && scope.deadline <= io_end ? "the step's deadline"
                               : bound_by.empty()                             ? "its own limit"
                                                                              : bound_by) +
                              "): \"" + clipUtf8(last, 200) + "\"" +
                              (last.find("idle state") != std::string::npos
                                   ? " (the screen kept animating; uiautomator waits for it to be idle)"
                                   : ""));
        sleepChecked(0.3);
    }
    last_dump_ = device_.client().pull(kDumpPath, kDumpTimeout);
    const double took = monotonicSeconds() - t0;
    dump_s_ = dump_s_ > 0 ? 0.7 * dump_s_ + 0.3 * took : took;
    dump_mark_ = mark;
    checked_frame_ = mark.frame;
    ++dumps_;
    return parse(scope);
}

A11yElement AdbAccessibility::parse(const A11yScope& scope) const {
    try {
        return parseUiautomatorXml(last_dump_, scope);
    } catch (const std::runtime_error& e) {
        throw DeviceError("adb " + device_.client().serial() + ": " + e.what());
    }
}

namespace {
// The element at `path` (child indices from the root) in `root`, or null where the tree has no
// such child.
const A11yElement* atPath(const A11yElement& root, const std::vector<int>& path) {
    const A11yElement* e = &root;
    for (int i : path) {
        if (i < 0 || static_cast<size_t>(i) >= e->children.size()) return nullptr;
        e = &e->children[static_cast<size_t>(i)];
    }
    return e;
}
}  // namespace

const A11yElement& AdbAccessibility::current(const A11yElement& element, A11yElement& fresh) {
    A11yScope scope;
    scope.deadline = found_deadline_;
    fresh = snapshot(scope);
    const A11yElement* e = atPath(fresh, element.path);
    if (!e || e->role != element.role || e->name != element.name)
        throw DeviceError("adb " + device_.client().serial() + ": " + element.role + " \"" + element.name +
                          "\" is gone (the screen changed)" +
                          (e ? ": there is now " + e->role + " \"" + e->name + "\"" : std::string()));
    return *e;
}

void AdbAccessibility::doAction(const A11yElement& element, const std::string& action) {
    A11yElement fresh;
    const A11yElement& e = current(element, fresh);
    bool has = false;
    std::string list;
    for (const auto& a : e.actions) {
        has = has || a == action;
        list += (list.empty() ? "" : ", ") + a;
    }
    if (!has || action == "scroll")
        throw DeviceError("adb " + device_.client().serial() + ": " + e.role + " \"" + e.name + "\": expected one of " +
                          "its actions (" + (list.empty() ? "none" : list) + "; scroll is done with scroll()), got \"" +
                          action + "\"");
    Point c{e.bounds.x + e.bounds.w / 2, e.bounds.y + e.bounds.h / 2};
    if (action == "click") device_.tap(c);
    else device_.swipe(c, c, 700);
}

void AdbAccessibility::setText(const A11yElement& element, const std::string& utf8) {
    A11yElement fresh;
    const A11yElement& e = current(element, fresh);
    if (!e.editable_text)
        throw DeviceError("adb " + device_.client().serial() + ": " + e.role + " \"" + e.name +
                          "\": expected an editable text field (EditText), got class role " + e.role);
    Point c{e.bounds.x + e.bounds.w / 2, e.bounds.y + e.bounds.h / 2};
    device_.tap(c);
    // Its text is the name (a hint shows there too when it is empty: deleting it is harmless).
    size_t n = decodeUtf8(e.name).size();
    if (n > 0) {
        std::string line = "input keyevent 123";  // MOVE_END
        for (size_t i = 0; i < n; ++i) line += " 67";  // DEL
        device_.run(line);
    }
    if (utf8.empty()) return;
    if (e.has("password")) device_.typeSecret(utf8);  // never the ADB keyboard's broadcast
    else device_.typeText(utf8);
}

std::optional<A11yText> AdbAccessibility::readText(const A11yElement& element) {
    A11yScope scope;
    scope.deadline = ioWaitEnd(5);
    const A11yElement fresh = snapshot(scope);
    const A11yElement* e = atPath(fresh, element.path);
    if (!e || e->role != element.role)
        throw DeviceError("adb " + device_.client().serial() + ": " + element.role + " \"" + element.name +
                          "\" is gone (the screen changed)" +
                          (e ? ": there is now " + e->role + " \"" + e->name + "\"" : std::string()));
    A11yText t;
    t.text = e->name;  // an EditText's text is its name (its hint when it is empty)
    return t;
}

}  // namespace eacu
