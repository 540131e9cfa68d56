// The private session and accessibility buses of a virtual display: started, answering, and
// stopped with everything they started (at-spi2-registryd included).
#include <catch2/catch.hpp>

#include <signal.h>

#include <chrono>
#include <thread>

#include "base/Clock.h"
#include "device/atspi/A11yBus.h"
#include "device/atspi/AtspiAccessibility.h"
#include "device/virtual/VirtualDisplay.h"

using namespace eacu;

namespace {

bool alive(pid_t pid) { return ::kill(pid, 0) == 0; }

bool goneWithin(pid_t pid, double seconds) {
    double end = monotonicSeconds() + seconds;
    while (alive(pid) && monotonicSeconds() < end) std::this_thread::sleep_for(std::chrono::milliseconds(20));
    return !alive(pid);
}

}  // namespace

TEST_CASE("SessionBus: a private session bus and AT-SPI bus for a virtual display", "[a11y][x11]") {
    auto vd = VirtualDisplay::start(320, 240);
    double t0 = monotonicSeconds();
    vd->startSessionBus();
    double ms = (monotonicSeconds() - t0) * 1000;
    WARN("session bus + accessibility bus started in " << ms << " ms");
    SessionBus* bus = const_cast<SessionBus*>(vd->sessionBus());
    REQUIRE(bus);
    CHECK(bus->address().rfind("unix:path=", 0) == 0);
    CHECK(bus->a11yAddress().rfind("unix:path=", 0) == 0);
    CHECK(a11yBusAddress(bus->address(), false) == bus->a11yAddress());
    auto env = bus->environment();
    CHECK(env.at("DBUS_SESSION_BUS_ADDRESS") == bus->address());
    CHECK(env.at("AT_SPI_BUS_ADDRESS") == bus->a11yAddress());
    CHECK_THROWS_WITH(vd->startSessionBus(), Catch::Contains("a session bus already runs"));

    // A snapshot with no program on the display: the registry is started on demand, the tree
    // has no applications.
    AtspiAccessibility a11y(bus->a11yAddress(), vd->name());
    A11yElement root = a11y.snapshot();
    CHECK(root.role == "desktop frame");
    CHECK(root.children.empty());

    pid_t launcher = bus->launcher().pid();
    pid_t daemon = bus->daemon().pid();
    vd.reset();
    CHECK(goneWithin(daemon, 5));
    CHECK(goneWithin(launcher, 5));
}
