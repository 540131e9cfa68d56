// The hybrid locator: scales, stages, variants, masks and ties, on real xcalc screenshots.
#include <catch2/catch.hpp>

#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include "vision/Locator.h"
#include "vision/LocatorSearch.h"
#include "vision/ScaleEstimator.h"

using namespace eacu;

namespace {

const std::string kImages = EACU_SOURCE_DIR "/scripts/calculator/images/";

cv::Mat xcalc() {
    cv::Mat m = cv::imread(std::string(EACU_FIXTURES) + "/xcalc.png", cv::IMREAD_COLOR);
    REQUIRE_FALSE(m.empty());
    return m;
}

cv::Mat scaled(const cv::Mat& m, double s) {
    cv::Mat out;
    cv::resize(m, out, {}, s, s, s < 1 ? cv::INTER_AREA : cv::INTER_LINEAR);
    return out;
}

// The "7" key's label box in tests/fixtures/xcalc.png.
const Rect kSeven{54, 278, 32, 18};

}  // namespace

TEST_CASE("the locator finds a key at other scales, blind", "[locator]") {
    // The label of the "7" key: a glyph on white, which pins the place more than the scale.
    Template t = Template::load(kImages + "btn_7.png");
    Locator locator;
    for (double s : {0.75, 1.0, 1.25, 1.5, 2.0}) {
        INFO("scale " << s);
        PreparedFrame frame(scaled(xcalc(), s));
        LocateReport r = locator.locate(frame, {t});
        CHECK(r.match.found);
        CHECK(r.match.scale == Approx(s).epsilon(0.16));
        Point c = r.match.box.center();
        CHECK(std::abs(c.x - (kSeven.x + kSeven.w / 2.0) * s) <= 3 * s);
        CHECK(std::abs(c.y - (kSeven.y + kSeven.h / 2.0) * s) <= 3 * s);
        CHECK(r.match.score >= t.threshold);
        CHECK(r.match.color_score >= t.threshold);
    }
}

TEST_CASE("the locator does not find what is not there, at any scale", "[locator]") {
    // The display of xcalc.png shows 0: no 5 in it (the "5" key's label below uses the same
    // glyph, so the search is kept to the display).
    Template t = Template::load(kImages + "display_5.png");
    t.threshold = 0.9;
    Locator locator;
    PreparedFrame frame(xcalc());
    LocateHints hints;
    hints.region = Rect{0, 0, 226, 60};
    LocateReport r = locator.locate(frame, {t}, hints);
    CHECK_FALSE(r.match.found);
    REQUIRE_FALSE(r.stages.empty());
    for (const auto& st : r.stages) CHECK_FALSE(st.best.found);
}

TEST_CASE("hints: the expected scale and the last-seen place are tried first", "[locator]") {
    Template t = Template::load(kImages + "btn_7.png");
    Locator locator;
    PreparedFrame frame(scaled(xcalc(), 1.5));
    LocateHints hints;
    hints.expected_scale = 1.5;
    LocateReport r = locator.locate(frame, {t}, hints);
    REQUIRE(r.match.found);
    CHECK(r.match.method == "expected_scale");
    CHECK(r.stages.size() == 1);

    LocateHints again;
    again.last_seen = r.match.box;
    again.last_scale = r.match.scale;
    PreparedFrame next(scaled(xcalc(), 1.5));
    LocateReport r2 = locator.locate(next, {t}, again);
    REQUIRE(r2.match.found);
    CHECK(r2.match.method == "last_seen");
    CHECK(r2.match.box == r.match.box);
}

TEST_CASE("the last-seen place ends the search only with a match as good as before", "[locator]") {
    // Key 7's label, last seen (score 1) where key 8's label now is: 8 scores far less there,
    // above a low threshold; the full search takes 7 at its own place.
    Locator locator;
    PreparedFrame frame(xcalc());
    LocateHints h8;
    h8.expected_scale = 1.0;
    LocateReport eight = locator.locate(frame, {Template::load(kImages + "btn_8.png")}, h8);
    REQUIRE(eight.match.found);
    Template t = Template::load(kImages + "btn_7.png");
    t.threshold = 0.3;
    LocateHints hints;
    hints.expected_scale = 1.0;
    hints.last_seen = eight.match.box;
    hints.last_scale = 1.0;
    LocateReport fooled = locator.locate(frame, {t}, hints);  // no score known: the old rule
    REQUIRE(fooled.match.found);
    CHECK(fooled.match.method == "last_seen");
    CHECK(fooled.match.box.iou(eight.match.box) > 0.5);
    hints.last_score = 1.0;
    LocateReport r = locator.locate(frame, {t}, hints);
    REQUIRE(r.match.found);
    CHECK(r.match.box == kSeven);
    CHECK(r.match.method == "expected_scale");
    REQUIRE(r.stages.size() >= 2);
    CHECK(r.stages.front().stage == "last_seen");
}

