// Key combo parsing into neutral keys, their X11 keysyms, keysyms of code points and strict
// UTF-8 decoding.
#include <X11/keysym.h>

#include <catch2/catch.hpp>
#include <stdexcept>
#include <string>

#include "base/Ascii.h"
#include "base/Utf8.h"
#include "device/Device.h"
#include "device/KeyCombo.h"
#include "device/image/ImageDevice.h"
#include "device/x11/X11Keys.h"

using namespace eacu;

namespace {
std::string errorOf(const std::string& combo) {
    try {
        parseKeyCombo(combo);
    } catch (const std::invalid_argument& e) {
        return e.what();
    }
    return "(no error)";
}
std::string utf8ErrorOf(const std::string& s) {
    try {
        decodeUtf8(s);
    } catch (const std::invalid_argument& e) {
        return e.what();
    }
    return "(no error)";
}
using Keys = std::vector<uint32_t>;
using U32 = std::u32string;

/// The combo parsed into neutral keys, then mapped to keysyms by the X11 backend's mapping.
Keys keysyms(const std::string& combo) {
    Keys out;
    for (const Key& k : parseKeyCombo(combo)) out.push_back(keysymFor(k));
    return out;
}
}  // namespace

TEST_CASE("parseKeyCombo: modifiers and keys in press order", "[keycombo]") {
    CHECK(keysyms("ctrl+shift+t") == Keys{XK_Control_L, XK_Shift_L, 't'});
    CHECK(keysyms("alt+F4") == Keys{XK_Alt_L, XK_F4});
    CHECK(keysyms("Return") == Keys{XK_Return});
    CHECK(keysyms("super") == Keys{XK_Super_L});
    CHECK(keysyms("ctrl+s") == Keys{XK_Control_L, 's'});
}

TEST_CASE("asciiLower: ASCII letters only, UTF-8 kept", "[keycombo]") {
    CHECK(asciiLower("Ctrl+Shift+T") == "ctrl+shift+t");
    CHECK(asciiLower("XF86AudioMute_1@[`{") == "xf86audiomute_1@[`{");
    CHECK(asciiLower("发送 Send ÄÖ") == "发送 send ÄÖ");  // non-ASCII bytes untouched
    CHECK(asciiLower("") == "");
}

TEST_CASE("parseKeyCombo: aliases are case-insensitive", "[keycombo]") {
    CHECK(keysyms("CTRL+Alt+DEL") == Keys{XK_Control_L, XK_Alt_L, XK_Delete});
    CHECK(keysyms("Control+Shift+Escape") == Keys{XK_Control_L, XK_Shift_L, XK_Escape});
    for (const char* s : {"super", "win", "cmd", "META"}) CHECK(keysyms(s) == Keys{XK_Super_L});
    CHECK(keysyms("enter") == Keys{XK_Return});
    CHECK(keysyms("esc") == Keys{XK_Escape});
    CHECK(keysyms("Tab") == Keys{XK_Tab});
    CHECK(keysyms("space") == Keys{XK_space});
    CHECK(keysyms("BackSpace") == Keys{XK_BackSpace});
    CHECK(keysyms("ins") == Keys{XK_Insert});
    CHECK(keysyms("home+end") == Keys{XK_Home, XK_End});
    CHECK(keysyms("pgup") == Keys{XK_Prior});
    CHECK(keysyms("PageDown") == Keys{XK_Next});
    CHECK(keysyms("up+down+left+right") == Keys{XK_Up, XK_Down, XK_Left, XK_Right});
    CHECK(keysyms("capslock") == Keys{XK_Caps_Lock});
    CHECK(keysyms("printscreen") == Keys{XK_Print});
    CHECK(keysyms("menu") == Keys{XK_Menu});
}

TEST_CASE("parseKeyCombo: function keys F1..F35", "[keycombo]") {
    CHECK(keysyms("F5") == Keys{XK_F5});
    CHECK(keysyms("f5") == Keys{XK_F5});
    CHECK(keysyms("f1") == Keys{XK_F1});
    CHECK(keysyms("F35") == Keys{XK_F35});
    CHECK(keysyms("shift+f12") == Keys{XK_Shift_L, XK_F12});
}

