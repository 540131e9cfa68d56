// The result of locating a template in a frame.
#pragma once
#include <string>

#include "geometry/Rect.h"

namespace eacu {

/// A located (or best-but-rejected) candidate.
/// - `box`: physical pixels of the searched frame.
/// - `target`: the input point: box centre plus the template's target offset.
/// - `score`: raw normalized cross-correlation of the greyscale search in [-1, 1], never
///   rescaled; `color_score` the chroma agreement at the same place (vision/ColourAgreement:
///   1 when the colours agree, near 0 for coloured against grey);
///   `parts_score` the worst correlation over the template's parts (Locator), 1 when unused.
/// - `found`: both scores reached `threshold` (and no further confirm vetoed it);
/// - `veto`: why a candidate whose scores reached the threshold was still rejected (the
///   Locator's text confirm), empty otherwise.
/// - `method`: how it was found ("template"); `scale` the template scale used.
/// - `ms`: wall time of the search in milliseconds.
struct Match {
    bool found = false;
    Rect box;
    Point target;
    double score = 0.0;
    double color_score = 0.0;
    double parts_score = 1.0;
    double threshold = 0.0;
    double scale = 1.0;
    std::string method = "template";
    std::string veto;
    double ms = 0.0;
};

}  // namespace eacu
