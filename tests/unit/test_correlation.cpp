// Direct correlation (vision/Correlation) against OpenCV's matchTemplate(TM_CCOEFF_NORMED).
#include <catch2/catch.hpp>

#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include "vision/Correlation.h"

using namespace eacu;

namespace {

const std::string kShot = EACU_SOURCE_DIR "/tests/corpus/locate-v1/shots/glossary@1440x900x1.5.png";

double maxDiff(const cv::Mat& image, const cv::Mat& tpl) {
    cv::Mat ours, theirs;
    correlate(image, tpl, ours);
    cv::matchTemplate(image, tpl, theirs, cv::TM_CCOEFF_NORMED);
    cv::patchNaNs(theirs, -1.0);
    REQUIRE(ours.size() == theirs.size());
    return cv::norm(ours, theirs, cv::NORM_INF);
}

}  // namespace

TEST_CASE("direct correlation agrees with matchTemplate on a screenshot", "[correlation]") {
    cv::Mat bgr = cv::imread(kShot, cv::IMREAD_COLOR), grey;
    REQUIRE(!bgr.empty());
    cv::cvtColor(bgr, grey, cv::COLOR_BGR2GRAY);
    for (cv::Size s : {cv::Size(12, 9), cv::Size(100, 60), cv::Size(300, 150), cv::Size(900, 500)})
        for (int margin : {0, 1, 3}) {
            cv::Rect r(300, 330, s.width, s.height);
            cv::Mat tpl = grey(r).clone();
            cv::Mat image = grey(cv::Rect(r.x - margin, r.y - margin, s.width + 2 * margin, s.height + 2 * margin));
            INFO(s.width << "x" << s.height << " margin " << margin);
            CHECK(maxDiff(image, tpl) < 1e-3);  // matchTemplate's float transforms err by ~2e-4
            cv::Mat r1;
            correlate(image, tpl, r1);
            CHECK(r1.at<float>(margin, margin) == Approx(1.0).margin(1e-5));
        }
}

TEST_CASE("direct correlation: noise, flat windows and flat templates", "[correlation]") {
    cv::RNG rng(7);
    cv::Mat noise(80, 120, CV_8UC1);
    rng.fill(noise, cv::RNG::UNIFORM, 0, 256);
    CHECK(maxDiff(noise, noise(cv::Rect(10, 10, 60, 40)).clone()) < 1e-4);
    cv::Mat flat(40, 60, CV_8UC1, cv::Scalar(200));
    cv::Mat tpl = noise(cv::Rect(0, 0, 30, 20)).clone();
    cv::Mat r;
    correlate(flat, tpl, r);  // no variance in any window: 0, as OpenCV
    CHECK(cv::norm(r, cv::NORM_INF) == 0);
    cv::Mat plain(20, 30, CV_8UC1, cv::Scalar(9));
    correlate(noise, plain, r);  // a flat template: 1 everywhere, as OpenCV
    CHECK(cv::norm(r, cv::Mat::ones(r.size(), CV_32F), cv::NORM_INF) == 0);
    CHECK(maxDiff(noise, plain) == 0);
    CHECK(correlation(tpl, tpl) == Approx(1.0).margin(1e-6));
    cv::Mat inverted = 255 - tpl;
    CHECK(correlation(tpl, inverted) == Approx(-1.0).margin(1e-6));
    CHECK_THROWS_AS(correlation(tpl, noise), std::invalid_argument);
    CHECK_THROWS_AS(correlate(tpl, noise, r), std::invalid_argument);
}