TEST_CASE("parseKeyCombo: keysym names and single characters", "[keycombo]") {
    CHECK(keysyms("KP_Add") == Keys{XK_KP_Add});
    CHECK(keysyms("XF86AudioMute") == Keys{0x1008ff12});
    CHECK(keysyms("prior") == Keys{XK_Prior});  // capitalised retry: "Prior"
    CHECK(keysyms("a") == Keys{'a'});
    CHECK(keysyms("A") == Keys{'A'});
    CHECK(keysyms("1") == Keys{'1'});
    CHECK(keysyms("ctrl+é") == Keys{XK_Control_L, 0xe9});
    CHECK(keysyms("你") == Keys{0x01004f60});
    CHECK(keysyms("plus") == Keys{XK_plus});
}

TEST_CASE("parseKeyCombo: the plus key", "[keycombo]") {
    CHECK(keysyms("ctrl++") == Keys{XK_Control_L, '+'});
    CHECK(keysyms("+") == Keys{'+'});
    CHECK(keysyms("ctrl+shift++") == Keys{XK_Control_L, XK_Shift_L, '+'});
}

TEST_CASE("parseKeyCombo: errors name the key and the combo", "[keycombo]") {
    CHECK(errorOf("ctrl+foo-bar") ==
          "unknown key \"foo-bar\" in key combo \"ctrl+foo-bar\" (expected a key name such as "
          "ctrl, shift, Return, F5, a keysym name or one character)");
    CHECK_THAT(errorOf("F36"), Catch::Contains("unknown key \"F36\""));
    CHECK_THAT(errorOf("shift+f0"), Catch::Contains("unknown key \"f0\""));
    CHECK_THAT(errorOf(""), Catch::Contains("empty key combo"));
    CHECK_THAT(errorOf("ctrl+"), Catch::Contains("empty key name"));
    CHECK_THAT(errorOf("ctrl+"), Catch::Contains("\"ctrl+\""));
    CHECK_THAT(errorOf("ctrl++x"), Catch::Contains("\"ctrl++x\""));
    CHECK_THROWS_AS(parseKeyCombo("ctrl+\xff"), std::invalid_argument);
}

TEST_CASE("parseKeyCombo: neutral keys", "[keycombo]") {
    using K = KeyName;
    CHECK(parseKeyCombo("ctrl+shift+t") ==
          std::vector<Key>{Key::named(K::Control), Key::named(K::Shift), Key::character(U't')});
    CHECK(parseKeyCombo("alt+F4") == std::vector<Key>{Key::named(K::Alt), Key::named(K::F4)});
    CHECK(parseKeyCombo("Control_R+Page_Up") ==
          std::vector<Key>{Key::named(K::ControlRight), Key::named(K::PageUp)});
    CHECK(parseKeyCombo("kp_add+KP_7") ==
          std::vector<Key>{Key::named(K::KeypadAdd), Key::named(K::Keypad7)});
    CHECK(parseKeyCombo("XF86AudioRaiseVolume") == std::vector<Key>{Key::named(K::AudioRaiseVolume)});
    CHECK(parseKeyCombo("space+plus+é") ==
          std::vector<Key>{Key::character(U' '), Key::character(U'+'), Key::character(U'é')});
    // A name eacu does not know is kept for the backend; not turned into a character.
    CHECK(parseKeyCombo("ctrl+dead_acute") ==
          std::vector<Key>{Key::named(K::Control), Key::platform("dead_acute")});
    CHECK(parseKeyCombo("ctrl+foo") == std::vector<Key>{Key::named(K::Control), Key::platform("foo")});
    CHECK(describeKey(Key::named(K::PageDown)) == "PageDown");
    CHECK(describeKey(Key::character(U'你')) == "你");
    CHECK(describeKey(Key::character(U'\t')) == "U+0009");
    CHECK(describeKey(Key::platform("dead_acute")) == "dead_acute");
    CHECK(functionKey(35) == K::F35);
    CHECK_FALSE(functionKey(36));
    CHECK(keyNameFromText("PGDN") == K::PageDown);
    CHECK_FALSE(keyNameFromText("space"));
}

TEST_CASE("X11 keysyms of neutral keys: every named key maps, unknown names are refused", "[keycombo]") {
    for (int k = 0; k <= int(KeyName::AudioPrev); ++k) CHECK(keysymFor(Key::named(KeyName(k))) != 0);
    CHECK(keysymFor(Key::named(KeyName::PageUp)) == XK_Prior);
    CHECK(keysymFor(Key::platform("dead_acute")) == XK_dead_acute);
    CHECK(keysymFor(Key::platform("eacute")) == 0xe9);
    CHECK(keysymFor(Key::platform("comma")) == ',');
    CHECK_THROWS_AS(keysymFor(Key::platform("foo")), std::invalid_argument);
    CHECK_THROWS_WITH(keysymFor(Key::platform("foo")),
                      "unknown key \"foo\" (expected a key name such as ctrl, shift, Return, F5, an "
                      "X11 keysym name or one character)");
}

