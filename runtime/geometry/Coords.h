// Conversions between coordinate spaces. Every conversion in eacu lives in runtime/geometry.
#pragma once
#include "geometry/Rect.h"

namespace eacu {

/// Resolves a user point to physical pixels of a screen of `screen` size.
/// When both x and y lie in [0, 1] and at least one is fractional (not an integer), they are
/// fractions of the screen width/height (Airtest's convention); otherwise they are pixels.
/// Result is clamped to the screen. Throws std::invalid_argument for a point outside the screen.
Point resolvePoint(double x, double y, Size screen);

/// True when (x, y) are read as fractions by resolvePoint.
bool isFractionalPoint(double x, double y);

/// Resolves a region given as pixels, or as fractions when all four values are in [0, 1]
/// and not all integers; the result is clipped to the screen. Throws std::invalid_argument
/// when the region is empty after clipping.
Rect resolveRegion(double x, double y, double w, double h, Size screen);

/// Converts logical pixels (as an app sees them) to physical pixels with the device scale
/// factor: physical = round(logical * scale).
Point logicalToPhysical(Point logical, double scale);
/// Inverse of logicalToPhysical: logical = round(physical / scale).
Point physicalToLogical(Point physical, double scale);

}  // namespace eacu
