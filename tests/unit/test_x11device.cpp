// X11Device on an owned Xvfb (VirtualDisplay), and Process.
// catch.hpp before the X11 headers: Xlib defines macros (None, Always, ...) that clash.
#include <catch2/catch.hpp>

#include <X11/Xlib.h>
#include <X11/Xutil.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <opencv2/core.hpp>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>

#include "base/Cancel.h"
#include "base/Clock.h"
#include "base/Frame.h"
#include "base/IoDeadline.h"
#include "device/DeviceWait.h"
#include "device/KeyCombo.h"
#include "device/virtual/VirtualDisplay.h"
#include "device/x11/X11Device.h"
#include "process/Process.h"

using namespace eacu;

namespace {

bool inPath(const std::string& program) {
    const char* path = std::getenv("PATH");
    std::stringstream ss(path ? path : "/usr/bin:/bin");
    std::string dir;
    while (std::getline(ss, dir, ':'))
        if (!dir.empty() && access((dir + "/" + program).c_str(), X_OK) == 0) return true;
    return false;
}

/// Polls `cond` until it holds or `seconds` pass; returns whether it held.
bool waitFor(const std::function<bool()>& cond, double seconds) {
    const double deadline = monotonicSeconds() + seconds;
    while (true) {
        if (cond()) return true;
        if (monotonicSeconds() > deadline) return false;
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
}

std::unique_ptr<VirtualDisplay> startDisplay(int w = 640, int h = 480, int depth = 24) {
    if (!inPath("Xvfb")) return nullptr;
    return VirtualDisplay::start(w, h, depth, 15);
}

/// A plain X window filled with `pixel`, mapped at (x, y). Owned by its own connection.
struct ColourWindow {
    Display* dpy = nullptr;
    Window win = 0;
    ColourWindow(const std::string& display, int x, int y, int w, int h, unsigned long pixel) {
        dpy = XOpenDisplay(display.c_str());
        REQUIRE(dpy);
        XSetWindowAttributes a{};
        a.background_pixel = pixel;
        a.override_redirect = True;
        win = XCreateWindow(dpy, DefaultRootWindow(dpy), x, y, unsigned(w), unsigned(h), 0,
                            CopyFromParent, InputOutput, CopyFromParent,
                            CWBackPixel | CWOverrideRedirect, &a);
        XMapRaised(dpy, win);
        XSync(dpy, False);
    }
    ~ColourWindow() {
        if (dpy) XCloseDisplay(dpy);
    }
};

/// The largest viewable top-level window on `display` (0 if none), with its geometry.
Window largestTopLevel(Display* dpy, XWindowAttributes& best) {
    Window rootRet, parent, *children = nullptr;
    unsigned n = 0;
    Window found = 0;
    if (!XQueryTree(dpy, DefaultRootWindow(dpy), &rootRet, &parent, &children, &n)) return 0;
    for (unsigned i = 0; i < n; ++i) {
        XWindowAttributes a;
        if (!XGetWindowAttributes(dpy, children[i], &a)) continue;
        if (a.map_state != IsViewable || a.c_class != InputOutput) continue;
        if (a.width < 50 || a.height < 30) continue;
        if (!found || a.width * a.height > best.width * best.height) {
            found = children[i];
            best = a;
        }
    }
    if (children) XFree(children);
    return found;
}

/// State letter of /proc/<pid>/stat ('Z' zombie, 'S' sleeping, ...), or 0 if gone.
char procState(pid_t pid) {
    std::ifstream f("/proc/" + std::to_string(pid) + "/stat");
    std::string line;
    if (!std::getline(f, line)) return 0;
    auto close = line.rfind(')');
    return close == std::string::npos || close + 2 >= line.size() ? 0 : line[close + 2];
}

bool processGone(pid_t pid) {
    char s = procState(pid);
    return s == 0 || s == 'Z' || s == 'X';
}

}  // namespace

// ---- Process ---------------------------------------------------------------------------------

TEST_CASE("Process: stdout and exit code", "[process]") {
    auto p = Process::spawn({"sh", "-c", "echo hi; exit 3"});
    CHECK(p->pid() > 0);
    std::string out = p->readStdout(5);
    CHECK_THAT(out, Catch::Contains("hi"));
    CHECK(p->wait(5) == std::optional<int>(3));
    CHECK_FALSE(p->running());
}

TEST_CASE("Process: missing program", "[process]") {
    try {
        Process::spawn({"eacu-no-such-program-xyz", "--help"});
        FAIL("spawn did not throw");
    } catch (const std::runtime_error& e) {
        CHECK(std::string(e.what()) ==
              "cannot start \"eacu-no-such-program-xyz\": No such file or directory");
    }
    CHECK_THROWS_AS(Process::spawn({}), std::invalid_argument);
}

TEST_CASE("Process: stop ends a sleeping child quickly", "[process]") {
    auto p = Process::spawn({"sleep", "100"});
    CHECK(p->running());
    CHECK_FALSE(p->wait(0.05).has_value());  // still running: timeout
    const double t0 = monotonicSeconds();
    p->stop();
    CHECK(monotonicSeconds() - t0 < 1.0);
    CHECK_FALSE(p->running());
    CHECK(p->exitStatus() == std::optional<int>(128 + SIGTERM));
    p->stop();  // idempotent
}

TEST_CASE("Process: SIGKILL after the grace period", "[process]") {
    auto p = Process::spawn({"sh", "-c", "trap '' TERM; echo ready; while :; do sleep 0.05; done"});
    REQUIRE(p->readLine(5) == std::optional<std::string>("ready"));
    const double t0 = monotonicSeconds();
    p->stop(0.2);
    CHECK(monotonicSeconds() - t0 < 2.0);
    CHECK(p->exitStatus() == std::optional<int>(128 + SIGKILL));
}

TEST_CASE("Process: environment, working directory, stderr capture, lines", "[process]") {
    ProcessOptions o;
    o.env["EACU_TEST_VAR"] = "bar";
    o.working_dir = "/tmp";
    o.stderr_mode = StderrMode::Capture;
    auto p = Process::spawn(
        {"sh", "-c", "echo \"$EACU_TEST_VAR\"; pwd; echo oops >&2; printf tail"}, o);
    CHECK(p->readLine(5) == std::optional<std::string>("bar"));
    CHECK(p->readLine(5) == std::optional<std::string>("/tmp"));
    CHECK(p->readLine(5) == std::optional<std::string>("tail"));  // unterminated rest at EOF
    CHECK_FALSE(p->readLine(0.1).has_value());
    CHECK(p->wait(5) == std::optional<int>(0));
    CHECK(waitFor([&] { return p->stderrText() == "oops\n"; }, 5));

    ProcessOptions bad;
    bad.working_dir = "/nonexistent-eacu-dir";
    CHECK_THROWS_WITH(Process::spawn({"true"}, bad),
                      Catch::Contains("cannot change directory to \"/nonexistent-eacu-dir\""));
}

TEST_CASE("Process: a chatty child never blocks on a full pipe", "[process]") {
    // 4 MB of output, far more than a pipe buffer; nobody reads until it has exited.
    auto p = Process::spawn({"sh", "-c", "head -c 4000000 /dev/zero"});
    CHECK(p->wait(10) == std::optional<int>(0));
    CHECK(p->readStdout(5).size() == 4000000);
}

namespace {
// Forks a copy of this test process that spawns `sh` with a background `sleep` in its group
// (no PDEATHSIG on the sleep: only a group kill can end it), then runs `how` to die.
// Returns the sleep's pid and the copy's wait status.
std::pair<pid_t, int> orphanAfter(const std::function<void()>& how) {
    int fds[2];
    REQUIRE(pipe(fds) == 0);
    std::fflush(nullptr);
    pid_t child = fork();
    REQUIRE(child >= 0);
    if (child == 0) {
        close(fds[0]);
        try {
            auto p = Process::spawn({"sh", "-c", "sleep 100 & echo $!; wait"});
            auto line = p->readLine(5);
            pid_t sleepPid = line ? std::atoi(line->c_str()) : 0;
            if (write(fds[1], &sleepPid, sizeof sleepPid) != sizeof sleepPid) _exit(90);
            how();
            p.release();  // not reached when `how` ends the process
        } catch (...) {
        }
        _exit(91);
    }
    close(fds[1]);
    pid_t sleepPid = 0;
    ssize_t got = read(fds[0], &sleepPid, sizeof sleepPid);
    close(fds[0]);
    int status = 0;
    waitpid(child, &status, 0);
    REQUIRE(got == sizeof sleepPid);
    REQUIRE(sleepPid > 0);
    return {sleepPid, status};
}
}  // namespace

TEST_CASE("Process: signal cleanup kills every child group, then the signal acts", "[process]") {
    const auto [sleep_pid, status] = orphanAfter([] {
        Process::installSignalCleanup();
        raise(SIGTERM);
    });
    CHECK(WIFSIGNALED(status));
    CHECK(WTERMSIG(status) == SIGTERM);
    const pid_t sleepPid = sleep_pid;  // a structured binding cannot be captured (clang 14)
    CHECK(waitFor([&] { return processGone(sleepPid); }, 5));
    if (!processGone(sleepPid)) kill(sleepPid, SIGKILL);
}

TEST_CASE("Process: exit() kills every child group", "[process]") {
    const auto [sleep_pid, status] = orphanAfter([] { std::exit(0); });
    CHECK(WIFEXITED(status));
    const pid_t sleepPid = sleep_pid;  // a structured binding cannot be captured (clang 14)
    CHECK(waitFor([&] { return processGone(sleepPid); }, 5));
    if (!processGone(sleepPid)) kill(sleepPid, SIGKILL);
}

TEST_CASE("Process: waitGroupGone waits for the helpers left in the child's group", "[process]") {
    // The shell exits at once; its `sleep` stays in its process group for 0.6 s.
    std::unique_ptr<Process> p = Process::spawn({"/bin/sh", "-c", "sleep 0.6 & exit 0"});
    REQUIRE(p->wait(10).value_or(-1) == 0);
    const double t0 = monotonicSeconds();
    CHECK_FALSE(p->waitGroupGone(0.1));  // the helper is still there
    CHECK(p->waitGroupGone(10));
    CHECK(monotonicSeconds() - t0 >= 0.4);
    CHECK(p->waitGroupGone(0));  // at once: none left
}

TEST_CASE("Process: waitGroupGone is false while the child itself runs", "[process]") {
    std::unique_ptr<Process> p = Process::spawn({"sleep", "30"});
    CHECK_FALSE(p->waitGroupGone(0.1));
    p->stop(1.0);
    CHECK(p->waitGroupGone(5));
}

// ---- VirtualDisplay + X11Device --------------------------------------------------------------

TEST_CASE("X11Device: open, size, capture, pointer", "[x11]") {
    auto vd = startDisplay(640, 480);
    if (!vd) {
        WARN("Xvfb is not installed: skipping");
        return;
    }
    CHECK(vd->name().rfind(':', 0) == 0);
    CHECK(vd->running());

    X11Device dev(vd->name());
    CHECK(dev.screenSize() == Size{640, 480});
    CHECK(dev.describe() == "x11 " + vd->name() + " 640x480");
    CHECK(dev.scaleFactor() == 1.0);
    CHECK(dev.usesShm());

    ColourWindow red(vd->name(), 100, 50, 200, 100, 0xff0000);
    Frame f;
    CHECK(waitFor(
        [&] {
            f = dev.capture();
            return f.bgr.at<cv::Vec3b>(100, 200) == cv::Vec3b(0, 0, 255);
        },
        5));
    CHECK(f.width() == 640);
    CHECK(f.height() == 480);
    CHECK(f.bgr.type() == CV_8UC3);
    CHECK(f.timestamp > 1.6e9);
    CHECK(f.monotonic > 0);
    CHECK(f.bgr.at<cv::Vec3b>(49, 99) != cv::Vec3b(0, 0, 255));  // outside the window

    dev.move({123, 77});
    dev.sync();
    CHECK(dev.cursor() == Point{123, 77});
    dev.move({639, 479});
    dev.sync();
    CHECK(dev.cursor() == Point{639, 479});
    dev.click(MouseButton::Left, 2);
    dev.scroll(1, -2);
    dev.keyCombo(parseKeyCombo("ctrl+shift+plus"));
    dev.keyCombo(parseKeyCombo("KP_Add+comma"));  // a neutral key and an X11 keysym name
    CHECK_THROWS_AS(dev.keyCombo(parseKeyCombo("ctrl+nokey")), std::invalid_argument);
    CHECK_THROWS_WITH(dev.keyCombo(parseKeyCombo("ctrl+nokey")), Catch::StartsWith("unknown key \"nokey\""));
    dev.sync();
}

TEST_CASE("X11Device: XGetImage fallback and a 16-bit screen", "[x11]") {
    auto vd = startDisplay(320, 240, 16);
    if (!vd) {
        WARN("Xvfb is not installed: skipping");
        return;
    }
    ColourWindow red(vd->name(), 10, 10, 50, 50, 0xf800);  // 5-6-5 red
    {
        X11Device dev(vd->name());
        CHECK(dev.usesShm());
        CHECK(waitFor([&] { return dev.capture().bgr.at<cv::Vec3b>(20, 20) == cv::Vec3b(0, 0, 255); },
                      5));
    }
    setenv("EACU_X11_NO_SHM", "1", 1);
    X11Device dev(vd->name());
    unsetenv("EACU_X11_NO_SHM");
    CHECK_FALSE(dev.usesShm());
    Frame f = dev.capture();
    CHECK(f.width() == 320);
    CHECK(f.bgr.at<cv::Vec3b>(20, 20) == cv::Vec3b(0, 0, 255));
    CHECK(f.bgr.at<cv::Vec3b>(100, 100) != cv::Vec3b(0, 0, 255));
}

TEST_CASE("X11Device: errors", "[x11]") {
    CHECK_THROWS_AS(X11Device(":4321"), DeviceError);
    CHECK_THROWS_WITH(X11Device(":4321"), Catch::StartsWith("cannot open X display \":4321\""));

    auto vd = startDisplay(320, 240);
    if (!vd) {
        WARN("Xvfb is not installed: skipping");
        return;
    }
    X11Device dev(vd->name());
    CHECK_THROWS_AS(dev.typeText("bad \xff utf8"), std::invalid_argument);
    vd.reset();  // the X server goes away
    CHECK_THROWS_WITH(
        [&] {
            dev.capture();
            dev.sync();
        }(),
        Catch::Contains("went away"));
    CHECK_THROWS_AS(dev.cursor(), DeviceError);
}

TEST_CASE("X11Device: a capture the run's time limit ends is the run's timeout, not a stalled display", "[x11]") {
    auto vd = startDisplay(320, 240);
    if (!vd) {
        WARN("Xvfb is not installed: skipping");
        return;
    }
    X11Device dev(vd->name());
    CancelToken run;
    run.setDeadline(monotonicSeconds() - 0.001, "the run's time limit of 1 s is used up");  // passed
    IoDeadlineScope bound(0, &run, "");
    // The watchdog ends the capture at the token's deadline (already past); whichever capture it
    // ends, the error is the run's timeout (as the step engine's own check of the token says).
    std::string what = "no error";
    for (int i = 0; i < 200 && what == "no error"; ++i) {
        try {
            dev.capture();
        } catch (const Cancelled& e) {
            what = e.timeout ? "timeout" : "cancelled";
        } catch (const std::exception& e) {
            what = e.what();
        }
    }
    CHECK(what == "timeout");
}

TEST_CASE("X11Device: typing on a display that stopped answering ends at the step's bound", "[x11]") {
    auto vd = startDisplay(320, 240);
    if (!vd) {
        WARN("Xvfb is not installed: skipping");
        return;
    }
    X11Device dev(vd->name());
    dev.capture();  // connected and answering
    const pid_t xvfb = vd->process().pid();
    REQUIRE(kill(xvfb, SIGSTOP) == 0);
    struct Resume {
        pid_t pid;
        ~Resume() { kill(pid, SIGCONT); }
    } resume{xvfb};
    // The step's deadline 0.5 s from now: the keyboard's first round trip (the keymap) is given
    // kIoWaitFloor (2 s) at least, and ends there, however long the display stays stopped.
    IoDeadlineScope bound(monotonicSeconds() + 0.5, nullptr, "the step's deadline");
    const double t0 = monotonicSeconds();
    std::string what = "no error";
    try {
        dev.typeText("a");
    } catch (const DeviceStalled& e) {
        what = e.what();
    } catch (const std::exception& e) {
        what = std::string("not a stall: ") + e.what();
    }
    const double took = monotonicSeconds() - t0;
    INFO(what << " after " << took << " s");
    CHECK(what.find("X display " + vd->name() + ": keymap: no answer within") != std::string::npos);
    CHECK(took < kIoWaitFloor + 1.0);
}

namespace {

/// Number of keycodes without any keysym on `display`.
int spareKeycodes(const std::string& display) {
    Display* dpy = XOpenDisplay(display.c_str());
    REQUIRE(dpy);
    int minKc, maxKc, per;
    XDisplayKeycodes(dpy, &minKc, &maxKc);
    KeySym* m = XGetKeyboardMapping(dpy, KeyCode(minKc), maxKc - minKc + 1, &per);
    int spare = 0;
    for (int kc = 0; kc <= maxKc - minKc; ++kc) {
        bool empty = true;
        for (int l = 0; l < per; ++l) empty &= m[kc * per + l] == NoSymbol;
        spare += empty;
    }
    XFree(m);
    XCloseDisplay(dpy);
    return spare;
}

/// Opens `zenity --entry` on `vd`, types `text` and Return with `dev`, returns its stdout.
std::string typeIntoZenity(VirtualDisplay& vd, X11Device& dev, const std::string& text) {
    ProcessOptions o;
    o.env["DISPLAY"] = vd.name();
    o.env["NO_AT_BRIDGE"] = "1";            // no accessibility bus (slow timeouts otherwise)
    o.env["GSETTINGS_BACKEND"] = "memory";  // no dconf
    o.env["GTK_IM_MODULE"] = "gtk-im-context-simple";
    auto zenity = Process::spawn({"zenity", "--entry", "--title=eacu", "--text=Type here"}, o);

    // Wait for the dialog to be mapped, then for its drawing to settle.
    Display* probe = XOpenDisplay(vd.name().c_str());
    REQUIRE(probe);
    XWindowAttributes win{};
    bool mapped = waitFor([&] { return largestTopLevel(probe, win) != 0; }, 30);
    XCloseDisplay(probe);
    REQUIRE(mapped);
    cv::Mat last;
    bool settled = waitFor(
        [&] {
            cv::Mat now = dev.capture().bgr;
            bool same = !last.empty() && cv::norm(now, last, cv::NORM_INF) == 0 &&
                        cv::countNonZero(now.reshape(1)) > 0;
            last = now;
            if (!same) std::this_thread::sleep_for(std::chrono::milliseconds(50));
            return same;
        },
        10);
    CHECK(settled);

    // No window manager: focus follows the pointer (PointerRoot), so point at the dialog.
    dev.move({win.x + win.width / 2, win.y + win.height / 2});
    dev.sync();
    dev.typeText(text);
    dev.keyCombo(parseKeyCombo("Return"));
    dev.sync();

    std::string out = zenity->readStdout(15);
    CHECK(zenity->wait(5) == std::optional<int>(0));
    return out;
}

}  // namespace

TEST_CASE("X11Device: typing Chinese and ASCII into zenity", "[x11]") {
    auto vd = startDisplay(800, 600);
    if (!vd) {
        WARN("Xvfb is not installed: skipping");
        return;
    }
    if (!inPath("zenity")) {
        WARN("zenity is not installed: skipping");
        return;
    }
    const int spareBefore = spareKeycodes(vd->name());
    {
        X11Device dev(vd->name());
        CHECK(typeIntoZenity(*vd, dev, "你好, eacu 123") == "你好, eacu 123\n");
    }
    CHECK(spareKeycodes(vd->name()) == spareBefore);  // the device restored the keymap
}

TEST_CASE("X11Device: typing more distinct characters than spare keycodes", "[x11]") {
    auto vd = startDisplay(800, 600);
    if (!vd || !inPath("zenity")) {
        WARN("Xvfb or zenity is not installed: skipping");
        return;
    }
    // 32 distinct unmapped characters (more than Xvfb's ~19 spare keycodes), shifted ASCII
    // and symbols, and repeated characters that reuse a remapped keycode.
    const std::string text =
        "Hello, World! 天地玄黄宇宙洪荒日月盈昃辰宿列张寒来暑往秋收冬藏闰余成岁律吕调阳 "
        "é€ü ~@#$%^&*()_+{}|:\"<>? 天地 end";
    X11Device dev(vd->name());
    CHECK(typeIntoZenity(*vd, dev, text) == text + "\n");
}
