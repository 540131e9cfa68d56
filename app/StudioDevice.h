// What eacu studio says about its device, shared by `eacu studio` and the REPL's record() on a
// device that is not an X display (both run the same runtime/studio).
#pragma once
#include <string>

#include "device/Device.h"
#include "device/DeviceFactory.h"

namespace eacu {

/// The name of the device's tree as the studio page shows it ("AT-SPI", "uiautomator", "UIA",
/// "CDP"; "" when the device has none).
std::string studioTreeSource(Device& device, DeviceSpec::Kind kind);
/// The studio's device kind ("x11", "adb", "agent", "chromium", "cdp", "image"): which device
/// buttons and boxes the page shows.
const char* studioDeviceKind(DeviceSpec::Kind kind);

}  // namespace eacu
