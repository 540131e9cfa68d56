// Clocks and time formatting: what every layer uses to measure and print time.
#pragma once
#include <string>

namespace eacu {

/// Seconds on the monotonic clock (std::chrono::steady_clock): for deadlines, ages and waits.
double monotonicSeconds();
/// Seconds since the Unix epoch (std::chrono::system_clock): for timestamps in the run log.
double wallSeconds();
/// Local date-time "2026-11-22 10:31:05" of a Unix time in seconds; "-" for 0 (or less), "?"
/// for a time outside the years 1-9999 or NaN (a corrupt run log).
std::string formatLocalTime(double unix_seconds);
/// Local time formatted by strftime's `pattern` (e.g. "repl-%Y%m%d-%H%M%S.lua"); "?" outside
/// the years 1-9999.
std::string formatLocalTime(double unix_seconds, const char* pattern);

}  // namespace eacu
