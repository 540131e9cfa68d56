// The Device interface: what eacu needs from a screen it drives (capture + input + display info).
#pragma once
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "base/Frame.h"
#include "device/Accessibility.h"
#include "device/Keys.h"
#include "device/MouseButton.h"
#include "device/Navigator.h"
#include "device/Windows.h"
#include "geometry/Rect.h"

namespace eacu {

/// Thrown by a Device when the display it drives is gone or refuses a request.
struct DeviceError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

/// A screen and its input devices. All coordinates are physical pixels of captured frames.
/// Implementations: X11Device (a real X server or an owned Xvfb), ImageDevice (static images),
/// ChromiumDevice (one page of a headless Chromium over the DevTools protocol), AdbDevice (an
/// Android device through adb).
/// Methods throw DeviceError when the display cannot be reached.
class Device {
public:
    virtual ~Device() = default;

    /// A short description for the run log, e.g. "x11 :99 1024x768".
    virtual std::string describe() const = 0;
    /// Screen size in physical pixels.
    virtual Size screenSize() const = 0;
    /// Device scale factor (physical pixels per logical pixel).
    virtual double scaleFactor() const = 0;
    /// Captures the whole screen.
    virtual Frame capture() = 0;
    /// The screen as it is now: a frame that shows no earlier moment than this call's start.
    /// capture() may give a video stream's newest picture, which can be older than the call (a
    /// phone's screenrecord lags); ScreenHistory pairs a tree read with its screen through this.
    /// Default: capture(). Throws DeviceError as capture() does.
    virtual Frame captureCurrent() { return capture(); }

    /// Moves the pointer to `p` (physical pixels).
    virtual void move(Point p) = 0;
    /// Current pointer position (physical pixels).
    virtual Point cursor() const = 0;
    /// Presses and releases `button` `count` times at the current pointer position.
    virtual void click(MouseButton button, int count = 1) = 0;
    virtual void press(MouseButton button) = 0;
    virtual void release(MouseButton button) = 0;
    /// Scrolls by wheel clicks: dy > 0 scrolls down (content moves up), dx > 0 scrolls right.
    virtual void scroll(int dx, int dy) = 0;
    /// Types UTF-8 text, any Unicode character. Throws std::invalid_argument on invalid UTF-8.
    virtual void typeText(const std::string& utf8) = 0;
    /// Types a secret (a password, a code): as typeText where nothing else can read the keys on
    /// their way (the default); a device whose usual path for some text is readable by other
    /// programs (Android's ADB keyboard broadcast) takes another path or throws DeviceError
    /// saying why, never naming the text.
    virtual void typeSecret(const std::string& utf8) { typeText(utf8); }
    /// True when the focused field takes a secret (a password field), as far as the device can
    /// tell (Android: the element tree's `password`); false where it cannot tell (the default).
    virtual bool focusIsSecret() { return false; }
    /// Presses the keys of a combo in order and releases them in reverse, e.g. {Control, t}
    /// (see parseKeyCombo). Every key is resolved before any is pressed: a Key::Platform name
    /// the device does not know throws std::invalid_argument (`unknown key "foo" (...)`: the
    /// caller's input, as invalid UTF-8 is) and sends nothing.
    virtual void keyCombo(const std::vector<Key>& keys) = 0;
    /// Resolves every key of a combo as keyCombo would and sends nothing: throws the same
    /// std::invalid_argument for a key the device does not know (a batch checks its keys first).
    virtual void checkKeys(const std::vector<Key>& keys) const = 0;
    /// Presses or releases one key and leaves it so. Throws like keyCombo.
    virtual void keyDown(const Key& key) = 0;
    virtual void keyUp(const Key& key) = 0;
    /// Blocks until every injected event has been processed by the server.
    virtual void sync() = 0;

    /// The screen's top-level windows (device/Windows.h). Throws DeviceError("this device has
    /// no windows: ...") on devices without any (an image).
    virtual Windows& windows() { throw DeviceError("this device has no windows: " + describe()); }

    /// The screen's accessibility tree (device/Accessibility.h). Throws DeviceError("this
    /// device has no accessibility tree: ...") on devices without one (an image).
    virtual Accessibility& accessibility() {
        throw DeviceError("this device has no accessibility tree: " + describe());
    }
    /// A sentence about the last captured frame that a failed step's message carries, "" when
    /// there is nothing to say (AdbDevice: an all-black frame, possibly a secure window).
    virtual std::string captureNote() const { return ""; }
    /// The web page this device shows (device/Navigator.h); nullptr on a device that is not a
    /// browser page (a screen, an image).
    virtual Navigator* navigator() { return nullptr; }
    /// True when capture() and cursor() may be called from a second thread while another uses
    /// the device (a run's live screen, server/LiveScreen, beside its steps). False by default.
    virtual bool concurrentCapture() const { return false; }
    /// A frame for a live view only (server/LiveScreen), never matched on: capture() unless the
    /// device has a cheaper lossy way (ChromiumDevice: a JPEG of the page instead of a PNG).
    virtual Frame captureLive() { return capture(); }
    /// Seconds between two captureLive() calls of a live view (server/LiveScreen): 0.1 (up to
    /// 10 frames/s) unless the device paces captureLive() itself (AdbDevice's video stream).
    virtual double liveInterval() const { return 0.1; }
    /// A live frame as the device itself encoded it (a JPEG at screenSize(), no pointer mark),
    /// for a live view to pass on without decoding (server/LiveScreen): its bytes, their base64,
    /// and `seq` (1, 2, ...: one more for each new frame). Null bytes when the device has no such
    /// frame now (the default; a chromium page before its screencast's first frame of the
    /// current document): the caller takes captureLive().
    struct EncodedLiveFrame {
        std::shared_ptr<const std::vector<unsigned char>> jpeg;
        std::shared_ptr<const std::string> base64;
        uint64_t seq = 0;
    };
    virtual EncodedLiveFrame liveEncoded() { return {}; }
};

}  // namespace eacu
