// eacu bench batch: a 12-key xcalc sequence one step at a time against one batch{}.
#pragma once
#include <string>

namespace eacu {

/// On `display` (default: a private Xvfb) with xcalc: `rounds` times, clears the calculator and
/// taps the same 12 keys (1 2 + 3 4 × 5 6 − 7 8 =) one step at a time (each tap with its own
/// capture, locate, effect wait and settle), then clears and taps them as one Session::batch.
/// Prints the median and p90 wall time (milliseconds) of each way, the batch's locate time, the
/// speed-up (stepwise median over batch median) and whether both ended on the same display
/// (the screen's pixels equal after each). Returns 0, or 1 when a round ended on different
/// displays; throws when xcalc or a key cannot be found.
int benchBatch(const std::string& display, int rounds);

}  // namespace eacu
