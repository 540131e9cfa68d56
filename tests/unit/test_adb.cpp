// The adb device's pure parts: specs, the display info, shell v2 packets, key codes and
// `input text` escaping, uiautomator XML, the touchscreen of getevent -pl and its sendevent
// lines, and a server that is not there.
#include <catch2/catch.hpp>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <memory>
#include <string>

#include "base/Clock.h"
#include "device/Device.h"
#include "device/DeviceWait.h"
#include "device/DeviceFactory.h"
#include "device/adb/AdbClient.h"
#include "device/adb/AdbDevice.h"
#include "device/adb/AdbKeys.h"
#include "device/adb/AdbProtocol.h"
#include "device/adb/AdbTouch.h"
#include "device/adb/RawScreencap.h"
#include "device/adb/UiautomatorXml.h"
#include "step/A11yTarget.h"

using namespace eacu;

TEST_CASE("parseDeviceSpec: adb and adb:SERIAL", "[adb]") {
    DeviceSpec d = parseDeviceSpec("adb");
    CHECK(d.kind == DeviceSpec::Kind::Adb);
    CHECK(d.serial.empty());
    d = parseDeviceSpec("adb:127.0.0.1:5555");
    CHECK(d.kind == DeviceSpec::Kind::Adb);
    CHECK(d.serial == "127.0.0.1:5555");
    CHECK_THROWS_WITH(parseDeviceSpec("adb:"), Catch::Contains("expected adb:SERIAL"));
    CHECK(specForRecordedDevice("adb emulator-5554 Pixel 7 1080x2400@2.625 (sdk 34)") == "adb:emulator-5554");
}

TEST_CASE("parseAndroidInfo: sizes, overrides, density and rotation", "[adb]") {
    AndroidInfo i = parseAndroidInfo("30\nPixel 7\nPhysical size: 1080x2400\nPhysical density: 420\n"
                                     "    SurfaceOrientation: 0\n", "s");
    CHECK(i.sdk == 30);
    CHECK(i.model == "Pixel 7");
    CHECK(i.size == Size{1080, 2400});
    CHECK(i.density == 420);
    i = parseAndroidInfo("34\nX\nPhysical size: 1080x2400\nOverride size: 720x1600\nPhysical density: 420\n"
                         "Override density: 320\n  SurfaceOrientation: 1\n", "s");
    CHECK(i.size == Size{1600, 720});
    CHECK(i.density == 320);
    CHECK(i.rotation == 1);
    CHECK_THROWS_WITH(parseAndroidInfo("30\nX\n", "emu"), Catch::Contains("adb emu: expected the screen size"));
}

TEST_CASE("parseOrientation: the formats of Android 12, 13-14 and 15", "[adb]") {
    CHECK(parseOrientation("    SurfaceOrientation: 3\n") == 3);
    CHECK(parseOrientation("      InputDeviceOrientation: 1\n") == 1);
    CHECK(parseOrientation("      InputDeviceOrientation: Rotation270\n") == 3);
    CHECK(parseOrientation("      InputDeviceOrientation: Rotation0\n") == 0);
    CHECK(parseOrientation("no orientation here") == 0);
    AndroidInfo i = parseAndroidInfo("34\nX\nPhysical size: 1080x2400\nPhysical density: 420\n"
                                     "      InputDeviceOrientation: 1\n", "s");
    CHECK(i.size == Size{2400, 1080});
}

TEST_CASE("shell v2 packets: stdout, stderr and the exit status", "[adb]") {
    std::string s = std::string("\x01\x03\0\0\0out", 8) + std::string("\x02\x02\0\0\0er", 7) +
                    std::string("\x03\x01\0\0\0\x07", 6);
    AdbShellResult r = AdbClient::parseShellV2(s);
    CHECK(r.out == "out");
    CHECK(r.err == "er");
    CHECK(r.exit_code == 7);
}

TEST_CASE("input text: Android's escaping and sh quoting", "[adb]") {
    CHECK(asciiTextCommands("a b") == std::vector<std::string>{"input text 'a%sb'"});
    CHECK(asciiTextCommands("it's") == std::vector<std::string>{"input text 'it'\\''s'"});
    // A typed "%s" is cut in two commands so that it is not read as a space.
    CHECK(asciiTextCommands("5%s") == std::vector<std::string>{"input text '5%'", "input text 's'"});
    CHECK(asciiTextCommands("a\nb") ==
          std::vector<std::string>{"input text 'a'", "input keyevent 66", "input text 'b'"});
    CHECK(isTypableAscii("hello, world!"));
    CHECK_FALSE(isTypableAscii("你好"));
    CHECK_THROWS_AS(asciiTextCommands("é"), std::invalid_argument);
}

