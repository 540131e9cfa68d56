#include "vision/Template.h"

#include "base/ImageDecode.h"

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <vector>

#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

namespace eacu {

namespace {

// pngScale of a file's bytes.
std::optional<double> pngScaleOf(const std::vector<unsigned char>& b) {
    if (!hasPngSignature(b)) return std::nullopt;
    auto be32 = [](const unsigned char* p) {
        return (uint32_t(p[0]) << 24) | (uint32_t(p[1]) << 16) | (uint32_t(p[2]) << 8) | uint32_t(p[3]);
    };
    // Chunks: length, type, data, CRC. pHYs comes before the image data (IDAT).
    for (size_t at = 8; at + 8 <= b.size();) {
        uint32_t len = be32(&b[at]);
        std::string type(reinterpret_cast<const char*>(&b[at + 4]), 4);
        if (type == "IDAT" || type == "IEND") return std::nullopt;
        if (type == "pHYs" && len == 9) {
            if (at + 8 + 9 > b.size()) return std::nullopt;
            const unsigned char* d = &b[at + 8];
            uint32_t ppm = be32(d);
            if (d[8] != 1 || ppm == 0) return std::nullopt;  // unit 1 = metre
            double dpi = ppm * 0.0254;
            double base = std::abs(dpi / 72 - std::round(dpi / 72)) < 0.02 ? 72.0 : 96.0;
            double scale = std::round(dpi / base * 100) / 100;
            return scale > 0.2 && scale < 8 ? std::optional<double>(scale) : std::nullopt;
        }
        at += 12 + size_t(len);  // length, type, data, CRC
    }
    return std::nullopt;
}

}  // namespace

Template Template::load(const std::string& path) {
    if (!std::filesystem::is_regular_file(path))
        throw std::runtime_error("cannot read image \"" + path + "\": no such file");
    // The file is read once: decoded (PNG or JPEG only, its declared size checked first:
    // decodeImage) and its pHYs scale read from the same bytes.
    std::vector<unsigned char> bytes;
    {
        std::ifstream in(path, std::ios::binary);
        bytes.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    }
    cv::Mat img;
    try {
        img = decodeImage(bytes, cv::IMREAD_UNCHANGED);
    } catch (const std::runtime_error& e) {
        throw std::runtime_error("cannot read image \"" + path + "\": " + e.what());
    }
    Template t;
    t.path = path;
    if (auto s = pngScaleOf(bytes)) t.scale = *s;
    t.name = std::filesystem::path(path).stem().string();
    if (img.depth() != CV_8U) img.convertTo(img, CV_8U, 1.0 / 256);
    switch (img.channels()) {
        case 1: cv::cvtColor(img, t.bgr, cv::COLOR_GRAY2BGR); break;
        case 3: t.bgr = img; break;
        case 4: {
            cv::cvtColor(img, t.bgr, cv::COLOR_BGRA2BGR);
            cv::Mat alpha;
            cv::extractChannel(img, alpha, 3);
            double minA = 0;
            cv::minMaxLoc(alpha, &minA);
            if (minA < 255) t.mask = alpha > 0;
            break;
        }
        default: throw std::runtime_error("cannot read image \"" + path + "\": unsupported channels");
    }
    return t;
}

std::optional<double> pngScale(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::vector<unsigned char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    return pngScaleOf(bytes);
}

}  // namespace eacu
