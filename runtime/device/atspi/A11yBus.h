// Finding the AT-SPI2 accessibility bus from a D-Bus session bus.
#pragma once
#include <string>

namespace eacu {

/// Asks org.a11y.Bus.GetAddress on the session bus at `session_address` (a D-Bus address) and
/// returns the accessibility bus's address, or "" when the bus cannot be reached or nobody
/// answers within `timeout_ms`. `auto_start`: let the session bus start at-spi-bus-launcher
/// by D-Bus activation when it does not run yet (false: only a running launcher answers).
std::string a11yBusAddress(const std::string& session_address, bool auto_start, int timeout_ms = 1000);

}  // namespace eacu