TEST_CASE("any variant matching is a hit", "[locator]") {
    Template absent = Template::load(kImages + "display_5.png");
    absent.threshold = 0.95;
    Template seven = Template::load(kImages + "btn_7.png");
    seven.threshold = 0.95;
    Locator locator;
    PreparedFrame frame(xcalc());
    LocateHints hints;
    hints.expected_scale = 1.0;
    hints.region = Rect{0, 250, 226, 60};  // the 7 8 9 row, no display digits
    LocateReport r = locator.locate(frame, {absent, seven}, hints);
    REQUIRE(r.match.found);
    CHECK(r.match.box == kSeven);
}

TEST_CASE("a mask leaves the masked pixels out", "[locator]") {
    // The "7" label with its right half replaced by noise, masked out: still found.
    Template t = Template::load(kImages + "btn_7.png");
    cv::Mat noise(t.bgr.rows, t.bgr.cols / 2, CV_8UC3);
    cv::randu(noise, 0, 255);
    noise.copyTo(t.bgr(cv::Rect(t.bgr.cols - noise.cols, 0, noise.cols, noise.rows)));
    t.mask = cv::Mat(t.bgr.size(), CV_8UC1, cv::Scalar(255));
    t.mask(cv::Rect(t.bgr.cols - noise.cols, 0, noise.cols, noise.rows)).setTo(0);
    Locator locator;
    PreparedFrame frame(xcalc());
    LocateHints hints;
    hints.expected_scale = 1.0;
    hints.region = Rect{0, 250, 226, 60};
    LocateReport r = locator.locate(frame, {t}, hints);
    REQUIRE(r.match.found);
    CHECK(std::abs(r.match.box.x - kSeven.x) <= 1);
    CHECK(std::abs(r.match.box.y - kSeven.y) <= 1);
}

TEST_CASE("of identical elements the first in reading order is taken", "[locator]") {
    cv::Mat frame(400, 500, CV_8UC3, cv::Scalar(255, 255, 255));
    Template t = Template::load(kImages + "btn_7.png");
    for (cv::Point p : {cv::Point(300, 300), cv::Point(40, 200), cv::Point(400, 20)})
        t.bgr.copyTo(frame(cv::Rect(p.x, p.y, t.bgr.cols, t.bgr.rows)));
    Locator locator;
    PreparedFrame pf(frame);
    LocateReport r = locator.locate(pf, {t});
    REQUIRE(r.match.found);
    CHECK(r.match.box.x == 400);
    CHECK(r.match.box.y == 20);
}

TEST_CASE("the device scale is learned from confident, large matches only", "[locator]") {
    ScaleEstimator est;
    Match weak;
    weak.found = true;
    weak.score = 0.75;
    weak.scale = 3.0;
    weak.box = {0, 0, 100, 20};
    est.observe(weak);
    CHECK_FALSE(est.deviceScale());
    Match tiny = weak;
    tiny.score = 0.99;
    tiny.box = {0, 0, 12, 12};
    est.observe(tiny);
    CHECK_FALSE(est.deviceScale());
    Match good = weak;
    good.score = 0.95;
    good.scale = 1.5;
    est.observe(good, 1.0);
    REQUIRE(est.deviceScale());
    CHECK(*est.deviceScale() == Approx(1.5));
    CHECK(*est.expectedScale(2.0) == Approx(0.75));
}

TEST_CASE("coarse correlation on a large level: the pre-pass keeps the best place, as matchTemplate scores it",
          "[locator]") {
    // A 2560x1440 screenshot: a small template's coarse level is the full frame (3.7 Mpx), so
    // the pre-pass runs on a reduced level and the frame is correlated only round its peaks.
    cv::Mat bgr = cv::imread(EACU_SOURCE_DIR "/tests/corpus/locate-v1/shots/glossary@1280x720x2.0.png", cv::IMREAD_COLOR);
    REQUIRE(bgr.cols * bgr.rows > 3000000);
    PreparedFrame pf(bgr);
    const cv::Mat& grey = pf.grey();
    for (cv::Rect place : {cv::Rect(300, 330, 40, 12), cv::Rect(1200, 700, 24, 24), cv::Rect(90, 1000, 64, 10)}) {
        INFO(place.x << "," << place.y << " " << place.width << "x" << place.height);
        cv::Mat tpl = grey(place).clone();
        Template t;
        t.bgr = bgr(place).clone();
        LocatorOptions o;
        locator::Search search(pf, t, {0, 0, bgr.cols, bgr.rows}, o);
        cv::Mat ours = search.coarseCorrelation({0, 0, grey.cols, grey.rows}, 1.0, tpl, cv::Mat());
        cv::Mat full;
        cv::matchTemplate(grey, tpl, full, cv::TM_CCOEFF_NORMED);
        REQUIRE(ours.size() == full.size());
        // The best place survives the pre-pass (the crop itself, or a copy of it elsewhere).
        double best, full_best;
        cv::minMaxLoc(ours, nullptr, &best);
        cv::minMaxLoc(full, nullptr, &full_best);
        CHECK(best == Approx(full_best).margin(1e-3));
        CHECK(best == Approx(1.0).margin(1e-3));
        // Everywhere it computed, it agrees with matchTemplate; elsewhere it says -1.
        cv::Mat computed = ours > -1.0f;
        CHECK(cv::countNonZero(computed) < int(ours.total() / 4));
        cv::Mat diff;
        cv::absdiff(ours, full, diff);
        double worst;
        cv::minMaxLoc(diff, nullptr, &worst, nullptr, nullptr, computed);
        CHECK(worst < 1e-3);
    }
}