TEST_CASE("ImageDevice: keys as text; platform key names refused before any event", "[keycombo]") {
    ImageDevice dev(std::string(EACU_FIXTURES) + "/xcalc.png");
    dev.keyCombo(parseKeyCombo("ctrl+shift+t"));
    dev.keyCombo(parseKeyCombo("ctrl++"));
    dev.click(MouseButton::Right, 1);
    REQUIRE(dev.events().size() == 3);
    CHECK(dev.events()[0] == "key Control Shift t");
    CHECK(dev.events()[1] == "key Control +");
    CHECK(dev.events()[2] == "click 3 x1 at 0,0");
    CHECK_THROWS_AS(dev.keyCombo(parseKeyCombo("ctrl+nokey")), std::invalid_argument);
    CHECK_THROWS_WITH(dev.keyCombo(parseKeyCombo("ctrl+nokey")), Catch::StartsWith("unknown key \"nokey\""));
    CHECK(dev.events().size() == 3);
}

TEST_CASE("mouse buttons: run-log numbers are fixed", "[keycombo]") {
    CHECK(buttonNumber(MouseButton::Left) == 1);
    CHECK(buttonNumber(MouseButton::Middle) == 2);
    CHECK(buttonNumber(MouseButton::Right) == 3);
    for (MouseButton b : {MouseButton::Left, MouseButton::Middle, MouseButton::Right})
        CHECK(buttonFromNumber(buttonNumber(b)) == b);
    CHECK_THROWS_WITH(buttonFromNumber(4),
                      "mouse button: expected 1 (left), 2 (middle) or 3 (right), got 4");
}

TEST_CASE("keysymForCodepoint", "[keycombo]") {
    CHECK(keysymForCodepoint('a') == 0x61);
    CHECK(keysymForCodepoint(U'é') == 0xe9);
    CHECK(keysymForCodepoint(U'你') == 0x01004f60);
    CHECK(keysymForCodepoint(U'€') == 0x010020ac);
    CHECK(keysymForCodepoint(0x1f600) == 0x0101f600);
    CHECK(keysymForCodepoint('\n') == XK_Return);
    CHECK(keysymForCodepoint('\t') == XK_Tab);
}

TEST_CASE("decodeUtf8: valid text", "[keycombo]") {
    CHECK(decodeUtf8("") == U32{});
    CHECK(decodeUtf8("ab") == U32{'a', 'b'});
    CHECK(decodeUtf8("é你😀") == U32{0xe9, 0x4f60, 0x1f600});
    CHECK(decodeUtf8("你好, eacu 123").size() == 12);
    CHECK(decodeUtf8("\xf4\x8f\xbf\xbf") == U32{0x10ffff});
    CHECK(decodeUtf8("\xed\x9f\xbf") == U32{0xd7ff});
}

TEST_CASE("decodeUtf8: strict errors with byte offsets", "[keycombo]") {
    // overlong encodings
    CHECK(utf8ErrorOf("ab\xc0\xaf") == "invalid UTF-8 at byte 2: overlong encoding");
    CHECK_THAT(utf8ErrorOf("\xe0\x80\xaf"), Catch::Contains("byte 0: overlong"));
    CHECK_THAT(utf8ErrorOf("x\xf0\x80\x80\xaf"), Catch::Contains("byte 1: overlong"));
    // surrogates
    CHECK_THAT(utf8ErrorOf("abc\xed\xa0\x80"), Catch::Contains("byte 3: UTF-16 surrogate"));
    // truncated sequences
    CHECK_THAT(utf8ErrorOf("\xe4\xbd"), Catch::Contains("byte 0: truncated"));
    CHECK_THAT(utf8ErrorOf("a\xe4\xbd" "b"), Catch::Contains("byte 3: truncated"));
    // stray continuation, invalid lead, beyond U+10FFFF
    CHECK_THAT(utf8ErrorOf("ok\x80"), Catch::Contains("byte 2: unexpected continuation"));
    CHECK_THAT(utf8ErrorOf("\xff"), Catch::Contains("byte 0: invalid lead byte"));
    CHECK_THAT(utf8ErrorOf("\xf4\x90\x80\x80"), Catch::Contains("above U+10FFFF"));
}
