// A recorded crop's file: a PNG that says the device scale factor it was cut at.
#pragma once
#include <string>

#include <opencv2/core.hpp>

namespace eacu {

/// Writes `bgr` as a PNG file at `path` whose pHYs chunk records the device scale factor
/// `scale` (vision/Template.h pngScale reads it back), so a replay on another scale knows the
/// size it was cut at. Throws std::runtime_error when the file cannot be written.
void writeScaledPng(const std::string& path, const cv::Mat& bgr, double scale);

}  // namespace eacu
