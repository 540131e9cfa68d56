// The element tree of an Android screen through `uiautomator dump`.
#pragma once
#include <string>

#include "device/Accessibility.h"

namespace eacu {

class AdbDevice;

/// Accessibility (device/Accessibility.h) on an AdbDevice: snapshot() runs `uiautomator dump`
/// to a file on the device, reads it back over sync: and parses it (parseUiautomatorXml). When
/// the dump prints "could not get idle state" (an animating screen) it is tried again every
/// 0.3 s until `scope.deadline` (the asking step's deadline; 0: once), then DeviceError says so.
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

    /// The raw XML of the last dump ("" before the first).
    const std::string& lastDump() const { return last_dump_; }

private:
    const A11yElement& current(const A11yElement& element, A11yElement& fresh);
    AdbDevice& device_;
    double found_deadline_ = 0;  // scope.deadline of the last snapshot (the step's)
    std::string last_dump_;
};

}  // namespace eacu
