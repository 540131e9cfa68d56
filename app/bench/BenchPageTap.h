// eacu bench page: a tap on a web page (capture + locate + input), on any device that shows it:
// the chromium device, or Chromium under X11 (Xvfb) on the same page, for a comparison.
#pragma once
#include <string>

namespace eacu {

/// Opens `device` (a device spec; "" = "chromium"), shows python3-doc's index page on it
/// (open_url's navigation on a page device; on an X11 screen Chromium is launched in app mode
/// with a private profile, its window `viewport`-sized), cuts the image of the heading "Parts of
/// the documentation" found by OCR, and taps it `n` times. Prints the median, p90 and mean
/// milliseconds of a capture alone, the session's locate (its own capture + the match), input
/// (move+click+sync) and the tap (locate + input: capture + locate + input, as a tap does).
/// Returns 0; throws DeviceError/StepError when the device or the page cannot be opened.
int benchPageTap(const std::string& device, int n);

}  // namespace eacu
