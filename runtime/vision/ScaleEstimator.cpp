#include "vision/ScaleEstimator.h"

#include <algorithm>

namespace eacu {

void ScaleEstimator::observe(const Match& m, double template_scale) {
    if (!m.found || m.score < confident_ || m.scale <= 0 || template_scale <= 0) return;
    // A small match measures scale coarsely (one pixel of a 16-pixel icon is 6 %).
    if (std::max(m.box.w, m.box.h) < kMinExtent) return;
    seen_.push_back(m.scale * template_scale);
}

std::optional<double> ScaleEstimator::deviceScale() const {
    if (seen_.empty()) return std::nullopt;
    std::vector<double> v = seen_;
    std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
    return v[v.size() / 2];
}

std::optional<double> ScaleEstimator::expectedScale(double template_scale) const {
    auto d = deviceScale();
    if (!d || template_scale <= 0) return std::nullopt;
    return *d / template_scale;
}

}  // namespace eacu
