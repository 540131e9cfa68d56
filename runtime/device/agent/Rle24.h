// The agent protocol's lossless "rle24" pixel encoding (docs/agent-protocol.md): PackBits over
// 3-byte BGR pixels.
#pragma once
#include <string_view>

#include <opencv2/core.hpp>

#include "geometry/Rect.h"

namespace eacu {

/// Decodes `data` into the region `rect` of `bgr` (CV_8UC3), rows top to bottom: a control
/// byte c < 128 is followed by c + 1 literal pixels, c >= 128 by one pixel repeated c - 126
/// times. Throws std::runtime_error when the data is short, long, or `rect` is outside `bgr`.
void decodeRle24(std::string_view data, cv::Mat& bgr, const Rect& rect);

}  // namespace eacu
