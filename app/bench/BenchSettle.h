// eacu bench settle: change-and-settle waits against a fixed 1 s wait after each action.
#pragma once
#include <string>

namespace eacu {

/// Runs the same 12-action task on a real xcalc twice in one run (on `display`, default a
/// private Xvfb): with eacu's change-and-settle waits, then with a fixed 1 s wait after each
/// action and no change-and-settle wait. Prints both wall times, the speed-up and both
/// displays. Returns 0 when both outcomes are right, 1 otherwise.
int benchSettle(const std::string& display);

}  // namespace eacu
