// A short-lived outline on an X11 screen around a rectangle (seed 004's window border).
#pragma once
#include <cstdint>
#include <string>

#include "geometry/Rect.h"

namespace eacu {

/// Draws an outline `thickness` pixels wide just outside `box` (root-window pixels) on X
/// display `display` ("" = $DISPLAY) for `seconds`, in colour `rgb` (0xRRGGBB). The outline is
/// four override-redirect windows (no window manager decorates, moves or focuses them, and
/// they take no input), so it works without a window manager and never steals focus. Returns
/// at once: a background thread with its own X connection removes the outline when the time
/// is up. Throws std::runtime_error when the display cannot be opened.
void flashOutline(const std::string& display, const Rect& box, double seconds = 1.5,
                  uint32_t rgb = 0xff2d55, int thickness = 3);

/// Removes every outline still shown and waits for their threads; call before the X server
/// the outlines live on goes away (flashOutline's threads are also joined at exit).
void clearOutlines();

/// How many outlines are currently shown (for tests).
int outlinesShown();

}  // namespace eacu
