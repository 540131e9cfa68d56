// eacu bench adb: an Android device's capture (raw vs PNG) and taps (the long-lived input shell
// vs one adb shell connection and `input` process per tap).
#pragma once
#include <string>

namespace eacu {

/// On the adb device `spec` ("adb" or "adb:SERIAL"): `n` raw captures (exec:screencap) and `n`
/// PNG captures (exec:screencap -p) with their bytes per frame, then `n` taps at the screen's
/// centre through AdbDevice's long-lived shell and `n` through a new `shell,v2,raw:input tap`
/// connection each (what `adb shell input tap` does). Prints median, p90 and mean milliseconds
/// and bytes. The taps land on whatever is at the centre. Returns 0; throws DeviceError when the
/// device cannot be opened.
int benchAdb(const std::string& spec, int n);

}  // namespace eacu
