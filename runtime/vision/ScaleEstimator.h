// Learns a device's scale factor from the matches found on it.
#pragma once
#include <optional>
#include <vector>

#include "vision/Match.h"

namespace eacu {

/// Estimates the device scale factor of a screen (how large its content is drawn relative
/// to a 1.0 rendering) from confident matches: a template recorded at scale t matched at
/// template scale s says the device draws at s·t. Weak matches are ignored, so one wrong hit
/// cannot mislead later searches, nor can small ones, whose scale is imprecise; the estimate
/// is the median of the confident observations.
class ScaleEstimator {
public:
    /// Matches smaller than this (pixels, longer side) do not measure scale precisely enough.
    static constexpr int kMinExtent = 32;

    /// `confident`: the raw score a found match needs to count.
    explicit ScaleEstimator(double confident = 0.85) : confident_(confident) {}
    /// Records a match of a template recorded at `template_scale` (ignored unless found and
    /// at least `confident`).
    void observe(const Match& m, double template_scale = 1.0);
    /// The device scale factor, once a confident match has been seen.
    std::optional<double> deviceScale() const;
    /// The expected template scale for a template recorded at `template_scale`.
    std::optional<double> expectedScale(double template_scale = 1.0) const;

private:
    double confident_;
    std::vector<double> seen_;
};

}  // namespace eacu
