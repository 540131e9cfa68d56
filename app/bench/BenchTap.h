// eacu bench tap: how long a tap takes on a real program (capture + locate + inject), measured.
#pragma once
#include <string>

namespace eacu {

/// Taps xcalc's "1" key `n` times on `display` (default: a private Xvfb) and prints the median,
/// p90 and mean milliseconds of capture, the session's locate, input injection, their sum and
/// the settle wait after the tap. Returns 0; throws when xcalc or its keys cannot be found.
int benchTap(const std::string& display, int n);

}  // namespace eacu
