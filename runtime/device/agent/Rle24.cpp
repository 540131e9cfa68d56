#include "device/agent/Rle24.h"

#include <cstring>
#include <stdexcept>
#include <string>

namespace eacu {

void decodeRle24(std::string_view data, cv::Mat& bgr, const Rect& rect) {
    if (rect.x < 0 || rect.y < 0 || rect.w < 0 || rect.h < 0 || rect.x + rect.w > bgr.cols || rect.y + rect.h > bgr.rows)
        throw std::runtime_error("rle24: region " + std::to_string(rect.w) + "x" + std::to_string(rect.h) + " at " +
                                 std::to_string(rect.x) + "," + std::to_string(rect.y) + " is outside the " +
                                 std::to_string(bgr.cols) + "x" + std::to_string(bgr.rows) + " frame");
    const size_t total = size_t(rect.w) * size_t(rect.h);
    size_t done = 0, i = 0;
    auto put = [&](const char* px) {
        uchar* d = bgr.ptr<uchar>(rect.y + int(done / rect.w)) + size_t(rect.x + int(done % rect.w)) * 3;
        std::memcpy(d, px, 3);
        ++done;
    };
    while (i < data.size()) {
        unsigned c = static_cast<unsigned char>(data[i++]);
        size_t n = c < 128 ? c + 1 : c - 126;
        if (done + n > total)
            throw std::runtime_error("rle24: more pixels than the region's " + std::to_string(total));
        if (c < 128) {
            if (i + n * 3 > data.size()) throw std::runtime_error("rle24: the data ends inside a literal run");
            for (size_t k = 0; k < n; ++k) put(data.data() + i + k * 3);
            i += n * 3;
        } else {
            if (i + 3 > data.size()) throw std::runtime_error("rle24: the data ends inside a repeat run");
            for (size_t k = 0; k < n; ++k) put(data.data() + i);
            i += 3;
        }
    }
    if (done != total)
        throw std::runtime_error("rle24: " + std::to_string(done) + " pixels where the region has " + std::to_string(total));
}

}  // namespace eacu
