// Device specs (":N", "virtual[:WxH]", "image:PATH", "") and openDevice.
#include <catch2/catch.hpp>

#include <signal.h>
#include <unistd.h>

#include <cstdlib>
#include <stdexcept>
#include <string>

#include "device/DeviceFactory.h"
#include "device/image/ImageDevice.h"

using namespace eacu;

namespace {
std::string specError(const std::string& spec) {
    try {
        parseDeviceSpec(spec);
    } catch (const std::invalid_argument& e) {
        return e.what();
    }
    return "(no error)";
}
bool haveXvfb() {
    for (const char* dir : {"/usr/bin", "/usr/local/bin", "/bin"})
        if (access((std::string(dir) + "/Xvfb").c_str(), X_OK) == 0) return true;
    return false;
}
using Kind = DeviceSpec::Kind;
}  // namespace

TEST_CASE("parseDeviceSpec: X displays, virtual, image", "[device]") {
    DeviceSpec d = parseDeviceSpec("");
    CHECK(d.kind == Kind::X11);
    CHECK(d.display.empty());
    for (const char* name : {":0", ":99", ":1.0", "localhost:10.0", "host-a.example:3"}) {
        d = parseDeviceSpec(name);
        CHECK(d.kind == Kind::X11);
        CHECK(d.display == name);
    }
    d = parseDeviceSpec("virtual");
    CHECK(d.kind == Kind::Virtual);
    CHECK(d.size == Size{1280, 800});
    d = parseDeviceSpec("virtual:800x600");
    CHECK(d.kind == Kind::Virtual);
    CHECK(d.size == Size{800, 600});
    d = parseDeviceSpec("image:/tmp/a b.png");
    CHECK(d.kind == Kind::Image);
    CHECK(d.image == "/tmp/a b.png");
}

TEST_CASE("parseDeviceSpec: chromium and cdp specs", "[device]") {
    DeviceSpec d = parseDeviceSpec("chromium");
    CHECK(d.kind == Kind::Chromium);
    CHECK(d.size == Size{1280, 800});
    CHECK(d.scale == 1.0);
    d = parseDeviceSpec("chromium:800x600@2");
    CHECK(d.kind == Kind::Chromium);
    CHECK(d.size == Size{800, 600});
    CHECK(d.scale == 2.0);
    d = parseDeviceSpec("chromium:1024x768");
    CHECK(d.size == Size{1024, 768});
    CHECK(d.scale == 1.0);
    d = parseDeviceSpec("cdp:http://127.0.0.1:9222");
    CHECK(d.kind == Kind::Cdp);
    CHECK(d.endpoint == "http://127.0.0.1:9222");
    d = parseDeviceSpec("cdp:http://localhost:9222#640x480@1.5");
    CHECK(d.endpoint == "http://localhost:9222");
    CHECK(d.size == Size{640, 480});
    CHECK(d.scale == 1.5);
    CHECK_THAT(specError("chromium:"), Catch::Contains("chromium:WxH[@S] expects a size"));
    CHECK_THAT(specError("chromium:800x600@9"), Catch::Contains("[0.5, 4] (e.g. @2), got \"9\""));
    CHECK_THAT(specError("cdp:localhost:9222"), Catch::Contains("expected cdp:http://HOST:PORT"));
    CHECK_THAT(specError("cdp:http://host"), Catch::Contains("expected cdp:http://HOST:PORT"));
}

TEST_CASE("openDevice: a cdp endpoint nobody serves", "[device]") {
    CHECK_THROWS_AS(openDevice("cdp:http://127.0.0.1:1"), DeviceError);
    CHECK_THROWS_WITH(openDevice("cdp:http://127.0.0.1:1"),
                      Catch::StartsWith("cannot reach the DevTools endpoint http://127.0.0.1:1 (connect): "));
}

TEST_CASE("specForRecordedDevice: a chromium run's device opens again", "[device]") {
    CHECK(specForRecordedDevice("chromium headless 1024x700@2 (pid 9)") == "chromium:1024x700@2");
    CHECK(specForRecordedDevice("cdp http://127.0.0.1:9222 page 1280x800@1") == "cdp:http://127.0.0.1:9222#1280x800@1");
    CHECK(specForRecordedDevice("x11 :99 1280x800") == "");
    CHECK(specForRecordedDevice("agent 127.0.0.1:7878 windows 6.1.7601 1280x800 dpi 96") == "agent:127.0.0.1:7878");
    DeviceSpec d = parseDeviceSpec(specForRecordedDevice("chromium headless 1024x700@1.5 (pid 9)"));
    CHECK(d.kind == Kind::Chromium);
    CHECK(d.size == Size{1024, 700});
    CHECK(d.scale == 1.5);
}

