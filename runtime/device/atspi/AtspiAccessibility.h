// The accessibility tree through AT-SPI2 (libatspi): the trees GTK, Qt, Firefox and others
// export on the accessibility bus of an X display.
#pragma once
#include <string>

#include "device/Accessibility.h"

namespace eacu {

class BusWait;  // AtspiAccessibility.cpp: the bound of one operation on the bus

/// Accessibility (device/Accessibility.h) over AT-SPI2. libatspi keeps one connection per
/// process: the first use connects to the accessibility bus at `bus_address` (the address
/// org.a11y.Bus.GetAddress gives on the display's session bus, see SessionBus), or, when it
/// is "", $AT_SPI_BUS_ADDRESS, else the one org.a11y.Bus names on the session bus of
/// $DBUS_SESSION_BUS_ADDRESS (a desktop session's); with neither, every call throws
/// DeviceError (no session bus is autolaunched). An instance with another address reconnects
/// libatspi. Not thread-safe: one run's thread uses it.
///
/// Snapshots read the tree with the cache cleared, so they show the state of now; an element
/// that is not "showing" is listed without its children (a closed menu's items are left out).
/// Every read and action ends at the thread's IoBound (the step's deadline, DeviceWait) when the
/// bus or a program stops answering: each D-Bus call gets what is left of it as its timeout,
/// and the operation throws DeviceStalled ("accessibility bus of display :5: tree: no answer
/// within 4.0 s (...)") once nothing is left. Connecting (the first use) is bounded so too: the
/// bus is asked (Hello) within the bound before libatspi connects.
class AtspiAccessibility : public Accessibility {
public:
    /// `bus_address`: a D-Bus address ("unix:path=..."), or "" (see the class comment).
    /// `display`: the X display the tree belongs to, for messages (":99"). Does not connect.
    AtspiAccessibility(std::string bus_address, std::string display);
    ~AtspiAccessibility() override;

    A11yElement snapshot(const A11yScope& scope = {}) override;
    void doAction(const A11yElement& element, const std::string& action) override;
    void setText(const A11yElement& element, const std::string& utf8) override;
    /// The element's Text interface: its whole text, caret offset and first selection;
    /// std::nullopt when it has no Text interface.
    std::optional<A11yText> readText(const A11yElement& element) override;
    bool readsText() const override { return true; }

private:
    /// Connects libatspi to the bus (once per process and address) within `bus`'s bound.
    /// Throws DeviceStalled when the bus does not answer within it, DeviceError when there is none.
    void connect(const BusWait& bus);
    std::string bus_address_;
    std::string display_;
    std::string unavailable_;  // why there is no bus (found once; every later call throws it)
};

}  // namespace eacu
