#include "vision/Correlation.h"

#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include <opencv2/imgproc.hpp>

namespace eacu {

namespace {

// Whether direct correlation is cheaper than matchTemplate, by a cost model fitted to
// measurements here (templates of 20x12 to 900x500, 9 to 441 positions): matchTemplate costs
// about 20 ns per image pixel whatever the template; the direct way 0.27 ns per multiply-add,
// 1 ns per image pixel (the float copy and the window sums) and 1 us per position.
bool directIsCheaper(const cv::Mat& image, const cv::Mat& tpl) {
    const double positions = double(image.cols - tpl.cols + 1) * (image.rows - tpl.rows + 1);
    const double pixels = double(image.total());
    const double direct = 0.27e-9 * positions * double(tpl.total()) + 1e-9 * pixels + 1e-6 * positions;
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
    // The image as floats for the dot products, in a buffer kept by the thread (a large
    // template's window is megabytes, and fresh pages cost more than the conversion).
    thread_local std::vector<float> buffer;
    buffer.resize(image.total());
    cv::Mat img(image.rows, image.cols, CV_32F, buffer.data());
    image.convertTo(img, CV_32F);
    // The windows' sums of I and I^2, exact in integers: per column over the window's rows,
    // slid down a row at a time, then along the row (one pass over the image, where integral
    // images write 16 bytes per pixel).
    const int w = grey.cols, h = grey.rows;
    std::vector<int64_t> col(image.cols, 0), col2(image.cols, 0);
    auto addRow = [&](int y, int sign) {
        const uchar* p = image.ptr<uchar>(y);
        for (int x = 0; x < image.cols; ++x) {
            const int64_t v = p[x];
            col[x] += sign * v;
            col2[x] += sign * v * v;
        }
    };
    for (int y = 0; y < h; ++y) addRow(y, 1);
    for (int y = 0; y < rh; ++y) {
        if (y > 0) {
            addRow(y - 1, -1);
            addRow(y + h - 1, 1);
        }
        int64_t s = 0, s2 = 0;
        for (int x = 0; x < w; ++x) {
            s += col[x];
            s2 += col2[x];
        }
        float* out = result.ptr<float>(y);
        for (int x = 0; x < rw; ++x) {
            if (x > 0) {
                s += col[x + w - 1] - col[x - 1];
                s2 += col2[x + w - 1] - col2[x - 1];
            }
            const double num = img(cv::Rect(x, y, w, h)).dot(tpl.zero_mean);
            out[x] = normalised(num, double(s), double(s2), n, tpl.norm);
        }
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
