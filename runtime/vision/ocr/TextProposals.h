// Places in an image that look like a short line of text (a button, tab, menu or check-box
// label), found from the image alone, and each prepared for single-line recognition.
#pragma once
#include <vector>

#include <opencv2/core.hpp>

#include "geometry/Rect.h"

namespace eacu {

/// Boxes (pixels of `grey`, 8-bit, one channel) of the areas with detail: the morphological
/// gradient (3x3) over 24 grey levels, closed over 15x5 px, as connected components grown by
/// 4 px (clipped to the image). Cheap (a few ms for 1080p): where text proposals are looked for.
std::vector<Rect> detailAreas(const cv::Mat& grey);

/// Boxes (pixels of `grey`, 8-bit, one channel) of text-like blobs: glyphs are MSER regions
/// (Matas et al., BMVC 2002; delta `min_contrast` / 5) of either polarity, 5 px to 4 x
/// `text_height` tall (at most 120 px; `text_height` <= 0 means 12 px) and at most 3 x as wide;
/// a region holding two glyphs side by side is a frame, not a glyph, and so are its sides
/// (thin glyphs along its left or right edge taller than the glyphs inside: a rounded
/// button's arcs). Glyphs of similar height on one row with a gap under 0.8 x their height are
/// joined into words; smaller regions (2 to 4 px tall: dots, commas, a small font's letters)
/// within a word's rows and at most half its height away are added to it; words with a gap up
/// to their height are joined into short lines. A box that contains another one (a button's
/// frame around its label) is left out: its contents are proposed instead; one held under or
/// over a glyph of the box (a piece of a character stacked over its other part: 宀 over 女 in
/// 按) is part of it and dropped instead. Ordered top to
/// bottom, then left to right.
std::vector<Rect> textProposals(const cv::Mat& grey, double text_height, int min_contrast = 24);

/// The part of `grey` a line in box `r` is read from: `r` with a margin of a quarter of its
/// height (at least 2 px) on every side, clipped to the image. Pixels of `grey`.
Rect lineCut(const cv::Mat& grey, const Rect& r);

/// The box `r` of `grey` cut out (lineCut), made dark text on a light background (inverted
/// for light text on dark: where the median pixel, the background, is darker than the mean), its contrast stretched to
/// 0..255 (grey, disabled text), enlarged by `*scale` (set here: so that the box is about
/// `target_height` px high, 1..4) and padded with 10 px of background, as Tesseract's
/// single-line mode reads best. `*origin` is where the cut starts in `grey` (pixels of `grey`):
/// a point p of the result is origin + (p - 10) / scale. With `erase_frames` false (a line
/// the layout analysis found, not a proposal) nothing is erased: a CJK glyph's strokes can
/// enclose one another like a frame around a label.
cv::Mat prepareLine(const cv::Mat& grey, const Rect& r, double target_height, double* scale, cv::Point* origin,
                    bool erase_frames = true);

}  // namespace eacu
