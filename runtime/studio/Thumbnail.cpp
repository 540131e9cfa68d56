#include "studio/Thumbnail.h"

#include <algorithm>
#include <vector>

#include <opencv2/imgcodecs.hpp>

#include "base/Base64.h"

namespace eacu::studio {

std::string thumbnailOf(const Frame& f, Point p) {
    if (f.empty()) return "";
    const int w = std::min(f.width(), int(120 * f.scale)), h = std::min(f.height(), int(72 * f.scale));
    const int x = std::clamp(p.x - w / 2, 0, f.width() - w), y = std::clamp(p.y - h / 2, 0, f.height() - h);
    std::vector<unsigned char> jpg;
    cv::imencode(".jpg", f.bgr(cv::Rect(x, y, w, h)), jpg, {cv::IMWRITE_JPEG_QUALITY, 70});
    return "data:image/jpeg;base64," + base64Encode(std::string_view(reinterpret_cast<const char*>(jpg.data()), jpg.size()));
}

}  // namespace eacu::studio
