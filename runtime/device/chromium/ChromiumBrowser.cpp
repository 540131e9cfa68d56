#include "device/chromium/ChromiumBrowser.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sys/un.h>

#include <thread>

#include "base/Clock.h"
#include "device/Device.h"
#include "process/Process.h"

namespace fs = std::filesystem;

namespace eacu {

namespace {

// The last lines of a launched Chromium's stderr, for an error message.
std::string stderrTail(Process& p) {
    std::string e = p.stderrText();
    if (e.size() > 600) e = "..." + e.substr(e.size() - 600);
    return e.empty() ? "" : ": " + e;
}

// Chromium's process singleton binds a unix socket at $TMPDIR/org.chromium.Chromium.XXXXXX/
// SingletonSocket (chrome/browser/process_singleton_posix.cc); a path longer than sockaddr_un's
// sun_path (108 bytes with its NUL on Linux) ends Chromium at start ("Socket path too long"), as
// a CI's deep build folder did. Chromium therefore gets a TMPDIR of its own, a folder of eacu's
// under $TMPDIR when the socket's path fits there, else under /tmp; it also keeps two Chromiums
// from sharing one (which held a page on its last document for over 60 s, docs/not-there-yet.md).
// Returns the folder made; raises DeviceError when none can be made.
std::string makeChromiumTmp() {
    constexpr size_t kSocketTail = sizeof("/org.chromium.Chromium.XXXXXX/SingletonSocket") - 1;
    constexpr size_t kSunPath = sizeof(sockaddr_un{}.sun_path) - 1;
    std::error_code ec;
    std::string base = fs::temp_directory_path(ec).string();  // $TMPDIR
    std::string tmpl = base + "/eacu-ct.XXXXXX";
    if (ec || tmpl.size() + kSocketTail > kSunPath) tmpl = "/tmp/eacu-ct.XXXXXX";
    if (!mkdtemp(tmpl.data())) throw DeviceError("chromium: cannot make a temporary directory " + tmpl);
    return tmpl;
}

}  // namespace

std::unique_ptr<ChromiumBrowser> ChromiumBrowser::start(Size window, double timeout, const std::string& chromium) {
    std::string program = chromium;
    if (program.empty()) {
        const char* env = std::getenv("EACU_CHROMIUM");
        program = env && *env ? env : "chromium";
    }
    std::unique_ptr<ChromiumBrowser> b(new ChromiumBrowser());
    std::error_code ec;
    std::string tmpl = (fs::temp_directory_path(ec) / "eacu-chromium-device.XXXXXX").string();  // $TMPDIR
    if (!mkdtemp(tmpl.data())) throw DeviceError("chromium: cannot make a profile directory " + tmpl);
    b->profile_ = tmpl;
    b->tmp_ = makeChromiumTmp();
    ProcessOptions po;
    po.env["TMPDIR"] = b->tmp_;
    po.capture_stdout = false;
    po.stderr_mode = StderrMode::Capture;
    std::vector<std::string> argv = {
        program, "--headless=new", "--no-sandbox", "--remote-debugging-port=0", "--remote-allow-origins=*",
        "--user-data-dir=" + b->profile_,
        "--window-size=" + std::to_string(window.w) + "," + std::to_string(window.h),
        "--no-first-run", "--no-default-browser-check", "--disable-extensions", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--disable-features=Translate", "--mute-audio",
        "--hide-scrollbars", "--disable-renderer-backgrounding", "--disable-background-timer-throttling",
        "--disable-backgrounding-occluded-windows", "about:blank"};
    try {
        b->process_ = Process::spawn(argv, po);
    } catch (const std::exception& e) {
        throw DeviceError(std::string("chromium: ") + e.what() + " (make deps installs Debian's chromium)");
    }
    b->peer_ = "chromium (pid " + std::to_string(b->process_->pid()) + ")";
    // Chromium writes the port it chose and the browser's path into DevToolsActivePort.
    const fs::path active = fs::path(b->profile_) / "DevToolsActivePort";
    const double deadline = monotonicSeconds() + timeout;
    std::string port, path;
    while (true) {
        if (fs::exists(active)) {
            std::ifstream in(active);
            std::getline(in, port);
            std::getline(in, path);
            if (!port.empty() && !path.empty()) break;
        }
        if (!b->process_->running())
            throw DeviceError(b->peer_ + " exited (status " + std::to_string(b->process_->exitStatus().value_or(-1)) +
                              ") before its DevTools endpoint was up" + stderrTail(*b->process_));
        if (monotonicSeconds() > deadline) {
            char secs[32];
            std::snprintf(secs, sizeof secs, "%g", timeout);
            throw DeviceError(b->peer_ + ": no DevTools endpoint within " + secs + " s" + stderrTail(*b->process_));
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    b->endpoint_ = "http://127.0.0.1:" + port;
    b->ws_ = "ws://127.0.0.1:" + port + path;
    return b;
}

ChromiumBrowser::~ChromiumBrowser() {
    if (process_) {
        process_->stop(1.0);  // its helpers (zygote, renderers) are in its process group
        // Helpers outlive a browser that died (or was killed) for a moment and may still write
        // into the profile: it is removed once they are gone (a removal that met a file written
        // meanwhile left the profile directory behind, e2e_chromium_device).
        process_->waitGroupGone(2.0);
    }
    process_.reset();
    for (const std::string& dir : {profile_, tmp_}) {
        std::error_code ec;
        if (!dir.empty()) fs::remove_all(dir, ec);
    }
}

}  // namespace eacu