TEST_CASE("androidKeyCode: named keys, characters, Android's own keys", "[adb]") {
    CHECK(androidKeyCode(Key::named(KeyName::Return)) == "66");
    CHECK(androidKeyCode(Key::named(KeyName::Home)) == "3");
    CHECK(androidKeyCode(Key::named(KeyName::F1)) == "131");
    CHECK(androidKeyCode(Key::character('a')) == "29");
    CHECK(androidKeyCode(Key::character('A')) == "29");
    CHECK(needsShift(Key::character('A')));
    CHECK(androidKeyCode(Key::platform("back")) == "4");
    CHECK(androidKeyCode(Key::platform("app_switch")) == "187");
    CHECK(androidKeyCode(Key::platform("KEYCODE_CAMERA")) == "KEYCODE_CAMERA");
    CHECK(androidKeyCode(Key::platform("26")) == "26");
    CHECK_THROWS_WITH(androidKeyCode(Key::platform("foo")), Catch::Contains("unknown key \"foo\""));
    CHECK_THROWS_AS(androidKeyCode(Key::character(U'é')), std::invalid_argument);
}

TEST_CASE("uiautomator XML: roles, names, ids, bounds, states, packages", "[adb]") {
    const std::string xml =
        "<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation=\"0\">"
        "<node index=\"0\" text=\"\" resource-id=\"\" class=\"android.widget.FrameLayout\" package=\"com.example.chat\" "
        "content-desc=\"\" clickable=\"false\" enabled=\"true\" focusable=\"false\" focused=\"false\" "
        "bounds=\"[0,0][1080,2400]\">"
        "<node index=\"0\" text=\"发送\" resource-id=\"com.example.chat:id/send\" class=\"android.widget.Button\" "
        "package=\"com.example.chat\" content-desc=\"send it\" clickable=\"true\" long-clickable=\"true\" enabled=\"true\" "
        "focusable=\"true\" focused=\"false\" bounds=\"[820,2200][1060,2360]\" />"
        "<node index=\"1\" text=\"\" resource-id=\"com.example.chat:id/input\" class=\"android.widget.EditText\" "
        "package=\"com.example.chat\" content-desc=\"\" clickable=\"true\" enabled=\"true\" focused=\"true\" "
        "bounds=\"[20,2200][800,2360]\" />"
        "<node index=\"2\" text=\"\" resource-id=\"\" class=\"android.widget.ImageView\" package=\"com.example.chat\" "
        "content-desc=\"avatar\" bounds=\"[0,0][0,0]\" />"
        "</node>"
        "<node index=\"1\" text=\"\" resource-id=\"\" class=\"android.widget.FrameLayout\" package=\"com.android.systemui\" "
        "content-desc=\"\" bounds=\"[0,0][1080,80]\" />"
        "</hierarchy>";
    A11yElement root = parseUiautomatorXml(xml);
    CHECK(root.role == "desktop frame");
    REQUIRE(root.children.size() == 2);
    CHECK(root.children[0].role == "application");
    CHECK(root.children[0].app == "com.example.chat");
    CHECK(root.children[1].app == "com.android.systemui");
    const A11yElement& frame = root.children[0].children.at(0);
    CHECK(frame.role == "panel");
    CHECK(frame.path == std::vector<int>{0, 0});
    const A11yElement& send = frame.children.at(0);
    CHECK(send.role == "push button");
    CHECK(send.name == "发送");
    CHECK(send.description == "send it");
    CHECK(send.id == "com.example.chat:id/send");
    CHECK(send.bounds == Rect{820, 2200, 240, 160});
    CHECK(send.actions == std::vector<std::string>{"click", "long_click"});
    CHECK(send.has("showing"));
    CHECK(send.path == std::vector<int>{0, 0, 0});
    const A11yElement& input = frame.children.at(1);
    CHECK(input.role == "text");
    CHECK(input.editable_text);
    CHECK(input.has("focused"));
    CHECK(frame.children.at(2).name == "avatar");
    CHECK_FALSE(frame.children.at(2).has("showing"));

    // Targets: by resource_id (whole or after ":id/"), role "button" for a push button.
    A11yQuery q;
    q.id = "send";
    CHECK(findElement(root, q).element->name == "发送");
    q.id = "com.example.chat:id/input";
    CHECK(findElement(root, q).element->role == "text");
    A11yQuery b;
    b.role = "button";
    b.name = "发送";
    CHECK(findElement(root, b).element->id == "com.example.chat:id/send");
    A11yQuery none;
    none.id = "nothing";
    CHECK_FALSE(findElement(root, none).element);
    CHECK_THAT(findElement(root, none).why, Catch::Contains("resource_id=\"nothing\""));

    CHECK_THROWS_WITH(parseUiautomatorXml("ERROR: could not get idle state."), Catch::Contains("uiautomator dump"));
    CHECK_THROWS_WITH(parseUiautomatorXml("<foo/>"), Catch::Contains("expected a <hierarchy>"));
}

