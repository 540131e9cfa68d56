// The matcher interface: find a template in a frame. Implementations can grow (multi-scale,
// features) behind it.
#pragma once
#include <optional>
#include <vector>

#include <opencv2/core.hpp>

#include "vision/Match.h"
#include "vision/Template.h"

namespace eacu {

class Matcher {
public:
    virtual ~Matcher() = default;
    /// The best candidate of `tpl` in `frame` (CV_8UC3 BGR), searched in `region` (physical
    /// pixels, clipped to the frame) or the whole frame. Always returns the best position found,
    /// with `found` telling whether it reached the template's threshold. Throws
    /// std::invalid_argument when the template is larger than the searched area.
    virtual Match locate(const cv::Mat& frame, const Template& tpl,
                         std::optional<Rect> region = std::nullopt) const = 0;
    /// Every occurrence reaching the threshold, best first, overlapping candidates removed by
    /// non-maximum suppression, at most `max_results`.
    virtual std::vector<Match> findAll(const cv::Mat& frame, const Template& tpl,
                                       std::optional<Rect> region = std::nullopt,
                                       int max_results = 100) const = 0;
};

}  // namespace eacu
