#include "device/virtual/SessionBus.h"

#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <stdexcept>
#include <thread>

#include "base/Clock.h"
#include "device/atspi/A11yBus.h"

namespace eacu {

namespace {

std::string trimmed(std::string s, size_t max_chars = 1200) {
    if (s.size() > max_chars) s = "..." + s.substr(s.size() - max_chars);
    while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
    return s.empty() ? "(no output)" : s;
}

std::string findLauncher() {
    for (const char* p : {"/usr/libexec/at-spi-bus-launcher", "/usr/lib/at-spi2-core/at-spi-bus-launcher",
                          "/usr/lib/x86_64-linux-gnu/at-spi-bus-launcher"})
        if (::access(p, X_OK) == 0) return p;
    return "";
}

}  // namespace

std::unique_ptr<SessionBus> SessionBus::start(const std::string& display, double timeout) {
    const double deadline = monotonicSeconds() + timeout;
    std::unique_ptr<SessionBus> b(new SessionBus());
    std::string tmpl = (std::filesystem::temp_directory_path() / "eacu-bus-XXXXXX").string();
    if (!::mkdtemp(tmpl.data())) throw std::runtime_error("session bus: cannot create a runtime directory in /tmp");
    b->runtime_dir_ = tmpl;

    ProcessOptions opts;
    opts.stderr_mode = StderrMode::Capture;
    opts.env["DISPLAY"] = display;
    opts.env["XDG_RUNTIME_DIR"] = b->runtime_dir_;
    try {
        b->daemon_ = Process::spawn({"dbus-daemon", "--session", "--nofork", "--nopidfile", "--print-address=1",
                                     "--address=unix:path=" + b->runtime_dir_ + "/bus"},
                                    opts);
    } catch (const std::runtime_error& e) {
        throw std::runtime_error(std::string("session bus: ") + e.what() + " (apt-get install dbus)");
    }
    std::optional<std::string> line = b->daemon_->readLine(std::max(0.0, deadline - monotonicSeconds()));
    if (!line || line->empty()) {
        b->daemon_->waitOutputClosed(0.5);
        throw std::runtime_error("session bus: dbus-daemon did not print its address within " +
                                 std::to_string(int(timeout)) + " s; its stderr: " + trimmed(b->daemon_->stderrText()));
    }
    b->address_ = *line;

    std::string launcher = findLauncher();
    if (launcher.empty())
        throw std::runtime_error("accessibility bus: at-spi-bus-launcher is not installed (apt-get install at-spi2-core)");
    opts.env["DBUS_SESSION_BUS_ADDRESS"] = b->address_;
    opts.capture_stdout = true;
    b->launcher_ = Process::spawn({launcher, "--launch-immediately"}, opts);
    double step = 0.005;
    while (true) {
        b->a11y_address_ = a11yBusAddress(b->address_, false);  // only the launcher we run
        if (!b->a11y_address_.empty()) break;
        if (!b->launcher_->running()) {
            b->launcher_->waitOutputClosed(0.5);
            throw std::runtime_error("accessibility bus: at-spi-bus-launcher exited (status " +
                                     std::to_string(b->launcher_->exitStatus().value_or(-1)) +
                                     "); its stderr: " + trimmed(b->launcher_->stderrText()));
        }
        if (monotonicSeconds() >= deadline)
            throw std::runtime_error("accessibility bus: org.a11y.Bus did not answer within " +
                                     std::to_string(int(timeout)) + " s; at-spi-bus-launcher's stderr: " +
                                     trimmed(b->launcher_->stderrText()));
        std::this_thread::sleep_for(std::chrono::duration<double>(step));
        step = std::min(step * 2, 0.05);
    }
    return b;
}

std::map<std::string, std::string> SessionBus::environment() const {
    return {{"DBUS_SESSION_BUS_ADDRESS", address_},
            {"AT_SPI_BUS_ADDRESS", a11y_address_},
            // GTK2 programs load the AT-SPI bridge only as a module (Debian: libatk-adaptor,
            // libgail-common); GTK3 loads it by itself and ignores these.
            {"GTK_MODULES", "gail:atk-bridge"}};
}

SessionBus::~SessionBus() {
    if (launcher_) launcher_->stop(2.0);
    if (daemon_) daemon_->stop(2.0);
    if (!runtime_dir_.empty()) {
        std::error_code ec;
        std::filesystem::remove_all(runtime_dir_, ec);
    }
}

}  // namespace eacu
