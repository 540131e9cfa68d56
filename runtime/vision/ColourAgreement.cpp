#include "vision/ColourAgreement.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include <opencv2/imgproc.hpp>

namespace eacu {

namespace {

// sRGB's transfer function undone for each 8-bit value (IEC 61966-2-1).
struct LinearTable {
    float v[256];
    LinearTable() {
        for (int i = 0; i < 256; ++i) {
            const double c = i / 255.0;
            v[i] = float(c <= 0.04045 ? c / 12.92 : std::pow((c + 0.055) / 1.055, 2.4));
        }
    }
};

// The cube root of t > 0: an estimate from the float's bits (the exponent divided by three,
// after Kahan's cbrt), then two steps of Halley's method (y <- y (y^3 + 2t) / (2y^3 + t), cubic
// convergence: ~5 % off, then ~1e-4, then float precision). std::cbrt cost 5 times as much.
inline float cubeRoot(float t) {
    uint32_t bits;
    std::memcpy(&bits, &t, sizeof bits);
    bits = bits / 3 + 709921077u;
    float y;
    std::memcpy(&y, &bits, sizeof y);
    for (int i = 0; i < 2; ++i) {
        const float y3 = y * y * y;
        y *= (y3 + 2 * t) / (2 * y3 + t);
    }
    return y;
}

// CIE L*a*b*'s f(t): the cube root above (6/29)^3, the linear segment below.
inline float labF(float t) { return t > 0.008856f ? cubeRoot(t) : 7.787f * t + 16.f / 116.f; }

}  // namespace

cv::Mat chromaPlanes(const cv::Mat& bgr, double blur_sigma) {
    if (bgr.type() != CV_8UC3)
        throw std::invalid_argument("chromaPlanes: expected a BGR image (CV_8UC3), got type " + std::to_string(bgr.type()));
    // As OpenCV's cvtColor(COLOR_BGR2Lab) of the image scaled to [0, 1], whose one-time table
    // set-up cost ~90 ms on a process's first colour comparison: sRGB (D65) to XYZ with
    // OpenCV's matrix, each row over the white point's component, then a* = 500 (f(X) - f(Y)),
    // b* = 200 (f(Y) - f(Z)) (CIE 1976).
    static const LinearTable linear;
    constexpr float kX[3] = {0.412453f / 0.950456f, 0.357580f / 0.950456f, 0.180423f / 0.950456f};
    constexpr float kY[3] = {0.212671f, 0.715160f, 0.072169f};
    constexpr float kZ[3] = {0.019334f / 1.088754f, 0.119193f / 1.088754f, 0.950227f / 1.088754f};
    cv::Mat ab(bgr.size(), CV_32FC2);
    for (int y = 0; y < bgr.rows; ++y) {
        const uchar* p = bgr.ptr<uchar>(y);
        auto* out = ab.ptr<cv::Vec2f>(y);
        for (int x = 0; x < bgr.cols; ++x, p += 3) {
            const float b = linear.v[p[0]], g = linear.v[p[1]], r = linear.v[p[2]];
            const float fx = labF(kX[0] * r + kX[1] * g + kX[2] * b);
            const float fy = labF(kY[0] * r + kY[1] * g + kY[2] * b);
            const float fz = labF(kZ[0] * r + kZ[1] * g + kZ[2] * b);
            out[x] = {500.f * (fx - fy), 200.f * (fy - fz)};
        }
    }
    if (blur_sigma > 0) cv::GaussianBlur(ab, ab, {0, 0}, blur_sigma, blur_sigma, cv::BORDER_REPLICATE);
    return ab;
}

double chromaAgreementOfPlanes(const cv::Mat& ca, const cv::Mat& cb, const cv::Mat& mask, double c0) {
    if (ca.size() != cb.size() || ca.type() != CV_32FC2 || cb.type() != CV_32FC2)
        throw std::invalid_argument("chromaAgreement: expected two chroma planes (CV_32FC2) of one size, got " +
                                    std::to_string(ca.cols) + "x" + std::to_string(ca.rows) + " and " +
                                    std::to_string(cb.cols) + "x" + std::to_string(cb.rows));
    if (!mask.empty() && (mask.size() != ca.size() || mask.type() != CV_8U))
        throw std::invalid_argument("chromaAgreement: the mask must be CV_8U of the images' size");
    double cross = 0, energy = 0, n = 0;
    for (int y = 0; y < ca.rows; ++y) {
        const auto* pa = ca.ptr<cv::Vec2f>(y);
        const auto* pb = cb.ptr<cv::Vec2f>(y);
        const uchar* pm = mask.empty() ? nullptr : mask.ptr<uchar>(y);
        for (int x = 0; x < ca.cols; ++x) {
            if (pm && !pm[x]) continue;
            cross += double(pa[x][0]) * pb[x][0] + double(pa[x][1]) * pb[x][1];
            energy += double(pa[x][0]) * pa[x][0] + double(pa[x][1]) * pa[x][1] +
                      double(pb[x][0]) * pb[x][0] + double(pb[x][1]) * pb[x][1];
            n += 1;
        }
    }
    if (n == 0) return 1.0;  // nothing to compare (an all-transparent mask)
    double floor = n * c0 * c0;
    return (2 * cross + floor) / (energy + floor);
}

double chromaAgreement(const cv::Mat& a, const cv::Mat& b, const cv::Mat& mask, double blur_sigma,
                       double c0) {
    if (a.size() != b.size() || a.type() != CV_8UC3 || b.type() != CV_8UC3)
        throw std::invalid_argument("chromaAgreement: expected two BGR images of one size, got " +
                                    std::to_string(a.cols) + "x" + std::to_string(a.rows) + " and " +
                                    std::to_string(b.cols) + "x" + std::to_string(b.rows));
    return chromaAgreementOfPlanes(chromaPlanes(a, blur_sigma), chromaPlanes(b, blur_sigma), mask, c0);
}

}  // namespace eacu
