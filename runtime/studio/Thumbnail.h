// A script line's thumbnail on the studio's page.
#pragma once
#include <string>

#include "base/Frame.h"
#include "geometry/Rect.h"

namespace eacu::studio {

/// A small JPEG of the screen round `p` (physical pixels of `f`): 120x72 logical pixels (times
/// the frame's device scale factor, at most the frame), moved inside the frame, as a data URL
/// ("data:image/jpeg;base64,..."). "" for an empty frame.
std::string thumbnailOf(const Frame& f, Point p);

}  // namespace eacu::studio
