#include "recorder/ScaledPng.h"

#include <cmath>
#include <cstdint>
#include <fstream>
#include <stdexcept>
#include <vector>

#include <opencv2/imgcodecs.hpp>

#include "vision/Template.h"

namespace eacu {

namespace {

// PNG's CRC-32 (ISO 3309, the PNG specification's section 5.5), over `n` bytes.
uint32_t crc32Of(const unsigned char* data, size_t n, uint32_t crc = 0) {
    crc = ~crc;
    for (size_t i = 0; i < n; ++i) {
        crc ^= data[i];
        for (int k = 0; k < 8; ++k) crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
    }
    return ~crc;
}

void put32(std::vector<unsigned char>& v, uint32_t x) {
    for (int s = 24; s >= 0; s -= 8) v.push_back((unsigned char)(x >> s));
}

// A PNG of `bgr` with a pHYs chunk of `dpi` dots per inch.
std::vector<unsigned char> pngWithDpi(const cv::Mat& bgr, double dpi) {
    std::vector<unsigned char> png;
    if (!cv::imencode(".png", bgr, png)) throw std::runtime_error("cannot encode a PNG");
    std::vector<unsigned char> chunk;
    put32(chunk, 9);
    std::vector<unsigned char> body = {'p', 'H', 'Y', 's'};
    uint32_t ppm = uint32_t(dpi / 0.0254 + 0.5);
    put32(body, ppm);
    put32(body, ppm);
    body.push_back(1);  // unit: metre
    chunk.insert(chunk.end(), body.begin(), body.end());
    put32(chunk, crc32Of(body.data(), body.size()));
    const size_t after_ihdr = 8 + 12 + 13;  // signature, IHDR's length, type, 13 bytes, CRC
    png.insert(png.begin() + long(after_ihdr), chunk.begin(), chunk.end());
    return png;
}

}  // namespace

void writeScaledPng(const std::string& path, const cv::Mat& bgr, double scale) {
    // pngScale reads multiples of 72 dpi as macOS writes them, others against 96 dpi: pick the
    // resolution it reads back as `scale`.
    for (double dpi : {96.0 * scale, 72.0 * scale}) {
        std::vector<unsigned char> png = pngWithDpi(bgr, dpi);
        {
            std::ofstream out(path, std::ios::binary | std::ios::trunc);
            out.write(reinterpret_cast<const char*>(png.data()), std::streamsize(png.size()));
            if (!out) throw std::runtime_error("cannot write \"" + path + "\"");
        }
        auto back = pngScale(path);
        if (back && std::abs(*back - scale) < 0.01) return;
    }
}

}  // namespace eacu
