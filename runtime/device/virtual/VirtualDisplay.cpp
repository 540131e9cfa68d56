#include "device/virtual/VirtualDisplay.h"

#include <X11/Xatom.h>
#include <X11/Xlib.h>
#include <sys/stat.h>

#include <chrono>
#include <stdexcept>
#include <thread>

#include "base/Frame.h"

namespace eacu {

namespace {

constexpr int kFirstDisplay = 99;
constexpr int kMaxDisplays = 200;  // :99 .. :298

bool pathExists(const std::string& p) {
    struct stat st;
    return ::stat(p.c_str(), &st) == 0;
}

// Xvfb's stderr, trimmed to its last lines, for error messages.
std::string tail(const std::string& text, size_t max_chars = 1500) {
    std::string t = text.size() > max_chars ? "..." + text.substr(text.size() - max_chars) : text;
    while (!t.empty() && (t.back() == '\n' || t.back() == ' ')) t.pop_back();
    return t.empty() ? "(no output)" : t;
}

bool displayInUse(const std::string& err) {
    return err.find("already active") != std::string::npos ||
           err.find("Cannot establish any listening sockets") != std::string::npos ||
           err.find("Could not create server lock file") != std::string::npos;
}

}  // namespace

std::unique_ptr<VirtualDisplay> VirtualDisplay::start(int width, int height, int depth,
                                                      double timeout) {
    if (width <= 0 || height <= 0)
        throw std::invalid_argument("VirtualDisplay: bad screen size " + std::to_string(width) +
                                    "x" + std::to_string(height));
    const double deadline = monotonicSeconds() + timeout;
    const std::string screen =
        std::to_string(width) + "x" + std::to_string(height) + "x" + std::to_string(depth);

    for (int n = kFirstDisplay; n < kFirstDisplay + kMaxDisplays; ++n) {
        // Quick check for displays that are obviously taken; Xvfb itself settles races
        // (it refuses a display whose lock or socket another server holds, and we move on).
        const std::string lock = "/tmp/.X" + std::to_string(n) + "-lock";
        const std::string socket = "/tmp/.X11-unix/X" + std::to_string(n);
        if (pathExists(lock) || pathExists(socket)) continue;
        const std::string name = ":" + std::to_string(n);
        ProcessOptions opts;
        opts.stderr_mode = StderrMode::Capture;
        // -displayfd 1: Xvfb writes the display number to stdout once it accepts clients.
        auto xvfb = Process::spawn({"Xvfb", name, "-displayfd", "1", "-screen", "0", screen,
                                    "-nolisten", "tcp", "-ac", "+extension", "XTEST",
                                    "-noreset"},
                                   opts);
        std::optional<std::string> line =
            xvfb->readLine(std::max(0.0, deadline - monotonicSeconds()));
        if (!line) {
            if (!xvfb->stdoutClosed()) {
                std::string err = xvfb->stderrText();
                xvfb->stop(0.5);
                throw std::runtime_error("Xvfb on " + name + " was not ready within " +
                                         std::to_string(timeout) + " s; its stderr: " +
                                         tail(err));
            }
            // Xvfb closed stdout without announcing: it is exiting.
            std::optional<int> status = xvfb->wait(2.0);
            xvfb->waitOutputClosed(1.0);
            std::string err = xvfb->stderrText();
            if (status && (displayInUse(err) || pathExists(lock) || pathExists(socket)))
                continue;  // lost a race for :n to another server: try the next number
            xvfb->stop(0.5);
            throw std::runtime_error(
                "Xvfb failed to start on " + name + " (" +
                (status ? "exit status " + std::to_string(*status) : std::string("no status")) +
                "); its stderr: " + tail(err));
        }

        // Announced; confirm that a client can really connect.
        double step = 0.001;
        while (true) {
            if (Display* d = XOpenDisplay(name.c_str())) {
                XCloseDisplay(d);
                break;
            }
            if (!xvfb->running()) {
                xvfb->waitOutputClosed(1.0);
                throw std::runtime_error("Xvfb on " + name + " exited (status " +
                                         std::to_string(xvfb->exitStatus().value_or(-1)) +
                                         "); its stderr: " + tail(xvfb->stderrText()));
            }
            if (monotonicSeconds() >= deadline) {
                std::string err = xvfb->stderrText();
                xvfb->stop(0.5);
                throw std::runtime_error("cannot connect to Xvfb on " + name + " within " +
                                         std::to_string(timeout) + " s; its stderr: " +
                                         tail(err));
            }
            std::this_thread::sleep_for(std::chrono::duration<double>(step));
            step = std::min(step * 2, 0.05);
        }

        std::unique_ptr<VirtualDisplay> vd(new VirtualDisplay());
        vd->xvfb_ = std::move(xvfb);
        vd->name_ = name;
        vd->number_ = n;
        vd->size_ = {width, height};
        vd->depth_ = depth;
        return vd;
    }
    throw std::runtime_error("VirtualDisplay: no free X display number in :" +
                             std::to_string(kFirstDisplay) + "..:" +
                             std::to_string(kFirstDisplay + kMaxDisplays - 1));
}

namespace {

// The window of the root's _NET_SUPPORTING_WM_CHECK when it points at itself too (the EWMH
// sign that a window manager runs), else 0.
bool wmReady(Display* d) {
    Atom check = XInternAtom(d, "_NET_SUPPORTING_WM_CHECK", False);
    auto read = [&](Window w) -> Window {
        Atom type = 0;
        int format = 0;
        unsigned long n = 0, after = 0;
        unsigned char* data = nullptr;
        Window out = 0;
        if (XGetWindowProperty(d, w, check, 0, 1, False, XA_WINDOW, &type, &format, &n, &after,
                               &data) == Success &&
            data && format == 32 && n == 1)
            out = Window(*reinterpret_cast<unsigned long*>(data));
        if (data) XFree(data);
        return out;
    };
    // A check window that is gone raises BadWindow: ignore errors while reading it.
    auto old = XSetErrorHandler([](Display*, XErrorEvent*) { return 0; });
    Window w = read(DefaultRootWindow(d));
    bool ok = w && read(w) == w;
    XSync(d, False);
    XSetErrorHandler(old);
    return ok;
}

}  // namespace

void VirtualDisplay::startWindowManager(const std::string& wm, double timeout) {
    if (wm.empty() || wm == "none") return;
    if (wm_) throw std::runtime_error("a window manager (" + wm_name_ + ") already runs on " + name_);
    ProcessOptions opts;
    opts.stderr_mode = StderrMode::Capture;
    opts.env["DISPLAY"] = name_;  // stdout captured too: GLib's messages go there
    std::unique_ptr<Process> p;
    try {
        p = Process::spawn({wm}, opts);
    } catch (const std::runtime_error& e) {
        throw std::runtime_error("window manager \"" + wm + "\" cannot start on " + name_ + ": " +
                                 e.what() + " (is it installed? e.g. apt-get install openbox)");
    }
    Display* d = XOpenDisplay(name_.c_str());
    if (!d) {
        p->stop(0.5);
        throw std::runtime_error("cannot connect to " + name_ + " to wait for its window manager");
    }
    const double deadline = monotonicSeconds() + timeout;
    double step = 0.002;
    while (!wmReady(d)) {
        if (!p->running()) {
            XCloseDisplay(d);
            p->waitOutputClosed(1.0);
            throw std::runtime_error("window manager \"" + wm + "\" exited on " + name_ + " (status " +
                                     std::to_string(p->exitStatus().value_or(-1)) +
                                     ") before taking the screen; its stderr: " + tail(p->stderrText()));
        }
        if (monotonicSeconds() >= deadline) {
            XCloseDisplay(d);
            std::string err = p->stderrText();
            p->stop(0.5);
            throw std::runtime_error("window manager \"" + wm + "\" did not take the screen of " + name_ +
                                     " (no _NET_SUPPORTING_WM_CHECK) within " +
                                     std::to_string(timeout).substr(0, 4) + " s; its stderr: " + tail(err));
        }
        std::this_thread::sleep_for(std::chrono::duration<double>(step));
        step = std::min(step * 2, 0.05);
    }
    XCloseDisplay(d);
    wm_ = std::move(p);
    wm_name_ = wm;
}

void VirtualDisplay::startSessionBus(double timeout) {
    if (bus_) throw std::runtime_error("a session bus already runs for " + name_);
    bus_ = SessionBus::start(name_, timeout);
}

VirtualDisplay::~VirtualDisplay() {
    bus_.reset();
    if (wm_) wm_->stop(2.0);
    if (xvfb_) xvfb_->stop(2.0);
}

}  // namespace eacu
