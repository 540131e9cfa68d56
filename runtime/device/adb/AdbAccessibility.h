// The element tree of an Android screen through `uiautomator dump`.
#pragma once
#include <string>

#include "device/Accessibility.h"
#include "device/adb/AdbDevice.h"

namespace eacu {

/// Accessibility (device/Accessibility.h) on an AdbDevice: snapshot() runs `uiautomator dump`
/// to a file on the device, reads it back over sync: and parses it (parseUiautomatorXml). When
/// the dump prints "could not get idle state" (an animating screen) it is tried again every
/// 0.3 s until `scope.deadline` (the asking step's deadline; 0: once), then DeviceError says so.
/// A tree read is reused (no dump) while no input was sent since and no frame captured since
/// differs from the newest frame before the dump (AdbScreenMark: pixels hashed). When no frame
/// was captured since the tree was last handed out, one is captured to check, if a capture costs
/// less than a dump (their running means); otherwise the tree is read again.
/// doAction() taps the element's centre ("click") or long-presses it ("long_click"); setText()
/// taps the field, deletes its text and types the new one (AdbDevice::typeText). Both check
/// first, in a fresh dump, that the element at that path is still the same (role and name); that
/// dump waits for idle until the deadline of the snapshot that found it (the same step's). A
/// "scroll" action is refused (scroll instead).
class AdbAccessibility : public Accessibility {
public:
    explicit AdbAccessibility(AdbDevice& device);

    A11yElement snapshot(const A11yScope& scope = {}) override;
    void doAction(const A11yElement& element, const std::string& action) override;
    void setText(const A11yElement& element, const std::string& utf8) override;
    /// The text of the element at `element.path` in a fresh dump (its name: an EditText's text,
    /// or its hint when empty); the caret is unknown. Throws DeviceError when the element at
    /// that path has another role or is gone.
    std::optional<A11yText> readText(const A11yElement& element) override;
    bool readsText() const override { return true; }
    /// The element's name (an EditText's text; its hint when empty), caret unknown.
    std::optional<A11yText> snapshotText(const A11yElement& element) const override {
        A11yText t;
        t.text = element.name;
        return t;
    }

    /// The raw XML of the last dump ("" before the first).
    const std::string& lastDump() const { return last_dump_; }
    /// How many snapshots ran `uiautomator dump`, and how many reused the last tree.
    int dumps() const { return dumps_; }
    int reused() const { return reused_; }

private:
    const A11yElement& current(const A11yElement& element, A11yElement& fresh);
    bool reusable();
    A11yElement parse(const A11yScope& scope) const;
    AdbDevice& device_;
    double found_deadline_ = 0;  // scope.deadline of the last snapshot (the step's)
    std::string last_dump_;
    AdbScreenMark dump_mark_;    // the frame the last dump was read on (frame 0: none)
    uint64_t checked_frame_ = 0;  // the newest frame known to equal it
    double dump_s_ = 0;           // what a dump takes (running mean, seconds)
    int dumps_ = 0, reused_ = 0;
};

}  // namespace eacu
