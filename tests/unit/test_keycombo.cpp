// Key combo parsing, keysyms of code points and strict UTF-8 decoding.
#include <X11/keysym.h>

#include <catch2/catch.hpp>
#include <stdexcept>
#include <string>

#include "base/Utf8.h"
#include "device/KeyCombo.h"

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
}  // namespace

TEST_CASE("parseKeyCombo: modifiers and keys in press order", "[keycombo]") {
    CHECK(parseKeyCombo("ctrl+shift+t") == Keys{XK_Control_L, XK_Shift_L, 't'});
    CHECK(parseKeyCombo("alt+F4") == Keys{XK_Alt_L, XK_F4});
    CHECK(parseKeyCombo("Return") == Keys{XK_Return});
    CHECK(parseKeyCombo("super") == Keys{XK_Super_L});
    CHECK(parseKeyCombo("ctrl+s") == Keys{XK_Control_L, 's'});
}

TEST_CASE("parseKeyCombo: aliases are case-insensitive", "[keycombo]") {
    CHECK(parseKeyCombo("CTRL+Alt+DEL") == Keys{XK_Control_L, XK_Alt_L, XK_Delete});
    CHECK(parseKeyCombo("Control+Shift+Escape") == Keys{XK_Control_L, XK_Shift_L, XK_Escape});
    for (const char* s : {"super", "win", "cmd", "META"}) CHECK(parseKeyCombo(s) == Keys{XK_Super_L});
    CHECK(parseKeyCombo("enter") == Keys{XK_Return});
    CHECK(parseKeyCombo("esc") == Keys{XK_Escape});
    CHECK(parseKeyCombo("Tab") == Keys{XK_Tab});
    CHECK(parseKeyCombo("space") == Keys{XK_space});
    CHECK(parseKeyCombo("BackSpace") == Keys{XK_BackSpace});
    CHECK(parseKeyCombo("ins") == Keys{XK_Insert});
    CHECK(parseKeyCombo("home+end") == Keys{XK_Home, XK_End});
    CHECK(parseKeyCombo("pgup") == Keys{XK_Prior});
    CHECK(parseKeyCombo("PageDown") == Keys{XK_Next});
    CHECK(parseKeyCombo("up+down+left+right") == Keys{XK_Up, XK_Down, XK_Left, XK_Right});
    CHECK(parseKeyCombo("capslock") == Keys{XK_Caps_Lock});
    CHECK(parseKeyCombo("printscreen") == Keys{XK_Print});
    CHECK(parseKeyCombo("menu") == Keys{XK_Menu});
}

TEST_CASE("parseKeyCombo: function keys F1..F35", "[keycombo]") {
    CHECK(parseKeyCombo("F5") == Keys{XK_F5});
    CHECK(parseKeyCombo("f5") == Keys{XK_F5});
    CHECK(parseKeyCombo("f1") == Keys{XK_F1});
    CHECK(parseKeyCombo("F35") == Keys{XK_F35});
    CHECK(parseKeyCombo("shift+f12") == Keys{XK_Shift_L, XK_F12});
}

TEST_CASE("parseKeyCombo: keysym names and single characters", "[keycombo]") {
    CHECK(parseKeyCombo("KP_Add") == Keys{XK_KP_Add});
    CHECK(parseKeyCombo("XF86AudioMute") == Keys{0x1008ff12});
    CHECK(parseKeyCombo("prior") == Keys{XK_Prior});  // capitalised retry: "Prior"
    CHECK(parseKeyCombo("a") == Keys{'a'});
    CHECK(parseKeyCombo("A") == Keys{'A'});
    CHECK(parseKeyCombo("1") == Keys{'1'});
    CHECK(parseKeyCombo("ctrl+é") == Keys{XK_Control_L, 0xe9});
    CHECK(parseKeyCombo("你") == Keys{0x01004f60});
    CHECK(parseKeyCombo("plus") == Keys{XK_plus});
}

TEST_CASE("parseKeyCombo: the plus key", "[keycombo]") {
    CHECK(parseKeyCombo("ctrl++") == Keys{XK_Control_L, '+'});
    CHECK(parseKeyCombo("+") == Keys{'+'});
    CHECK(parseKeyCombo("ctrl+shift++") == Keys{XK_Control_L, XK_Shift_L, '+'});
}

TEST_CASE("parseKeyCombo: errors name the key and the combo", "[keycombo]") {
    CHECK(errorOf("ctrl+foo") ==
          "unknown key \"foo\" in key combo \"ctrl+foo\" (expected a key name such as ctrl, "
          "shift, Return, F5, a keysym name or one character)");
    CHECK_THAT(errorOf("F36"), Catch::Contains("unknown key \"F36\""));
    CHECK_THAT(errorOf(""), Catch::Contains("empty key combo"));
    CHECK_THAT(errorOf("ctrl+"), Catch::Contains("empty key name"));
    CHECK_THAT(errorOf("ctrl+"), Catch::Contains("\"ctrl+\""));
    CHECK_THAT(errorOf("ctrl++x"), Catch::Contains("\"ctrl++x\""));
    CHECK_THROWS_AS(parseKeyCombo("ctrl+\xff"), std::invalid_argument);
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
