#include "vision/ScreenDiff.h"

#include <stdexcept>

#include <opencv2/imgproc.hpp>

namespace eacu {

double changeRatio(const cv::Mat& a, const cv::Mat& b, int tolerance, std::optional<Rect> region) {
    if (a.size() != b.size())
        throw std::invalid_argument("changeRatio: frames differ in size (" +
                                    std::to_string(a.cols) + "x" + std::to_string(a.rows) + " vs " +
                                    std::to_string(b.cols) + "x" + std::to_string(b.rows) + ")");
    cv::Rect r(0, 0, a.cols, a.rows);
    if (region) r &= cv::Rect(region->x, region->y, region->w, region->h);
    if (r.area() == 0) return 0.0;
    cv::Mat ga, gb, diff;
    cv::cvtColor(a(r), ga, cv::COLOR_BGR2GRAY);
    cv::cvtColor(b(r), gb, cv::COLOR_BGR2GRAY);
    cv::absdiff(ga, gb, diff);
    return double(cv::countNonZero(diff > tolerance)) / double(r.area());
}

}  // namespace eacu
