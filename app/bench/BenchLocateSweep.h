// eacu bench locate's template-size sweep: exact crops of growing size located blind, on a
// landscape screenshot, a phone-sized portrait frame and the landscape one as a JPEG.
#pragma once
#include <string>
#include <vector>

namespace eacu {

/// One row of the sweep: `frame` kind ("landscape WxH", "portrait WxH", "jpeg WxH"), the crop
/// size in pixels, crops located, hits (found at the crop's place and size), median and
/// largest milliseconds per blind locate.
struct SweepRow {
    std::string frame;
    int w = 0, h = 0;
    int located = 0, hits = 0;
    double median_ms = 0, max_ms = 0;
};

/// The sweep over the screenshots `shots` (paths; at least one of width >= 1080): the
/// landscape frame is the one named glossary@1440x900x1.5.png when present, else the largest;
/// the portrait frame (1080x1920) is its left 1080 columns above those of another shot; the
/// JPEG is the landscape frame encoded at quality 85. Crops of 100x60, 300x150, 600x300 and
/// 900x500 (those that fit) are taken at up to three places on a grid where the crop has
/// detail and is unique on its frame (no other place correlates >= 0.95 with it), and located
/// with no hints at all at template scale 1.0. Throws std::runtime_error when no shot can be
/// read or none is wide enough.
std::vector<SweepRow> templateSizeSweep(const std::vector<std::string>& shots);

}  // namespace eacu
