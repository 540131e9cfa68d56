// Where a frame differs from the frame read before it, grown to whole lines of text: the only
// places a page read before has to be laid out and read again.
#pragma once
#include <vector>

#include <opencv2/core.hpp>

#include "geometry/Rect.h"

namespace eacu {

/// Boxes (pixels of `grey`) covering every pixel where `grey` and `prev` (same size and type,
/// 8-bit grey) differ at all. Changed rows closer than `margin` are one run; a run's box spans
/// the columns that changed in it; each box is grown by `margin` px and then by every box of
/// `lines` (the text lines read on `prev`) it touches, grown by `margin` too, until no line
/// crosses its edge; overlapping boxes are merged. Clipped to the image. Empty when the frames
/// are equal. Throws std::invalid_argument when the sizes or types differ.
std::vector<Rect> changedRegions(const cv::Mat& grey, const cv::Mat& prev, const std::vector<Rect>& lines, int margin);

/// Whether `grey` and `prev` (same size and type) are equal inside `box` (clipped to them).
bool samePixels(const cv::Mat& grey, const cv::Mat& prev, const Rect& box);

/// Whether `box` overlaps any of `others` by at least a quarter of the smaller of the two.
bool overlapsAny(const Rect& box, const std::vector<Rect>& others);

}  // namespace eacu