TEST_CASE("AdbDevice::open: no adb server on the port", "[adb]") {
    // Port 1 on the loopback: nothing listens there.
    CHECK_THROWS_WITH(AdbDevice::open("emulator-5554", 1), Catch::Contains("no adb server on 127.0.0.1:1"));
    CHECK_THROWS_WITH(listAdbDevices(1), Catch::Contains("adb start-server"));
}

TEST_CASE("explainAdbState: offline and unauthorized explained", "[adb]") {
    CHECK(explainAdbState("device").empty());
    CHECK_THAT(explainAdbState("unauthorized"), Catch::Contains("Allow USB debugging"));
    CHECK_THAT(explainAdbState("offline"), Catch::Contains("adb reconnect"));
}

namespace {
ByteReader bufferReader(std::string bytes) { return bytesReader(std::move(bytes), "test"); }
}  // namespace

TEST_CASE("adb host protocol: OKAY, FAIL with its reason, hex lengths", "[adb]") {
    CHECK(parseHex4("001a") == 26);
    CHECK(parseHex4("FFFF") == 65535);
    CHECK(parseHex4("-001") == -1);
    CHECK(parseHex4(" 1a2") == -1);
    CHECK(parseHex4("12") == -1);
    CHECK_NOTHROW(readHostStatus(bufferReader("OKAY"), "adb s", "host:version"));
    CHECK_THROWS_WITH(readHostStatus(bufferReader("FAIL0010device not found"), "adb s", "host:transport:s"),
                      "adb s: host:transport:s: device not found");
    CHECK_THROWS_WITH(readHostStatus(bufferReader("FAIL+010device"), "adb s", "r"),
                      Catch::Contains("expected 4 hex digits of length") && Catch::Contains("+010"));
    CHECK_THROWS_WITH(readHostStatus(bufferReader("OK\x01Y"), "adb s", "r"),
                      Catch::Contains("expected OKAY or FAIL") && Catch::Contains("OK\\x01Y"));
    CHECK(readHostFramed(bufferReader("0003abc"), "adb server") == "abc");
}

TEST_CASE("adb shell v2 and sync framing: cut packets wait, oversized ones are refused", "[adb]") {
    std::string buf = std::string("\x01\x02\0\0\0ab", 7) + std::string("\x01\x05\0\0\0cd", 7);
    std::vector<ShellPacket> p = takeShellPackets(buf, "adb s");
    REQUIRE(p.size() == 1);
    CHECK(p[0].data == "ab");
    CHECK(buf.size() == 7);  // the cut packet stays
    buf = std::string("\x01\xff\xff\xff\xff", 5);
    CHECK_THROWS_WITH(takeShellPackets(buf, "adb s"), Catch::Contains("at most 1 MiB"));
    const std::string data = "DATA" + le32Bytes(3) + "abc" + "DATA" + le32Bytes(1) + "d" + "DONE" + le32Bytes(0);
    CHECK(readSyncRecv(bufferReader(data), "adb s: pull f") == "abcd");
    CHECK_THROWS_WITH(readSyncRecv(bufferReader("FAIL" + le32Bytes(7) + "no file"), "adb s: pull f"),
                      "adb s: pull f: no file");
    CHECK_THROWS_WITH(readSyncRecv(bufferReader("DATA" + le32Bytes(1u << 30)), "adb s: pull f"),
                      Catch::Contains("at most 64 KiB"));
    CHECK(readSyncStat(bufferReader("STAT" + le32Bytes(0100644) + le32Bytes(5) + le32Bytes(0)), "s") == 0100644);
    CHECK_THROWS_WITH(readSyncDone(bufferReader("WHAT" + le32Bytes(0)), "adb s: push f"), Catch::Contains("expected OKAY"));
}

