// What a step acts on, as the script described it.
#pragma once
#include <array>
#include <optional>
#include <string>

#include "geometry/Rect.h"

namespace eacu {

/// A target: an image (asset name, alias or image path) or a point.
/// - `image`: asset name/alias or image path, resolved by AssetLibrary::resolve.
/// - `point`: x, y in physical pixels, or fractions of the screen when both lie in 0..1 and
///   one is fractional (geometry/Coords.h).
/// - `threshold`: overrides the asset's similarity threshold (0..1).
/// - `region`: x, y, w, h to search in: pixels, or fractions when all four lie in 0..1.
/// - `offset`: input point offset from the match centre (pixels), overriding the asset's.
/// - `label`: how the script wrote the target, for messages and the run log.
struct TargetSpec {
    std::string label;
    std::optional<std::string> image;
    std::optional<std::array<double, 2>> point;
    std::optional<double> threshold;
    std::optional<std::array<double, 4>> region;
    std::optional<Point> offset;
};

}  // namespace eacu
