#include "device/adb/RawScreencap.h"

#include <cstdint>

#include <opencv2/imgproc.hpp>

#include "device/adb/AdbProtocol.h"

namespace eacu {

Frame decodeRawScreencap(const std::string& bytes) {
    if (bytes.size() < 12) return {};
    uint32_t w = readLe32(bytes.data()), h = readLe32(bytes.data() + 4);
    uint32_t format = readLe32(bytes.data() + 8);
    uint64_t pixels = uint64_t(w) * h * 4;
    if (w == 0 || h == 0 || w > 16384 || h > 16384 || bytes.size() < pixels) return {};
    uint64_t header = bytes.size() - pixels;
    if ((header != 12 && header != 16) || (format != 1 && format != 2)) return {};  // RGBA_8888, RGBX_8888
    cv::Mat rgba(static_cast<int>(h), static_cast<int>(w), CV_8UC4, const_cast<char*>(bytes.data() + header));
    Frame f;
    cv::cvtColor(rgba, f.bgr, cv::COLOR_RGBA2BGR);
    return f;
}

}  // namespace eacu
