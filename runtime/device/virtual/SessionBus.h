// A private D-Bus session bus with the AT-SPI2 accessibility bus, for one virtual display.
#pragma once
#include <map>
#include <memory>
#include <string>

#include "process/Process.h"

namespace eacu {

/// A D-Bus session bus (dbus-daemon --session) and the AT-SPI2 bus launcher
/// (at-spi-bus-launcher, which starts the accessibility bus and, on demand, at-spi2-registryd)
/// owned by this process for the X display `display`. Their sockets live in a private runtime
/// directory; nothing touches the machine's own session bus. Stopped by the destructor.
class SessionBus {
public:
    /// Starts both and waits, at most `timeout` seconds, until org.a11y.Bus answers with the
    /// accessibility bus's address. Throws std::runtime_error when dbus-daemon or
    /// at-spi-bus-launcher is not installed (naming the Debian packages dbus and at-spi2-core),
    /// exits (with its stderr) or is not ready in time.
    static std::unique_ptr<SessionBus> start(const std::string& display, double timeout = 10);

    /// Stops the launcher (with the accessibility bus and the registry, its process group),
    /// then the session bus, and removes the runtime directory.
    ~SessionBus();
    SessionBus(const SessionBus&) = delete;
    SessionBus& operator=(const SessionBus&) = delete;

    /// The session bus address (DBUS_SESSION_BUS_ADDRESS).
    const std::string& address() const { return address_; }
    /// The accessibility bus address (AT_SPI_BUS_ADDRESS).
    const std::string& a11yAddress() const { return a11y_address_; }
    /// What programs launched on the display need in their environment to export their trees:
    /// DBUS_SESSION_BUS_ADDRESS, AT_SPI_BUS_ADDRESS, GTK_MODULES (gail:atk-bridge, for GTK2).
    std::map<std::string, std::string> environment() const;
    /// The bus processes, for tests: dbus-daemon and at-spi-bus-launcher.
    Process& daemon() { return *daemon_; }
    Process& launcher() { return *launcher_; }

private:
    SessionBus() = default;
    std::unique_ptr<Process> daemon_;
    std::unique_ptr<Process> launcher_;
    std::string runtime_dir_;
    std::string address_;
    std::string a11y_address_;
};

}  // namespace eacu
