// X error handling for the X11 backend: error traps around request sequences and the
// process-wide IO error handler that lets a lost display raise DeviceError instead of exiting.
#pragma once
#include <X11/Xlib.h>

namespace eacu::x11 {

/// Installs eacu's X error and IO error handlers (once per process). Xlib's default error
/// handler exits the process; ours records the first error of a trap (trapBegin/trapEnd) and
/// prints stray errors to stderr. The IO handler returns for displays registered with
/// adoptDisplay (so Xlib calls their exit handler, which marks the device dead) and defers to
/// the previous handler for any other display.
void installHandlers();

/// Starts recording X errors on this thread (the first one is kept).
void trapBegin();
/// Ends a trap: XSync, then returns the trapped error code (0 = none).
int trapEnd(Display* dpy);

/// Marks `dpy` as eacu's: an IO error on it no longer exits the process.
void adoptDisplay(Display* dpy);
/// Forgets `dpy` (call before or right after closing it).
void releaseDisplay(Display* dpy);

}  // namespace eacu::x11
