// The actions replay's gate (recorder/Replay findRecordedCrop): the recorded screen around a target
// must be on the live screen, near its recorded place or anywhere (the input then moves with it).
#include <catch2/catch.hpp>

#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include "base/Cancel.h"
#include "base/Clock.h"
#include "device/image/ImageDevice.h"
#include "recorder/Replay.h"
#include "vision/TemplateMatcher.h"

using namespace eacu;

namespace {

const std::string kShot = std::string(EACU_FIXTURES) + "/xcalc.png";
// The "AC" key of xcalc.png (the calculator's own asset box, with the gate's 4 px margin).
const Rect kCrop{182, 64, 40, 26};

// The gate (`timeout` seconds) for kCrop of `recorded` on a live screen showing `live_img`.
ReplayGate gateOnImage(const cv::Mat& live_img, const cv::Mat& recorded, const std::string& name,
                       double timeout = 0.3) {
    std::string path = "/tmp/eacu-test-replay-gate-" + name + ".png";
    REQUIRE(cv::imwrite(path, live_img));
    ImageDevice live(path);
    ReplayOptions o;
    o.timeout = timeout;
    TemplateMatcher m;
    ReplayGate g = findRecordedCrop(live, m, recorded, kCrop, o, processToken());
    std::remove(path.c_str());
    return g;
}

}  // namespace

TEST_CASE("replay gate: the recorded crop at its place passes, not relocated", "[replay]") {
    ImageDevice live(kShot);
    cv::Mat recorded = cv::imread(kShot, cv::IMREAD_COLOR);
    ReplayOptions o;
    o.timeout = 0.5;
    TemplateMatcher m;
    ReplayGate g = findRecordedCrop(live, m, recorded, kCrop, o, processToken());
    CHECK(g.found);
    CHECK(!g.relocated);
    CHECK(g.shift.x == 0);
    CHECK(g.shift.y == 0);
    CHECK(g.match.score >= 0.99);
}

TEST_CASE("replay gate: a target that moved is found elsewhere and the shift says where", "[replay]") {
    cv::Mat shot = cv::imread(kShot, cv::IMREAD_COLOR);
    // The live screen: the same window 300 px to the right and 150 px down.
    cv::Mat moved(shot.rows + 150, shot.cols + 300, CV_8UC3, cv::Scalar(40, 40, 40));
    shot.copyTo(moved(cv::Rect(300, 150, shot.cols, shot.rows)));
    ReplayGate g = gateOnImage(moved, shot, "moved", 0.5);
    CHECK(g.found);
    CHECK(g.relocated);
    CHECK(g.shift.x == 300);
    CHECK(g.shift.y == 150);
}

TEST_CASE("replay gate: a changed screen fails after the timeout with the best candidate", "[replay]") {
    cv::Mat shot = cv::imread(kShot, cv::IMREAD_COLOR);
    cv::Mat recorded = shot.clone();
    // What was recorded there is not on the live screen any more: a different label.
    cv::rectangle(recorded, cv::Rect(kCrop.x + 6, kCrop.y + 6, kCrop.w - 12, kCrop.h - 12), cv::Scalar(0, 0, 255), cv::FILLED);
    ImageDevice live(kShot);
    ReplayOptions o;
    o.timeout = 0.3;
    TemplateMatcher m;
    double t0 = monotonicSeconds();
    ReplayGate g = findRecordedCrop(live, m, recorded, kCrop, o, processToken());
    double secs = monotonicSeconds() - t0;
    CHECK(!g.found);
    CHECK(g.match.score < o.threshold);
    CHECK(secs >= 0.2);
    CHECK(secs < 2.0);
    CHECK(!g.live.empty());
}

TEST_CASE("replay gate: a cancelled run stops waiting", "[replay]") {
    cv::Mat recorded = cv::imread(kShot, cv::IMREAD_COLOR);
    cv::rectangle(recorded, cv::Rect(kCrop.x + 6, kCrop.y + 6, 20, 10), cv::Scalar(0, 255, 0), cv::FILLED);
    ImageDevice live(kShot);
    ReplayOptions o;
    o.timeout = 30;
    TemplateMatcher m;
    CancelToken token;
    token.cancel("stopped");
    CHECK_THROWS_AS(findRecordedCrop(live, m, recorded, kCrop, o, token), Cancelled);
}

TEST_CASE("replay gate: a crop that shows at two places away from its own is not guessed between", "[replay]") {
    cv::Mat shot = cv::imread(kShot, cv::IMREAD_COLOR);
    // The live screen: the recorded place is covered, and the window shows twice elsewhere
    // (two look-alikes, as two empty text fields are).
    cv::Mat twice(shot.rows * 2 + 300, shot.cols + 300, CV_8UC3, cv::Scalar(40, 40, 40));
    shot.copyTo(twice(cv::Rect(300, 150, shot.cols, shot.rows)));
    shot.copyTo(twice(cv::Rect(300, 250 + shot.rows, shot.cols, shot.rows)));
    ReplayGate g = gateOnImage(twice, shot, "twice");
    CHECK(!g.found);
    CHECK(!g.relocated);
    CHECK(g.elsewhere == 2);
    CHECK(g.match.score >= ReplayOptions().threshold);  // the best look-alike is reported, not acted on
}

TEST_CASE("replay gate: a look-alike elsewhere without the recorded surroundings is not taken", "[replay]") {
    cv::Mat shot = cv::imread(kShot, cv::IMREAD_COLOR);
    // The live screen: the recorded place is covered; the key alone (no keypad around it)
    // shows at one other place, as the next empty text field of a form does without its label.
    cv::Mat live_img = shot.clone();
    live_img(cv::Rect(kCrop.x - 2, kCrop.y - 2, kCrop.w + 4, kCrop.h + 4)).setTo(cv::Scalar(40, 40, 40));
    cv::Mat lone(shot.rows + 200, shot.cols, CV_8UC3, cv::Scalar(90, 90, 90));
    live_img.copyTo(lone(cv::Rect(0, 0, shot.cols, shot.rows)));
    shot(cv::Rect(kCrop.x, kCrop.y, kCrop.w, kCrop.h)).copyTo(lone(cv::Rect(60, shot.rows + 100, kCrop.w, kCrop.h)));
    ReplayGate g = gateOnImage(lone, shot, "lone");
    CHECK(!g.found);
    CHECK(!g.relocated);
    CHECK(g.elsewhere == 1);
}
