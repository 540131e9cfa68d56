// eacu bench adb: an Android device's capture (raw vs PNG), taps (the long-lived input shell
// vs one adb shell connection and `input` process per tap) and whole steps.
#pragma once
#include <string>

namespace eacu {

/// On the adb device `spec` ("adb" or "adb:SERIAL"): `n` raw captures (exec:screencap) and `n`
/// PNG captures (exec:screencap -p) with their bytes per frame, then `n` taps at the screen's
/// centre through AdbDevice's long-lived shell and `n` through a new `shell,v2,raw:input tap`
/// connection each (what `adb shell input tap` does). Prints median, p90 and mean milliseconds
/// and bytes. The taps land on whatever is at the centre.
/// With `tap_name` (an element's name in the tree, e.g. the stand-in's "张三"): `n` whole steps
/// as a run takes them (Session::tap: capture, locate, input, wait for the effect and settle),
/// by the tree target {name = tap_name} and by its image (cut from a capture at the start), each
/// followed by a BACK key step (input, settle) that brings the element back; printed also as
/// ratios to the raw capture's median of the same run (the floor: one frame); by its text (OCR)
/// too. Returns 0; throws
/// DeviceError when the device cannot be opened, std::runtime_error when the element is not in
/// the tree or its step fails.
/// With `send` too (and `tap_name`, a contact of a messenger laid out like the stand-in's):
/// `n` send-message tasks (the chat by the tree, its field, `send` and the round's number typed,
/// 发送, the message waited for, BACK), each a real message to that contact. Also timed: `n`
/// live frames (AdbDevice::captureLive), printed as frames/s.
/// Frames come from the device's video stream unless EACU_ADB_STREAM=0 (then raw screencaps,
/// and `n` live frames are timed, captureLive on a connection of its own).
/// With `live_s` > 0: only `n` raw captures (the floor) and then, for `live_s` seconds, the live
/// frames that differ from the one before (captureLive), as frames/s and as a ratio to the
/// floor: run it while the screen changes (the stand-in's `animate` fault).
/// With `input_to_frame` (needs `tap_name`; the screen still): only `n` raw captures (the floor)
/// and then `n` rounds of a click on `tap_name` and the BACK key, each performed as eacu serve's
/// run performs the person's input from the page (performUserInput) and timed from that call to
/// the first changed frame the run's live screen (server::LiveScreen, what the run sends to the
/// page) publishes: median and p90 in milliseconds and as ratios to the floor; with the stream
/// also the time to the first newer picture decoded. Throws std::invalid_argument without
/// `tap_name`, std::runtime_error when the screen does not go still within 30 s or no changed
/// frame comes within 20 s of an input.
int benchAdb(const std::string& spec, int n, const std::string& tap_name = "", const std::string& send = "",
             double live_s = 0, bool input_to_frame = false);

}  // namespace eacu