TEST_CASE("raw screencap: a header that does not fit the bytes gives no frame", "[adb]") {
    std::string ok = le32Bytes(2) + le32Bytes(1) + le32Bytes(1) + le32Bytes(0) + std::string(8, '\x7f');
    CHECK(decodeRawScreencap(ok).width() == 2);
    CHECK(decodeRawScreencap(le32Bytes(0xffffffff) + le32Bytes(0xffffffff) + le32Bytes(1) + le32Bytes(0)).empty());
    CHECK(decodeRawScreencap(le32Bytes(2) + le32Bytes(1) + le32Bytes(7) + le32Bytes(0) + std::string(8, '\0')).empty());
    CHECK(decodeRawScreencap("short").empty());
}

TEST_CASE("adb connection: a server that accepts and never answers ends the request at its bound", "[adb]") {
    const int srv = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    REQUIRE(::bind(srv, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0);
    REQUIRE(::listen(srv, 4) == 0);
    socklen_t len = sizeof a;
    ::getsockname(srv, reinterpret_cast<sockaddr*>(&a), &len);
    const double t0 = monotonicSeconds();
    // The kernel accepts the connection; nobody reads or answers it.
    CHECK_THROWS_AS(AdbClient("emu", ntohs(a.sin_port)).exec("screencap", 0.4), DeviceStalled);
    try {
        AdbClient("emu", ntohs(a.sin_port)).exec("screencap", 0.4);
    } catch (const DeviceStalled& e) {
        CHECK_THAT(e.what(), Catch::StartsWith("adb emu: screencap: no answer within 0.") &&
                                 Catch::Contains("(its own limit)"));
    }
    CHECK(monotonicSeconds() - t0 < 2);
    ::close(srv);
}

TEST_CASE("uiautomator XML: bounds that overflow or are not corners give no bounds", "[adb]") {
    auto boundsOf = [](const std::string& b) {
        const A11yElement root = parseUiautomatorXml(
            "<hierarchy rotation=\"0\"><node class=\"android.widget.Button\" package=\"p\" bounds=\"" + b + "\" /></hierarchy>",
            A11yScope{});
        REQUIRE(root.children.size() == 1);
        REQUIRE(root.children[0].children.size() == 1);
        return root.children[0].children[0].bounds;
    };
    CHECK(boundsOf("[10,20][110,70]") == Rect{10, 20, 100, 50});
    CHECK(boundsOf("[-20,0][10,10]") == Rect{-20, 0, 30, 10});
    CHECK(boundsOf("[-2000000000,0][2000000000,10]").empty());  // its width overflows an int
    CHECK(boundsOf("[0,0][99999999999,10]").empty());            // a corner no int holds
    CHECK(boundsOf("[0,0][40000,40000]").empty());               // its area would overflow
    CHECK(boundsOf("[0,0][10,10").empty());
    CHECK(boundsOf("[0,0][10,10]x").empty());
    CHECK(boundsOf("[10,10][0,0]").empty());
}

// `getevent -pl` as AOSP toolbox getevent.c prints it: a keys device, a touchpad (no
// INPUT_PROP_DIRECT), then the touchscreen with axes that are not the screen's pixels.
static const char* kGetevent =
    "add device 1: /dev/input/event0\n"
    "  name:     \"gpio-keys\"\n"
    "  events:\n"
    "    KEY (0001): KEY_VOLUMEDOWN        KEY_VOLUMEUP          KEY_POWER\n"
    "  input props:\n"
    "    <none>\n"
    "add device 2: /dev/input/event1\n"
    "  name:     \"touchpad\"\n"
    "  events:\n"
    "    ABS (0003): ABS_MT_POSITION_X     : value 0, min 0, max 999, fuzz 0, flat 0, resolution 0\n"
    "                ABS_MT_POSITION_Y     : value 0, min 0, max 999, fuzz 0, flat 0, resolution 0\n"
    "                ABS_MT_TRACKING_ID    : value 0, min 0, max 65535, fuzz 0, flat 0, resolution 0\n"
    "  input props:\n"
    "    INPUT_PROP_POINTER\n"
    "add device 3: /dev/input/event4\n"
    "  name:     \"fts_ts\"\n"
    "  events:\n"
    "    KEY (0001): KEY_WAKEUP            BTN_TOOL_FINGER       BTN_TOUCH*\n"
    "    ABS (0003): ABS_MT_SLOT           : value 0, min 0, max 9, fuzz 0, flat 0, resolution 0\n"
    "                ABS_MT_TOUCH_MAJOR    : value 0, min 0, max 255, fuzz 0, flat 0, resolution 0\n"
    "                ABS_MT_POSITION_X     : value 0, min 0, max 4095, fuzz 0, flat 0, resolution 0\n"
    "                ABS_MT_POSITION_Y     : value 0, min 0, max 8191, fuzz 0, flat 0, resolution 0\n"
    "                ABS_MT_TRACKING_ID    : value 0, min 0, max 65535, fuzz 0, flat 0, resolution 0\n"
    "                ABS_MT_PRESSURE       : value 0, min 0, max 127, fuzz 0, flat 0, resolution 0\n"
    "  input props:\n"
    "    INPUT_PROP_DIRECT\n";

TEST_CASE("getevent -pl: the direct multi-touch device, its axes, none when there is none", "[adb]") {
    std::optional<Touchscreen> t = parseTouchscreen(kGetevent);
    REQUIRE(t);
    CHECK(t->path == "/dev/input/event4");
    CHECK(t->name == "fts_ts");
    CHECK(t->x.max == 4095);
    CHECK(t->y.max == 8191);
    CHECK(t->tracking.max == 65535);
    REQUIRE(t->pressure);
    CHECK(t->pressure->max == 127);
    CHECK(t->touch_major);
    CHECK(t->slot);
    CHECK(t->btn_touch);
    CHECK_FALSE(parseTouchscreen("add device 1: /dev/input/event0\n  name:     \"gpio-keys\"\n"));
    CHECK_FALSE(parseTouchscreen(""));
}

TEST_CASE("touchAxes: screen pixels onto the panel's axes, by rotation", "[adb]") {
    Touchscreen t = *parseTouchscreen(kGetevent);  // 4096 x 8192 axis values on a 1080x2400 panel
    // Upright: the pixel's centre scaled.
    CHECK(touchAxes(t, {0, 0}, {1080, 2400}, 0) == Point{1, 1});
    CHECK(touchAxes(t, {540, 1200}, {1080, 2400}, 0) == Point{2049, 4097});
    CHECK(touchAxes(t, {1079, 2399}, {1080, 2400}, 0) == Point{4094, 8190});
    // Turned a quarter (the screen 2400x1080): its top-left is the panel's top-right, its
    // bottom-left the panel's top-left (TouchInputMapper: x = raw y, y = width - raw x).
    CHECK(touchAxes(t, {0, 0}, {2400, 1080}, 1) == Point{4094, 1});
    CHECK(touchAxes(t, {0, 1079}, {2400, 1080}, 1) == Point{1, 1});
    CHECK(touchAxes(t, {2399, 0}, {2400, 1080}, 3) == Point{1, 1});
    CHECK(touchAxes(t, {0, 0}, {1080, 2400}, 2) == Point{4094, 8190});
    // Outside the screen: clamped to it.
    CHECK(touchAxes(t, {-5, 9999}, {1080, 2400}, 0) == Point{1, 8190});
}

TEST_CASE("touchCommand: protocol type B through sendevent, tap, hold and swipe", "[adb]") {
    Touchscreen t = *parseTouchscreen(kGetevent);
    const std::string dev = "sendevent /dev/input/event4 ";
    CHECK(touchCommand(t, {{100, 200}}, 0, 7) ==
          dev + "3 47 0 && " + dev + "3 57 7 && " + dev + "3 53 100 && " + dev + "3 54 200 && " + dev + "3 58 63 && " +
              dev + "3 48 5 && " + dev + "1 330 1 && " + dev + "0 0 0 && " + dev + "3 57 -1 && " + dev + "1 330 0 && " +
              dev + "0 0 0");
    // A hold: the finger stays down.
    CHECK(touchCommand(t, {{1, 2}}, 700, 8).find(dev + "0 0 0 && sleep 0.700 && " + dev + "3 57 -1") != std::string::npos);
    // A swipe: a move after each pause, then up at once.
    const std::string swipe = touchCommand(t, {{1, 2}, {3, 4}}, 50, 9);
    CHECK(swipe.find("sleep 0.050 && " + dev + "3 53 3 && " + dev + "3 54 4 && " + dev + "0 0 0 && " + dev + "3 57 -1") !=
          std::string::npos);
    // A device with no pressure, size, slot or BTN_TOUCH gets none of them; ids wrap in their range.
    Touchscreen bare = t;
    bare.pressure.reset();
    bare.touch_major.reset();
    bare.slot = bare.btn_touch = false;
    bare.tracking = {0, 9};
    CHECK(touchCommand(bare, {{5, 6}}, 0, 12) == dev + "3 57 2 && " + dev + "3 53 5 && " + dev + "3 54 6 && " + dev +
                                                   "0 0 0 && " + dev + "3 57 -1 && " + dev + "0 0 0");
    CHECK_THROWS_AS(touchCommand(t, {}, 0, 1), std::invalid_argument);
}
