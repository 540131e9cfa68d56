// Where a replayed run differs from the run it replays, step by step.
#pragma once
#include <string>
#include <vector>

#include "runlog/RunLog.h"

namespace eacu {

/// One difference between step `idx` of an original run and of its replay. `what` says what
/// differs and how, e.g. `input (70,347) -> (72,349)`, `status ok -> failed`, `missing in the
/// replay`.
struct StepDiff {
    int idx = 0;
    std::string what;
};

/// Compares two step lists by index (steps with a parent are compared with their parent):
/// action, target, status (not for an observation the replay skipped: it did not look again),
/// box and input point (more than `tolerance_px` apart), score (more than 0.05 lower), and
/// steps present in only one of them. Empty when they agree.
std::vector<StepDiff> diffSteps(const std::vector<StepRecord>& original,
                                const std::vector<StepRecord>& replay, int tolerance_px = 2);

}  // namespace eacu
