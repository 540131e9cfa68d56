// Device-neutral keys as DOM key events for the chromium device (device/chromium/CdpKeys.h).
#include <catch2/catch.hpp>

#include "device/chromium/CdpKeys.h"

using namespace eacu;

TEST_CASE("domKeyFor: named keys, characters and modifiers", "[device][chromium]") {
    DomKey enter = domKeyFor(Key::named(KeyName::Return));
    CHECK(enter.key == "Enter");
    CHECK(enter.code == "Enter");
    CHECK(enter.vk == 13);
    CHECK(enter.text == "\r");
    DomKey ctrl = domKeyFor(Key::named(KeyName::Control));
    CHECK(ctrl.key == "Control");
    CHECK(ctrl.code == "ControlLeft");
    CHECK(ctrl.modifier == 2);
    CHECK(domKeyFor(Key::named(KeyName::Shift)).modifier == 8);
    CHECK(domKeyFor(Key::named(KeyName::Super)).key == "Meta");
    CHECK(domKeyFor(Key::named(KeyName::PageDown)).vk == 34);
    CHECK(domKeyFor(Key::named(KeyName::Left)).key == "ArrowLeft");
    CHECK(domKeyFor(Key::named(KeyName::F5)).vk == 116);
    CHECK(domKeyFor(Key::named(KeyName::F30)).vk == 0);
    CHECK(domKeyFor(Key::named(KeyName::Keypad7)).code == "Numpad7");

    DomKey a = domKeyFor(Key::character('a'));
    CHECK(a.key == "a");
    CHECK(a.code == "KeyA");
    CHECK(a.vk == 'A');
    CHECK(a.text == "a");
    CHECK(domKeyFor(Key::character('a'), true).text == "A");
    CHECK(domKeyFor(Key::character('7')).code == "Digit7");
    CHECK(domKeyFor(Key::character(' ')).code == "Space");
    CHECK(domKeyFor(Key::character('?')).code == "Slash");
    CHECK(domKeyFor(Key::character('\n')).key == "Enter");
    DomKey zhang = domKeyFor(Key::character(U'张'));
    CHECK(zhang.key == "张");
    CHECK(zhang.text == "张");
    CHECK(zhang.vk == 0);
    CHECK_THROWS_WITH(domKeyFor(Key::platform("dead_acute")),
                      "unknown key \"dead_acute\" (the chromium device knows named keys and characters)");
}