TEST_CASE("a softened level is the level blurred, made once", "[locator]") {
    cv::Mat bgr = xcalc();
    PreparedFrame pf(bgr);
    const cv::Mat& soft = pf.softened(2.0, 0.6);
    cv::Mat expect;
    cv::GaussianBlur(pf.downsampled(2.0), expect, {0, 0}, 0.6, 0.6, cv::BORDER_REPLICATE);
    CHECK(cv::norm(soft, expect, cv::NORM_INF) == 0);
    CHECK(&pf.softened(2.0, 0.6) == &soft);
}

TEST_CASE("a whole level is the mean of the frame's blocks, on the frame's grid", "[locator]") {
    // A frame whose size is no multiple of the factors: the last blocks are completed by
    // replicating the last row and column.
    cv::Mat bgr(77, 101, CV_8UC3);
    cv::randu(bgr, 0, 256);
    PreparedFrame pf(bgr);
    const cv::Mat& grey = pf.grey();
    cv::Mat padded;
    cv::copyMakeBorder(grey, padded, 0, 80 - 77, 0, 104 - 101, cv::BORDER_REPLICATE);
    for (int f : {4, 8, 2}) {  // 8 is halved from 4
        INFO("level " << f);
        const cv::Mat& level = pf.downsampled(f);
        REQUIRE(level.cols == (101 + f - 1) / f);
        REQUIRE(level.rows == (77 + f - 1) / f);
        int worst = 0;
        for (int y = 0; y < level.rows; ++y)
            for (int x = 0; x < level.cols; ++x) {
                const int expect = int(std::lround(cv::mean(padded(cv::Rect(x * f, y * f, f, f)))[0]));
                worst = std::max(worst, std::abs(level.at<uchar>(y, x) - expect));
            }
        CHECK(worst <= 1);  // INTER_AREA's rounding
    }
    CHECK(isWholeLevel(4.0));
    CHECK_FALSE(isWholeLevel(2.5));
    CHECK_FALSE(isWholeLevel(1.0));
}

TEST_CASE("a large template off the level's grid confirms at its own size and place", "[locator]") {
    // 900x500 crops of a 2160x1350 screenshot, their top-left a fraction of a block off the
    // grid of levels 8, 4 and 2. Reduced for its place, an exact crop correlates as the frame
    // there (reduced at block 0 it scored 0.86 at level 8 and a size 1 % off scored higher).
    cv::Mat bgr = cv::imread(EACU_SOURCE_DIR "/tests/corpus/locate-v1/shots/glossary@1440x900x1.5.png", cv::IMREAD_COLOR);
    REQUIRE_FALSE(bgr.empty());
    PreparedFrame pf(bgr);
    LocatorOptions o;
    for (cv::Rect place : {cv::Rect(126, 637, 900, 500), cv::Rect(853, 213, 900, 500)}) {
        INFO(place.x << "," << place.y);
        Template t;
        t.bgr = bgr(place).clone();
        locator::Search search(pf, t, {0, 0, bgr.cols, bgr.rows}, o);
        for (double f : {8.0, 4.0, 2.0}) {
            INFO("level " << f);
            // Looked for from a place half a block off, as a coarser level gives it.
            const int off = int(f) / 2;
            Match m = search.confirmAt({place.x + off, place.y - off}, 1.0, 2 * int(f), 0, 0, f);
            CHECK(m.score > 0.98);
            CHECK(std::abs(m.box.x - place.x) <= 1);
            CHECK(std::abs(m.box.y - place.y) <= 1);
            CHECK(m.box.w == 900);
            // A size one block larger correlates less than its own.
            Match larger = search.confirmAt({place.x, place.y}, 1.0 + f / 900, 2 * int(f), 0, 0, f);
            CHECK(larger.score < m.score);
        }
        Locator locator(o);
        Match found = locator.locate(pf, {t}).match;
        CHECK(found.found);
        CHECK(found.box == Rect{place.x, place.y, 900, 500});
        CHECK(found.scale == Approx(1.0).margin(1e-3));
    }
}
