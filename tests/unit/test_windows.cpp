// Windows (device/Windows.h): devices without windows, the window manager of a virtual
// display, X11Windows on a bare Xvfb.
#include <catch2/catch.hpp>

#include <stdexcept>
#include <string>

#include "ImageSession.h"
#include "device/DeviceFactory.h"
#include "device/virtual/VirtualDisplay.h"
#include "device/x11/X11Windows.h"

using namespace eacu;

TEST_CASE("Windows: an image device has none", "[windows]") {
    ImageDevice d(EACU_FIXTURES "/xcalc.png");
    CHECK_THROWS_WITH(d.windows(), Catch::Contains("this device has no windows: image"));
}

TEST_CASE("Windows: a session's window step on an image device fails as a device error", "[windows]") {
    test::ImageSession t("windows.lua");
    try {
        t.session->windowOp("focus", 42);
        FAIL("expected a StepError");
    } catch (const StepError& e) {
        CHECK(e.code == failure::kDevice);
        CHECK_THAT(e.what(), Catch::Contains("window focus: this device has no windows"));
    }
    try {
        t.session->windowOp("shake", 42);
        FAIL("expected a StepError");
    } catch (const StepError& e) {
        CHECK(e.code == failure::kInvalid);
        CHECK_THAT(e.what(), Catch::Contains("got \"shake\""));
    }
}

TEST_CASE("openDevice: a window manager needs a virtual display", "[windows]") {
    CHECK_THROWS_WITH(openDevice("image:" EACU_FIXTURES "/xcalc.png", "openbox"),
                      Catch::Contains("expected a virtual display") && Catch::Contains("image:"));
}

TEST_CASE("VirtualDisplay: a window manager taken up and a missing one refused", "[windows][x11]") {
    auto vd = VirtualDisplay::start(320, 240);
    X11Windows before(vd->name());
    CHECK_FALSE(before.hasWindowManager());
    CHECK(before.list().empty());
    CHECK_FALSE(before.frontmost().has_value());
    CHECK_THROWS_WITH(vd->startWindowManager("eacu-no-such-wm"),
                      Catch::Contains("window manager \"eacu-no-such-wm\" cannot start") &&
                          Catch::Contains("is it installed?"));
    vd->startWindowManager("none");
    CHECK(vd->windowManager().empty());
    vd->startWindowManager("openbox");
    CHECK(vd->windowManager() == "openbox");
    CHECK(before.hasWindowManager());
    CHECK_THROWS_WITH(before.focus(0x12345), Catch::Contains("window 0x12345 is gone"));
    CHECK_THROWS_WITH(vd->startWindowManager("openbox"), Catch::Contains("already runs"));
}
