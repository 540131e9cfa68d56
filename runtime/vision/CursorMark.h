// The mouse pointer marked on a screenshot a model is shown (seed 001 §4.2): a red circle around
// it, an arrow pointing at it and the label "鼠标指针" at the arrow's tail, so that a model can
// tell where the pointer is without relying on the cursor sprite (which Xvfb captures do not
// even contain).
#pragma once
#include <opencv2/core.hpp>

#include "geometry/Rect.h"

namespace eacu {

/// Draws the mark on `bgr` (8-bit, 3 channels) at `at` (pixels of `bgr`): a circle of radius 12
/// and width 4 in #ff3b30, an arrow from 80 px up-left of the point (mirrored to stay inside
/// the image near its edges) to the point, and the label "鼠标指针" at the arrow's tail (drawn
/// with FreeType from a CJK font: Droid Sans Fallback or Noto CJK; "mouse pointer" in OpenCV's
/// own font when no such font is installed). A point outside the image is drawn clamped to its
/// edge. Throws std::invalid_argument for an empty or non-BGR image.
void drawCursorMark(cv::Mat& bgr, Point at);

}  // namespace eacu
