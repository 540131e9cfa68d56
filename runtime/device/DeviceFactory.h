// Opening a device from a spec: ":N" (an X display), "virtual[:WxH]" (a private Xvfb),
// "image:PATH" (a static screenshot), "" ($DISPLAY).
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
struct DeviceSpec {
    enum class Kind { X11, Virtual, Image };
    Kind kind = Kind::X11;
    std::string display;
    Size size{1280, 800};
    std::string image;
};

/// Parses a device spec: "" ($DISPLAY), ":N" or any X display name "[host]:N[.S]",
/// "virtual", "virtual:WxH" (each side at least 64 pixels) or "image:PATH". Throws
/// std::invalid_argument for anything else, e.g. `device: expected :N, virtual[:WxH] or
/// image:PATH, got "foo"`, and for a bad size or an empty path.
DeviceSpec parseDeviceSpec(const std::string& spec);

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
/// the display or the image cannot be opened.
DeviceHandle openDevice(const std::string& spec, const std::string& wm = "");

}  // namespace eacu
