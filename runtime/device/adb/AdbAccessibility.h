// The element tree of an Android screen through `uiautomator dump`.
#pragma once
#include <string>

#include "device/Accessibility.h"

namespace eacu {

class AdbDevice;

/// Accessibility (device/Accessibility.h) on an AdbDevice: snapshot() runs `uiautomator dump`
/// to a file on the device, reads it back over sync: and parses it (parseUiautomatorXml). When
/// the dump prints "could not get idle state" (an animating screen) it is tried again until
/// `retry_seconds` have passed, then DeviceError says so. doAction() taps the element's centre
/// ("click") or long-presses it ("long_click"); setText() taps the field, deletes its text and
/// types the new one (AdbDevice::typeText). Both check first, in a fresh dump, that the element
/// at that path is still the same (role and name); a "scroll" action is refused (scroll instead).
class AdbAccessibility : public Accessibility {
public:
    explicit AdbAccessibility(AdbDevice& device, double retry_seconds = 10);

    A11yElement snapshot(const A11yScope& scope = {}) override;
    void doAction(const A11yElement& element, const std::string& action) override;
    void setText(const A11yElement& element, const std::string& utf8) override;

    /// The raw XML of the last dump ("" before the first).
    const std::string& lastDump() const { return last_dump_; }

private:
    const A11yElement& current(const A11yElement& element, A11yElement& fresh);
    AdbDevice& device_;
    double retry_seconds_;
    std::string last_dump_;
};

}  // namespace eacu
