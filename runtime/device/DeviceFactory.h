// Opening a device from a spec: ":N" (an X display), "virtual[:WxH]" (a private Xvfb),
// "image:PATH" (a static screenshot), "chromium[:WxH[@S]]" (a page of a headless Chromium
// started for it), "cdp:http://HOST:PORT" (a page of a running Chromium), "adb[:SERIAL]" (an
// Android device through the adb server), "agent:HOST:PORT" (a device agent such as
// eacu-agent.exe on Windows), "" ($DISPLAY).
#pragma once
#include <map>
#include <memory>
#include <string>

#include "device/Device.h"
#include "device/virtual/VirtualDisplay.h"

namespace eacu {

/// A parsed device spec.
/// - Kind::X11: an existing X display; `display` is its name (":1", ":0.0", "host:10.0"),
///   "" for $DISPLAY.
/// - Kind::Virtual: a private Xvfb of `size` pixels (default 1280x800).
/// - Kind::Image: the screenshot at `image` (PNG or JPEG).
/// - Kind::Chromium: a page of a headless Chromium eacu starts; `size` is its viewport in CSS
///   pixels (default 1280x800) and `scale` its device scale factor (default 1), so frames are
///   size × scale physical pixels.
/// - Kind::Cdp: a page of the Chromium at the DevTools endpoint `endpoint`
///   ("http://127.0.0.1:9222"), with `size` and `scale` as for Kind::Chromium.
/// - Kind::Adb: the Android device `serial` through the adb server ("" for the only one).
/// - Kind::Agent: the device agent at `endpoint` ("HOST:PORT", docs/agent-protocol.md).
struct DeviceSpec {
    enum class Kind { X11, Virtual, Image, Chromium, Cdp, Adb, Agent };
    Kind kind = Kind::X11;
    std::string display;
    Size size{1280, 800};
    std::string image;
    double scale = 1.0;
    std::string endpoint;
    std::string serial;
};

/// Parses a device spec: "" ($DISPLAY), ":N" or any X display name "[host]:N[.S]",
/// "virtual", "virtual:WxH" (each side at least 64 pixels), "image:PATH", "chromium",
/// "chromium:WxH" or "chromium:WxH@S" (S a device scale factor in [0.5, 4]), or
/// "cdp:http://HOST:PORT" (optionally followed by "#WxH" or "#WxH@S"), "adb" or "adb:SERIAL"
/// (a serial as `adb devices` lists it, "emulator-5554", "127.0.0.1:5555"), or "agent:HOST:PORT"
/// (PORT 1..65535; HOST a name, an IPv4 address or [IPv6]). Throws
/// std::invalid_argument for anything else, e.g. `device: expected :N, virtual[:WxH],
/// image:PATH, chromium[:WxH[@S]] or cdp:http://HOST:PORT, got "foo"`, and for a bad size,
/// scale, URL or an empty path.
DeviceSpec parseDeviceSpec(const std::string& spec);

/// The spec that opens again the kind of device a run was recorded on, from the device's
/// describe() text in the run log: "chromium headless 1024x700@2 (pid 9)" → "chromium:1024x700@2",
/// "cdp http://127.0.0.1:9222 page 1280x800@1" → "cdp:http://127.0.0.1:9222#1280x800@1",
/// "adb emulator-5554 Pixel 1080x2400@2.625 (sdk 34)" → "adb:emulator-5554".
/// "agent 127.0.0.1:7878 windows 6.1.7601 1280x800 dpi 96" → "agent:127.0.0.1:7878".
/// "" for other devices (an X display is named by --display or $DISPLAY at replay time).
std::string specForRecordedDevice(const std::string& described);

/// An open device and what it needs. `virtual_display` (for "virtual") is declared first, so
/// it is destroyed last: the X connection closes before its Xvfb stops. `display` is the X
/// display name that programs the run launches must be given (e.g. ":99"; "" for an image
/// device); the process's own $DISPLAY is left unchanged.
/// `env`: the environment programs the run launches get on top of this process's own: DISPLAY,
/// and for a virtual display its private session and accessibility buses (SessionBus::environment).
struct DeviceHandle {
    std::unique_ptr<VirtualDisplay> virtual_display;
    std::unique_ptr<Device> device;
    std::string display;
    std::map<std::string, std::string> env;
};

/// Opens the device named by `spec` (see parseDeviceSpec). For "virtual", a private session
/// bus with the AT-SPI2 accessibility bus is started too (VirtualDisplay::startSessionBus) and
/// the device reads its accessibility tree there. For "virtual", `wm` names the
/// window manager started on the private display ("openbox"; "" or "none": none, see
/// VirtualDisplay::startWindowManager). Throws std::invalid_argument for a bad spec or for a
/// window manager with a display that is not virtual, std::runtime_error when spec is "" and
/// $DISPLAY is unset or when Xvfb or the window manager cannot be started, DeviceError when
/// the display, the image, Chromium or the agent cannot be opened. An agent is given the token
/// in $EACU_AGENT_TOKEN (none when unset).
DeviceHandle openDevice(const std::string& spec, const std::string& wm = "");

}  // namespace eacu
