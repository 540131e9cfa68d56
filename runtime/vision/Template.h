// A reference image to search for, with its matching settings.
#pragma once
#include <optional>
#include <string>

#include <opencv2/core.hpp>

#include "geometry/Rect.h"

namespace eacu {

/// Default similarity threshold for template matching (raw normalized cross-correlation), the
/// value Airtest and SikuliX default to. Where they inflate scores (Airtest's (1+c)/2 for
/// feature hits) or match colour-blind, eacu keeps scores raw and adds a colour confirm and a
/// per-part check (Locator) against look-alikes; assets can set their own.
inline constexpr double kDefaultThreshold = 0.7;

/// A template: `bgr` pixels (CV_8UC3), optional `mask` (CV_8UC1, non-zero = compare) taken from
/// the PNG alpha channel, threshold in [0, 1], target `offset` in template pixels from the
/// centre, and the device scale factor `scale` at which the image was captured.
struct Template {
    std::string name;
    std::string path;
    cv::Mat bgr;
    cv::Mat mask;
    double threshold = kDefaultThreshold;
    Point offset;
    double scale = 1.0;

    /// Loads a PNG/JPEG from `path` (alpha becomes the mask when it is not fully opaque; a
    /// PNG's pHYs chunk, when present, gives `scale`: see pngScale). Throws
    /// std::runtime_error("cannot read image \"...\"") when the file is missing, is not a PNG or
    /// JPEG file (by its first bytes: no other decoder sees it), or cannot be decoded.
    static Template load(const std::string& path);
};

/// The device scale factor a PNG records in its pHYs chunk, or nullopt when it has none (or it
/// is not a PNG). Resolutions that are multiples of 72 dpi are read as macOS writes them
/// (72 dpi = 1x, 144 dpi = 2x); others against the 96 dpi of Windows and X11 (120 dpi = 1.25x,
/// 192 dpi = 2x).
std::optional<double> pngScale(const std::string& path);

}  // namespace eacu
