#include "vision/ColourAgreement.h"

#include <stdexcept>
#include <string>
#include <vector>

#include <opencv2/imgproc.hpp>

namespace eacu {

cv::Mat chromaPlanes(const cv::Mat& bgr, double blur_sigma) {
    cv::Mat f, lab;
    bgr.convertTo(f, CV_32F, 1.0 / 255);
    cv::cvtColor(f, lab, cv::COLOR_BGR2Lab);
    std::vector<cv::Mat> ch;
    cv::split(lab, ch);
    cv::Mat ab;
    cv::merge(std::vector<cv::Mat>{ch[1], ch[2]}, ab);
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
