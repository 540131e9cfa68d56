// Single-scale template matching: greyscale normalized cross-correlation, colour confirm.
#pragma once
#include "vision/Matcher.h"

namespace eacu {

/// Template matching by normalized cross-correlation (OpenCV TM_CCOEFF_NORMED, i.e. Pearson
/// correlation of template and window, Lewis 1995 "Fast Normalized Cross-Correlation").
/// The search runs on greyscale; the best position is then confirmed in colour (the same
/// measure over all three BGR channels at that position), so a grey look-alike of another
/// colour is rejected. A template with (almost) no variance cannot be correlated; it is
/// compared by normalized squared difference instead (score = 1 - TM_SQDIFF_NORMED), as
/// SikuliX does for plain-colour patterns.
class TemplateMatcher : public Matcher {
public:
    /// `nms_iou`: overlap (intersection over union) above which findAll drops the weaker box.
    explicit TemplateMatcher(double nms_iou = 0.3) : nms_iou_(nms_iou) {}
    Match locate(const cv::Mat& frame, const Template& tpl,
                 std::optional<Rect> region = std::nullopt) const override;
    std::vector<Match> findAll(const cv::Mat& frame, const Template& tpl,
                               std::optional<Rect> region = std::nullopt,
                               int max_results = 100) const override;

    /// The colour score of `tpl` at `box` of `frame` (box size = template size): the chroma
    /// agreement (vision/ColourAgreement), or 1 - TM_SQDIFF_NORMED for a plain template.
    static double colorScore(const cv::Mat& frame, const Template& tpl, const Rect& box);

private:
    double nms_iou_;
};

}  // namespace eacu
