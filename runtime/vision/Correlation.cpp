#include "vision/Correlation.h"

#include <cmath>
#include <stdexcept>

#include <opencv2/imgproc.hpp>

namespace eacu {

namespace {

// Whether direct correlation is cheaper than matchTemplate, by a cost model fitted to
// measurements here (templates of 20x12 to 900x500, 9 to 441 positions): matchTemplate costs
// about 20 ns per image pixel whatever the template; the direct way 0.25 ns per multiply-add,
// 5 ns per image pixel (the float copy and the integral images) and 1 us per position.
bool directIsCheaper(const cv::Mat& image, const cv::Mat& tpl) {
    const double positions = double(image.cols - tpl.cols + 1) * (image.rows - tpl.rows + 1);
    const double pixels = double(image.total());
    const double direct = 0.25e-9 * positions * double(tpl.total()) + 5e-9 * pixels + 1e-6 * positions;
    return direct < 20e-9 * pixels;
}

// OpenCV's normalisation of one window (templmatch.cpp): `num` the sum of I·T', `sum`/`sqsum`
// the window's sums, `n` its pixels, `tnorm` sqrt(sum(T'^2)).
float normalised(double num, double sum, double sqsum, double n, double tnorm) {
    double t = std::sqrt(std::max(sqsum - sum * sum / n, 0.0)) * tnorm;
    if (std::fabs(num) < t) return float(num / t);
    if (std::fabs(num) < t * 1.125) return num > 0 ? 1.f : -1.f;
    return 0.f;
}

// matchTemplate's result, NaN (a flat window, in some OpenCV versions) as -1.
void byTransform(const cv::Mat& image, const cv::Mat& tpl, cv::Mat& result) {
    cv::matchTemplate(image, tpl, result, cv::TM_CCOEFF_NORMED);
    cv::patchNaNs(result, -1.0);
}

}  // namespace

ZeroMeanTemplate::ZeroMeanTemplate(const cv::Mat& grey) {
    grey.convertTo(zero_mean, CV_32F);
    zero_mean -= cv::mean(zero_mean)[0];
    norm = std::sqrt(zero_mean.dot(zero_mean));
}

void correlate(const cv::Mat& image, const cv::Mat& grey, const ZeroMeanTemplate& tpl, cv::Mat& result) {
    if (image.type() != CV_8UC1 || grey.type() != CV_8UC1 || image.cols < grey.cols || image.rows < grey.rows)
        throw std::invalid_argument("correlate: expected 8-bit grey images, the template no larger than the image");
    const int rw = image.cols - grey.cols + 1, rh = image.rows - grey.rows + 1;
    const double n = double(grey.total());
    if (!directIsCheaper(image, grey)) return byTransform(image, grey, result);
    result.create(rh, rw, CV_32F);
    if (tpl.norm < 1e-12) {  // a flat template: 1 everywhere, as OpenCV says
        result.setTo(1.0);
        return;
    }
    cv::Mat img;
    image.convertTo(img, CV_32F);
    cv::Mat sum, sqsum;
    cv::integral(image, sum, sqsum, CV_64F, CV_64F);
    for (int y = 0; y < rh; ++y)
        for (int x = 0; x < rw; ++x) {
            cv::Rect r(x, y, grey.cols, grey.rows);
            double s = sum.at<double>(y + r.height, x + r.width) - sum.at<double>(y, x + r.width) -
                       sum.at<double>(y + r.height, x) + sum.at<double>(y, x);
            double s2 = sqsum.at<double>(y + r.height, x + r.width) - sqsum.at<double>(y, x + r.width) -
                        sqsum.at<double>(y + r.height, x) + sqsum.at<double>(y, x);
            double num = img(r).dot(tpl.zero_mean);
            result.at<float>(y, x) = normalised(num, s, s2, n, tpl.norm);
        }
}

void correlate(const cv::Mat& image, const cv::Mat& tpl, cv::Mat& result) {
    if (image.type() == CV_8UC1 && tpl.type() == CV_8UC1 && image.cols >= tpl.cols && image.rows >= tpl.rows &&
        !directIsCheaper(image, tpl))
        return byTransform(image, tpl, result);  // no template to prepare
    correlate(image, tpl, ZeroMeanTemplate(tpl), result);
}

double correlation(const cv::Mat& a, const cv::Mat& b) {
    if (a.size() != b.size()) throw std::invalid_argument("correlation: expected two images of one size");
    cv::Mat r;
    correlate(a, b, r);
    return r.at<float>(0, 0);
}

}  // namespace eacu
