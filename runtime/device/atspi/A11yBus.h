// Finding the AT-SPI2 accessibility bus from a D-Bus session bus.
#pragma once
#include <string>

namespace eacu {

/// Asks org.a11y.Bus.GetAddress on the session bus at `session_address` (a D-Bus address) and
/// returns the accessibility bus's address, or "" when the bus cannot be reached or nobody
/// answers within `timeout_ms`. `auto_start`: let the session bus start at-spi-bus-launcher
/// by D-Bus activation when it does not run yet (false: only a running launcher answers).
/// The session bus's own Hello is bounded by `timeout_ms` too.
std::string a11yBusAddress(const std::string& session_address, bool auto_start, int timeout_ms = 1000);

/// Whether the D-Bus bus at `address` answers Hello within `timeout_ms` on a private connection
/// of its own (closed before returning). When not, `why` (if given) gets the D-Bus error's text
/// ("" when the connection could not be made at all).
bool busAnswers(const std::string& address, int timeout_ms, std::string* why = nullptr);

}  // namespace eacu
