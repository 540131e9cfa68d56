#include "base/ImageDecode.h"

#include <cstring>
#include <optional>
#include <stdexcept>
#include <utility>

#include <opencv2/imgcodecs.hpp>

namespace eacu {

namespace {

const unsigned char kPngSignature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};

uint32_t be32(const unsigned char* p) {
    return (uint32_t(p[0]) << 24) | (uint32_t(p[1]) << 16) | (uint32_t(p[2]) << 8) | uint32_t(p[3]);
}

// The width and height a JPEG's first start-of-frame segment (SOF0..SOF15 but DHT, JPG, DAC)
// declares (ITU-T T.81 B.2.2), or nullopt when none comes before the scan. Markers are read as
// libjpeg's next_marker() reads them (jdmarker.c), so that the size checked is the size decoded:
// bytes up to a 0xFF are skipped, then fill bytes 0xFF; 0xFF 0x00 is no marker (scanning goes
// on); segments with a length are skipped by it.
std::optional<std::pair<uint32_t, uint32_t>> jpegSizeAfterSoi(const std::vector<unsigned char>& b) {
    size_t at = 2;  // after SOI
    for (;;) {
        while (at < b.size() && b[at] != 0xFF) ++at;
        while (at < b.size() && b[at] == 0xFF) ++at;
        if (at >= b.size()) return std::nullopt;
        unsigned char m = b[at++];
        if (m == 0x00) continue;                                         // a stuffed 0xFF: no marker
        if (m == 0xD8 || m == 0x01 || (m >= 0xD0 && m <= 0xD7)) continue;  // no length
        if (m == 0xD9 || m == 0xDA) return std::nullopt;                 // end of image, start of scan
        if (at + 2 > b.size()) return std::nullopt;
        size_t len = (size_t(b[at]) << 8) | b[at + 1];
        if (m >= 0xC0 && m <= 0xCF && m != 0xC4 && m != 0xC8 && m != 0xCC) {
            if (at + 7 > b.size()) return std::nullopt;
            return std::make_pair(uint32_t((b[at + 5] << 8) | b[at + 6]), uint32_t((b[at + 3] << 8) | b[at + 4]));
        }
        if (len < 2) return std::nullopt;
        at += len;
    }
}

}  // namespace

std::optional<std::pair<uint32_t, uint32_t>> jpegSize(const std::vector<unsigned char>& b) {
    if (b.size() < 3 || b[0] != 0xFF || b[1] != 0xD8 || b[2] != 0xFF) return std::nullopt;
    return jpegSizeAfterSoi(b);
}

bool hasPngSignature(const std::vector<unsigned char>& b) {
    return b.size() >= 8 && std::memcmp(b.data(), kPngSignature, 8) == 0;
}

cv::Mat decodeImage(const std::vector<unsigned char>& b, int flags) {
    bool png = hasPngSignature(b);
    bool jpeg = b.size() >= 3 && b[0] == 0xFF && b[1] == 0xD8 && b[2] == 0xFF;
    if (!png && !jpeg)
        throw std::runtime_error("not a PNG or JPEG (expected the PNG signature or a JPEG start of image in the first "
                                 "bytes, got " + std::to_string(b.size()) + " bytes that start otherwise)");
    std::optional<std::pair<uint32_t, uint32_t>> size;
    if (png && b.size() >= 24 && std::memcmp(&b[12], "IHDR", 4) == 0) size = std::make_pair(be32(&b[16]), be32(&b[20]));
    if (jpeg) size = jpegSizeAfterSoi(b);
    if (!size)  // nothing is decoded unchecked
        throw std::runtime_error(std::string("declares no size (expected ") +
                                 (png ? "an IHDR chunk first" : "a start-of-frame segment before the scan") + ")");
    if (uint64_t(size->first) * size->second > uint64_t(kMaxImagePixels))
        throw std::runtime_error("declares " + std::to_string(size->first) + "x" + std::to_string(size->second) +
                                 " pixels, more than the " + std::to_string(kMaxImagePixels) + " an image may have");
    cv::Mat img;
    try {
        img = cv::imdecode(b, flags);
    } catch (const cv::Exception& e) {
        throw std::runtime_error("the decoder refused it: " + e.msg);
    }
    if (img.empty()) throw std::runtime_error("cannot be decoded (truncated or corrupt)");
    return img;
}

}  // namespace eacu
