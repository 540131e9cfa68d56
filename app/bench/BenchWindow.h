// eacu bench window: a window's own capture (XComposite) against a full-screen capture.
#pragma once
#include <string>

namespace eacu {

/// On `display` (default a private Xvfb) with xcalc: times the first capture of xcalc's window
/// (redirect + waiting for its redraw), then `n` warm window captures, `n` full-screen
/// captures, and `n` locates of xcalc's "1" key in the window and on the screen, and `n` clicks
/// sent to the window as events (Windows::sendClick). Prints median, p90 and mean (ms).
/// Returns 0, or 1 when the key is not found in the window.
int benchWindow(const std::string& display, int n);

}  // namespace eacu
