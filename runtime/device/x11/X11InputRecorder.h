// Recording what a person does on an X display: XRecord (from libXtst) device events, read on
// a connection of its own while the person works.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "device/RecordedInput.h"

namespace eacu {

/// Records every client's device events (key and button presses and releases, pointer motion)
/// on X display `display_name` through the RECORD extension: an XRecord context on one
/// connection, enabled asynchronously on a second one that a thread of its own reads.
/// Keysyms come from the keymap read at start, kept current by recording every client's
/// ChangeKeyboardMapping requests in the same stream (xdotool and eacu type characters the
/// keymap lacks by mapping them onto spare keycodes for a moment), so each key is read with
/// the mapping it had when it was pressed. Each event's time is the server's stamp mapped to
/// monotonicSeconds() by an offset measured when recording starts (a PropertyNotify round
/// trip) and lowered by any event that arrives sooner, so a late read does not make an event
/// late. Thread-safe: events are taken from any thread.
class X11InputRecorder {
public:
    /// Connects twice to `display_name` ("" = $DISPLAY) and starts recording. Throws
    /// DeviceError when the display cannot be opened or has no RECORD extension, or the
    /// context cannot be made.
    explicit X11InputRecorder(const std::string& display_name);
    /// Stops recording and closes both connections.
    ~X11InputRecorder();
    X11InputRecorder(const X11InputRecorder&) = delete;
    X11InputRecorder& operator=(const X11InputRecorder&) = delete;

    /// The events recorded since the last call, in order.
    std::vector<RecordedInput> take();
    /// Stops recording (idempotent); events already recorded stay available to take().
    void stop();

    struct Impl;

private:
    std::unique_ptr<Impl> impl_;
};

}  // namespace eacu