TEST_CASE("parseDeviceSpec: errors say what was expected and what came", "[device]") {
    CHECK(specError("foo") == "device: expected :N, virtual[:WxH], image:PATH, chromium[:WxH[@S]], cdp:http://HOST:PORT, adb[:SERIAL] or agent:HOST:PORT, got \"foo\"");
    for (const char* bad : {"99", ":", ":x", ":1.", "virtualx", "image", "host name:1", ":1:2x"})
        CHECK_THAT(specError(bad), Catch::StartsWith("device: expected :N, virtual[:WxH], image:PATH, chromium[:WxH[@S]], cdp:http://HOST:PORT, adb[:SERIAL] or agent:HOST:PORT"));
    CHECK(specError("virtual:80") ==
          "device \"virtual:80\": virtual:WxH expects a size like 1280x800 (each side at least 64 "
          "pixels), got \"80\"");
    CHECK_THAT(specError("virtual:63x600"), Catch::Contains("got \"63x600\""));
    CHECK_THAT(specError("virtual:800x600px"), Catch::Contains("got \"800x600px\""));
    CHECK_THAT(specError("virtual:"), Catch::Contains("got \"\""));
    CHECK_THAT(specError("image:"), Catch::Contains("got no path"));
}

TEST_CASE("parseDeviceSpec: a device agent", "[device]") {
    DeviceSpec d = parseDeviceSpec("agent:127.0.0.1:7878");
    CHECK(d.kind == Kind::Agent);
    CHECK(d.endpoint == "127.0.0.1:7878");
    CHECK(parseDeviceSpec("agent:[::1]:80").endpoint == "[::1]:80");
    for (const char* bad : {"agent:", "agent:host", "agent:host:", "agent:host:0", "agent:host:65536", "agent::7878"})
        CHECK_THAT(specError(bad), Catch::Contains("expected agent:HOST:PORT"));
    // Nothing listens on port 1: a DeviceError naming the agent, quickly.
    CHECK_THROWS_WITH(openDevice("agent:127.0.0.1:1"), Catch::Contains("agent 127.0.0.1:1: cannot connect"));
}

TEST_CASE("openDevice: an image device, no display", "[device]") {
    DeviceHandle h = openDevice(std::string("image:") + EACU_FIXTURES + "/xcalc.png");
    REQUIRE(h.device);
    CHECK_FALSE(h.virtual_display);
    CHECK(h.display.empty());
    CHECK(dynamic_cast<ImageDevice*>(h.device.get()));
    Frame f = h.device->capture();
    CHECK(Size{f.width(), f.height()} == h.device->screenSize());
    CHECK(f.width() > 0);

    CHECK_THROWS_AS(openDevice(std::string("image:") + EACU_FIXTURES + "/missing.png"), DeviceError);
    CHECK_THROWS_WITH(openDevice("bogus"), "device: expected :N, virtual[:WxH], image:PATH, chromium[:WxH[@S]], cdp:http://HOST:PORT, adb[:SERIAL] or agent:HOST:PORT, got \"bogus\"");
}

TEST_CASE("openDevice: $DISPLAY unset", "[device]") {
    const char* saved = std::getenv("DISPLAY");
    std::string keep = saved ? saved : "";
    unsetenv("DISPLAY");
    CHECK_THROWS_WITH(openDevice(""), Catch::StartsWith("no display: $DISPLAY is not set"));
    if (saved) setenv("DISPLAY", keep.c_str(), 1);
}

TEST_CASE("openDevice: a virtual display owned by the handle", "[device][x11]") {
    if (!haveXvfb()) {
        WARN("Xvfb is not installed: skipping");
        return;
    }
    const char* before = std::getenv("DISPLAY");
    std::string display_before = before ? before : "(unset)";
    std::string name;
    pid_t xvfb = -1;
    {
        DeviceHandle h = openDevice("virtual:320x240");
        REQUIRE(h.virtual_display);
        REQUIRE(h.device);
        name = h.display;
        xvfb = h.virtual_display->process().pid();
        CHECK(name == h.virtual_display->name());
        CHECK(name.rfind(':', 0) == 0);
        CHECK(h.device->describe() == "x11 " + name + " 320x240");
        CHECK(h.device->capture().width() == 320);
        // An X display opened by name gives the same display name back.
        DeviceHandle again = openDevice(name);
        CHECK(again.display == name);
        CHECK_FALSE(again.virtual_display);
        again = {};
        // The process's $DISPLAY is not touched.
        const char* now = std::getenv("DISPLAY");
        CHECK(std::string(now ? now : "(unset)") == display_before);
    }
    // The handle stopped (and reaped) its Xvfb.
    CHECK(xvfb > 0);
    CHECK(::kill(xvfb, 0) != 0);
}
