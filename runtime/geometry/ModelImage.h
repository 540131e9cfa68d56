// Screenshots for models: scaling to a provider's size budget, and mapping every coordinate
// space a model may answer in back to physical pixels of the captured frame.
//
// Spaces (all origin top-left):
//   physical     pixels of the captured frame (what every runtime API takes and returns)
//   logical      physical / dpi_scale (what an app sees on a HiDPI display)
//   model-image  pixels of the scaled image the model was shown
//   fraction     0..1 of the frame width/height (Airtest, OpenCUA "relative")
//   per-mille    0..1000 of the frame width/height (Qwen-VL, UI-TARS, seed 002's VisionAgent)
//   norm bbox    OmniParser's [x1, y1, x2, y2] in fractions 0..1
#pragma once
#include <opencv2/core.hpp>
#include <array>
#include <string>

#include <nlohmann/json.hpp>

#include "geometry/Rect.h"

namespace eacu {

/// How to size a screenshot for a model.
/// - `Budget`: keep the aspect ratio, shrink (never enlarge) until the long edge is
///   <= max_long_edge, width*height <= max_pixels and, if max_tiles > 0, the number of
///   28x28 tiles ceil(w/28)*ceil(h/28) <= max_tiles. Defaults follow the Anthropic vision
///   docs (long edge 1568 px, ~1.15 MP) and the computer-use best-practices quickstart's
///   `target_image_size()` (1568 tiles of 28 px).
/// - `Xga`: the computer-use demo's `scale_coordinates()`: the first of XGA 1024x768,
///   WXGA 1280x800, FWXGA 1366x768 whose aspect ratio is within 0.02 of the screen's and which
///   is smaller than the screen (width); exact target size, aspect distortion allowed; no
///   match → unscaled.
/// - `None`: the frame as captured.
struct ModelImagePolicy {
    enum class Kind { None, Budget, Xga };
    Kind kind = Kind::Budget;
    int max_long_edge = 1568;
    long max_pixels = 1'150'000;
    int max_tiles = 1568;

    static ModelImagePolicy none() { return {Kind::None, 0, 0, 0}; }
    static ModelImagePolicy anthropic() { return {}; }
    static ModelImagePolicy xga() { return {Kind::Xga, 0, 0, 0}; }
    /// Parses "none" | "budget" | "anthropic" | "xga"; throws std::invalid_argument otherwise.
    static ModelImagePolicy parse(const std::string& name);
};

/// The recorded mapping between a frame and the image a model saw.
/// `physical` is the frame size, `image` the model-image size; `dpi_scale` the frame's device
/// scale factor (physical pixels per logical pixel). Scale factors are image/physical per axis.
struct ModelImageTransform {
    Size physical;
    Size image;
    double dpi_scale = 1.0;
    std::string policy = "none";

    double sx() const { return physical.w > 0 ? double(image.w) / physical.w : 1.0; }
    double sy() const { return physical.h > 0 ? double(image.h) / physical.h : 1.0; }

    /// Model-image pixels → physical pixels: round(x / sx), clamped to the frame.
    /// Throws std::out_of_range when (x, y) lies outside [0, image.w] x [0, image.h].
    Point imageToPhysical(double x, double y) const;
    /// Physical pixels → model-image pixels: round(x * sx).
    Point physicalToImage(Point p) const;
    /// A model-image box (x, y, w, h) → physical pixels (edges mapped, then rounded).
    Rect imageRectToPhysical(const Rect& r) const;
    /// Physical box → model-image box.
    Rect physicalRectToImage(const Rect& r) const;

    /// Fractions 0..1 of the frame → physical pixels: floor(fx * w), clamped to w-1 so that
    /// 1.0 stays inside. Throws std::out_of_range outside [0, 1].
    Point fractionToPhysical(double fx, double fy) const;
    /// Per-mille 0..1000 → physical pixels (= fractionToPhysical(x/1000, y/1000)).
    /// Throws std::out_of_range outside [0, 1000].
    Point permilleToPhysical(double x, double y) const;
    /// Physical pixels → per-mille of the frame, rounded to integers.
    Point physicalToPermille(Point p) const;
    /// An OmniParser normalized bbox [x1, y1, x2, y2] (fractions 0..1) → physical box.
    /// Throws std::out_of_range outside [0, 1] and std::invalid_argument when x2 < x1 or y2 < y1.
    Rect normBoxToPhysical(double x1, double y1, double x2, double y2) const;
    /// A per-mille box [x1, y1, x2, y2] (0..1000, seed 002's xmin/ymin/xmax/ymax) → physical.
    Rect permilleBoxToPhysical(double x1, double y1, double x2, double y2) const;
    /// Physical box → OmniParser normalized bbox [x1, y1, x2, y2] as fractions of the frame.
    std::array<double, 4> physicalToNormBox(const Rect& r) const;

    /// Logical pixels (what an app/OS reports on a HiDPI screen) → physical: round(v * dpi_scale).
    Point logicalToPhysical(Point logical) const;
    /// Physical → logical: round(v / dpi_scale).
    Point physicalToLogical(Point physical) const;

    /// {"policy","physical":[w,h],"image":[w,h],"sx","sy","dpi_scale"} for the run log.
    nlohmann::json toJson() const;
};

/// Target size of a frame of `physical` size under `policy` (see ModelImagePolicy).
/// Never larger than `physical`; at least 1x1.
Size modelImageSize(Size physical, const ModelImagePolicy& policy);

/// A frame scaled for a model: `image` (BGR, INTER_AREA when shrinking) and its transform.
struct ModelImage {
    cv::Mat image;
    ModelImageTransform transform;
};

/// Scales `bgr` (physical pixels, device scale `dpi_scale`) for a model under `policy`.
/// Throws std::invalid_argument for an empty image.
ModelImage makeModelImage(const cv::Mat& bgr, const ModelImagePolicy& policy, double dpi_scale = 1.0);

/// Encodes an image as PNG ("png") or JPEG ("jpeg", quality 0..100) bytes.
/// Throws std::runtime_error when OpenCV cannot encode it.
std::string encodeImage(const cv::Mat& bgr, const std::string& format = "png", int quality = 85);

}  // namespace eacu
