// Non-maximum suppression over scored boxes.
#pragma once
#include <vector>

#include "vision/Match.h"

namespace eacu {

/// Greedy non-maximum suppression: sorts by `score` descending and keeps a box unless its
/// intersection over union with an already kept box exceeds `iou_threshold` (0..1).
/// Returns the kept matches, best first, at most `max_results`.
std::vector<Match> nonMaximumSuppression(std::vector<Match> candidates, double iou_threshold,
                                         int max_results);

}  // namespace eacu
