// Normalized cross-correlation at a few positions, computed directly: what OpenCV's
// matchTemplate(TM_CCOEFF_NORMED) gives, without its Fourier transforms, which cost as much for a
// 3x3 result as for a 100x100 one (a 900x500 template: ~12 ms per call against ~0.2 ms per
// position directly).
#pragma once
#include <opencv2/core.hpp>

namespace eacu {

/// A greyscale template (CV_8UC1) prepared for direct correlation: its pixels minus their mean
/// (CV_32F) and the norm of those.
struct ZeroMeanTemplate {
    cv::Mat zero_mean;
    double norm = 0;
    explicit ZeroMeanTemplate(const cv::Mat& grey);
    ZeroMeanTemplate() = default;
    bool empty() const { return zero_mean.empty(); }
};

/// TM_CCOEFF_NORMED of `tpl` over `image` (both CV_8UC1, image at least as large): a
/// (W-w+1) x (H-h+1) CV_32F result, each value in [-1, 1], with OpenCV's conventions: 0 for a
/// window without variance, 1 everywhere for a template without variance. The formula is OpenCV's
/// (imgproc/templmatch.cpp, common_matchTemplate): sum(I·T') / sqrt(sum(T'^2) · (sum(I^2) -
/// sum(I)^2 / n)), T' the template minus its mean. Computed directly when that is cheaper (few
/// positions for the template's size), else by cv::matchTemplate; the two agree to ~2e-4 (the transforms' float rounding).
void correlate(const cv::Mat& image, const cv::Mat& tpl, cv::Mat& result);
/// The same with `tpl` already prepared (the grey pixels `grey` of the template).
void correlate(const cv::Mat& image, const cv::Mat& grey, const ZeroMeanTemplate& tpl, cv::Mat& result);

/// The correlation of two greyscale images of one size (CV_8UC1): correlate's single value.
double correlation(const cv::Mat& a, const cv::Mat& b);

}  // namespace eacu
