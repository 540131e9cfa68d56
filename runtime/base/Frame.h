// A captured screen image with the facts needed to interpret it.
#pragma once
#include <opencv2/core.hpp>

#include "base/Clock.h"

namespace eacu {

/// One capture of a screen.
/// - `bgr`: 8-bit 3-channel BGR pixels, physical pixels, rows top to bottom.
/// - `scale`: device scale factor (physical pixels per logical pixel; 1.0 on a plain X server).
/// - `timestamp`: seconds since the Unix epoch (wall clock) when the capture finished.
/// - `monotonic`: seconds on a monotonic clock, for age checks and settle waits.
struct Frame {
    cv::Mat bgr;
    double scale = 1.0;
    double timestamp = 0.0;
    double monotonic = 0.0;

    int width() const { return bgr.cols; }
    int height() const { return bgr.rows; }
    bool empty() const { return bgr.empty(); }
};

}  // namespace eacu
