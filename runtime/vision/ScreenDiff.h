// How much of the screen changed between two frames.
#pragma once
#include <optional>

#include <opencv2/core.hpp>

#include "geometry/Rect.h"

namespace eacu {

/// Fraction (0..1) of pixels whose greyscale value differs by more than `tolerance` levels
/// (0..255) between `a` and `b` (same size, CV_8UC3 BGR), optionally only inside `region`
/// (physical pixels). Seed 000's screen-change check uses tolerance 15 and calls 2 % a change.
/// Throws std::invalid_argument when the frames differ in size.
double changeRatio(const cv::Mat& a, const cv::Mat& b, int tolerance = 15,
                   std::optional<Rect> region = std::nullopt);

}  // namespace eacu
