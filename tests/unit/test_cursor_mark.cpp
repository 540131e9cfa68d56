// The mouse pointer mark on model screenshots (runtime/vision/CursorMark, seed 001 §4.2).
#include <catch2/catch.hpp>

#include <opencv2/core.hpp>

#include "vision/CursorMark.h"

using namespace eacu;

namespace {

// Pixels of `m` inside `r` that are the mark's red (#ff3b30, BGR 48,59,255), give or take
// anti-aliasing.
int redPixels(const cv::Mat& m, cv::Rect r) {
    r &= cv::Rect(0, 0, m.cols, m.rows);
    int n = 0;
    for (int y = r.y; y < r.y + r.height; ++y)
        for (int x = r.x; x < r.x + r.width; ++x) {
            cv::Vec3b p = m.at<cv::Vec3b>(y, x);
            if (p[2] > 200 && p[1] < 120 && p[0] < 120) ++n;
        }
    return n;
}

}  // namespace

TEST_CASE("drawCursorMark: a circle at the pointer, the arrow and label up-left of it", "[cursor]") {
    cv::Mat m(400, 600, CV_8UC3, cv::Scalar(90, 90, 90));
    drawCursorMark(m, {300, 200});
    CHECK(redPixels(m, {286, 186, 29, 29}) > 60);        // the circle (radius 12, width 4)
    CHECK(redPixels(m, {297, 197, 7, 7}) == 0);          // its inside stays clear: the point shows
    CHECK(redPixels(m, {220, 120, 70, 70}) > 40);        // the arrow from 80 px up-left
    CHECK(redPixels(m, {120, 90, 110, 35}) > 20);        // the label at the tail, left of it
    CHECK(redPixels(m, {320, 220, 280, 180}) == 0);      // nothing down-right
}

TEST_CASE("drawCursorMark: near the top-left corner the arrow comes from down-right, inside", "[cursor]") {
    cv::Mat m(300, 400, CV_8UC3, cv::Scalar(90, 90, 90));
    drawCursorMark(m, {5, 5});
    CHECK(redPixels(m, {0, 0, 20, 20}) > 20);
    CHECK(redPixels(m, {20, 20, 70, 70}) > 40);  // the arrow from (85, 85)
    cv::Mat outside(300, 400, CV_8UC3, cv::Scalar(90, 90, 90));
    drawCursorMark(outside, {-50, 1000});  // clamped to the edge, no throw
    CHECK(redPixels(outside, {0, 280, 20, 20}) > 10);
    cv::Mat empty;
    CHECK_THROWS_AS(drawCursorMark(empty, {0, 0}), std::invalid_argument);
}
