// The X11 backend: XShm capture, XTest input (files: X11Device.cpp connection, X11Capture,
// X11Keymap, X11Input, X11Keys for the keysyms of neutral keys, X11Errors).
#pragma once
#include <memory>
#include <string>

#include "device/Device.h"

namespace eacu {

/// A Device on an X server (a desktop session or an owned Xvfb, see VirtualDisplay).
/// Capture uses MIT-SHM when the server offers it (local displays) and XGetImage otherwise
/// (also when the environment variable EACU_X11_NO_SHM is set);
/// input goes through the XTEST extension. Not thread-safe: use one X11Device from one thread.
/// Characters without a key in the current keymap are typed by mapping them onto spare
/// keycodes (keycodes with no keysyms), least recently used first, all the new ones of a chunk
/// of text at once before its first key; those mappings are kept while the device lives and
/// removed by restoreKeyboardMapping() or the destructor. A keycode changes meaning (reused,
/// or restored) only once the program that received its keys has translated them, and a new
/// mapping's keys are sent only once the program has read it: proven by _NET_WM_PING for
/// programs that answer it (those listing it in WM_PROTOCOLS, and Tk); for others, judged by
/// the focused window drawing after the key and staying quiet 150 ms, or 2 s after it
/// (X11KeyDelivery.cpp).
/// If the X server goes away, every later call throws DeviceError("X display :N went away").
class X11Device : public Device {
public:
    /// Connects to `display_name` (e.g. ":99"; "" = $DISPLAY). `scale` is the device scale
    /// factor reported in frames (physical pixels per logical pixel).
    /// Throws DeviceError if the display cannot be opened or lacks the XTEST extension.
    explicit X11Device(const std::string& display_name = "", double scale = 1.0);
    /// Restores the keyboard mapping and closes the connection.
    ~X11Device() override;
    X11Device(const X11Device&) = delete;
    X11Device& operator=(const X11Device&) = delete;

    /// "x11 :N WxH".
    std::string describe() const override;
    /// Root window size in physical pixels.
    Size screenSize() const override;
    double scaleFactor() const override;
    /// Captures the root window as BGR. Throws DeviceError if the display is gone or its
    /// visual is not TrueColor/DirectColor.
    Frame capture() override;

    /// Moves the pointer to `p` (physical pixels, root window coordinates).
    void move(Point p) override;
    Point cursor() const override;
    void click(MouseButton button, int count = 1) override;
    void press(MouseButton button) override;
    void release(MouseButton button) override;
    /// Wheel clicks: buttons 4/5 for dy < 0 / dy > 0, buttons 6/7 for dx < 0 / dx > 0.
    void scroll(int dx, int dy) override;
    /// Types UTF-8 text: '\n' (and "\r\n") -> Return, '\t' -> Tab, any other code point via
    /// its keysym, with Shift when the keymap has it on the shifted level. Throws
    /// std::invalid_argument on invalid UTF-8 (before any key is sent).
    void typeText(const std::string& utf8) override;
    /// Presses the keys in order and releases them in reverse, each by its keysym (keysymFor
    /// in X11Keys.h; an unknown platform key name throws DeviceError before any key is sent). A
    /// keysym that is only on the shifted level of its key (e.g. "plus", "A") gets Shift
    /// pressed with it unless the combo already holds Shift.
    void keyCombo(const std::vector<Key>& keys) override;
    void checkKeys(const std::vector<Key>& keys) const override;
    /// Presses the key that carries the keysym of `key` (no Shift is added).
    void keyDown(const Key& key) override;
    /// Releases the key that carries the keysym of `key`; no-op if no key carries it.
    void keyUp(const Key& key) override;
    /// XSync: returns once the server has processed every request sent so far.
    void sync() override;
    /// The display's top-level windows (X11Windows, on a connection of its own, opened at the
    /// first call).
    Windows& windows() override;
    /// The display's accessibility tree: the one given to setAccessibility, else AT-SPI2 on the
    /// bus libatspi finds for this display (AtspiAccessibility with no address).
    Accessibility& accessibility() override;
    /// Sets the accessibility tree accessibility() returns (e.g. AT-SPI2 on a virtual
    /// display's private bus).
    void setAccessibility(std::unique_ptr<Accessibility> a11y);

    /// The display name as Xlib resolved it, e.g. ":99".
    const std::string& displayName() const;
    /// True when capture() uses MIT-SHM (false: XGetImage fallback).
    bool usesShm() const;
    /// Removes the keysyms this device mapped onto spare keycodes (see the class comment).
    /// Waits up to 0.1 s after the last use of such a keycode first.
    void restoreKeyboardMapping();

    struct Impl;

private:
    std::unique_ptr<Impl> impl_;
    std::unique_ptr<Accessibility> a11y_;
};

}  // namespace eacu
