// Template matching on real xcalc screenshots and on synthetic frames.
#include <catch2/catch.hpp>

#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include "base/ImageDecode.h"
#include "vision/Nms.h"
#include "vision/TemplateMatcher.h"

using namespace eacu;

static const std::string kImages = EACU_SOURCE_DIR "/scripts/calculator/images/";

static cv::Mat loadFrame(const std::string& name) {
    cv::Mat m = cv::imread(std::string(EACU_FIXTURES) + "/" + name, cv::IMREAD_COLOR);
    REQUIRE_FALSE(m.empty());
    return m;
}

TEST_CASE("locate finds each xcalc key at its true place", "[vision]") {
    cv::Mat frame = loadFrame("xcalc.png");
    TemplateMatcher matcher;
    struct Case { const char* name; Rect box; };
    // Ground truth: the inner label area of each key in tests/fixtures/xcalc.png.
    const Case cases[] = {{"btn_1", {54, 338, 32, 18}}, {"btn_7", {54, 278, 32, 18}},
                          {"btn_multiply", {186, 278, 32, 18}}, {"btn_equals", {186, 368, 32, 18}}};
    for (const auto& c : cases) {
        Template t = Template::load(kImages + c.name + ".png");
        Match m = matcher.locate(frame, t);
        INFO(c.name);
        CHECK(m.found);
        CHECK(m.box == c.box);
        CHECK(m.score > 0.99);
        CHECK(m.color_score > 0.99);
        CHECK(m.target == c.box.center());
    }
}

TEST_CASE("locate reports the best score of an absent template without finding it", "[vision]") {
    // The display of xcalc.png shows "0": no 5 there (the "5" key's label, lower down, uses
    // the same glyph, so the search is kept to the display).
    cv::Mat frame = loadFrame("xcalc.png");
    Template t = Template::load(kImages + "display_5.png");
    t.threshold = 0.95;
    Match m = TemplateMatcher().locate(frame, t, Rect{0, 0, 226, 60});
    CHECK_FALSE(m.found);
    CHECK(m.score < 0.95);
    CHECK(m.score > -1.0);
}

TEST_CASE("locate in a region searches only there", "[vision]") {
    cv::Mat frame = loadFrame("xcalc.png");
    Template t = Template::load(kImages + "btn_1.png");
    t.threshold = 0.9;
    TemplateMatcher matcher;
    Match inside = matcher.locate(frame, t, Rect{40, 320, 60, 50});
    CHECK(inside.found);
    CHECK(inside.box == Rect{54, 338, 32, 18});
    Match outside = matcher.locate(frame, t, Rect{0, 0, 226, 300});  // above the "1" row
    CHECK_FALSE(outside.found);
    CHECK(outside.box.y + outside.box.h <= 300);
    CHECK_THROWS_AS(matcher.locate(frame, t, Rect{0, 0, 10, 10}), std::invalid_argument);
}

TEST_CASE("the colour confirm rejects a grey look-alike of another colour", "[vision]") {
    // Two patches with the same pattern whose colours have the same grey level.
    cv::Mat frame(120, 200, CV_8UC3, cv::Scalar(255, 255, 255));
    cv::Mat pattern(30, 40, CV_8UC1, cv::Scalar(0));
    cv::circle(pattern, {20, 15}, 10, cv::Scalar(255), -1);
    auto paint = [&](cv::Mat dst, cv::Scalar fg, cv::Scalar bg) {
        for (int y = 0; y < pattern.rows; ++y)
            for (int x = 0; x < pattern.cols; ++x) {
                cv::Scalar c = pattern.at<uchar>(y, x) ? fg : bg;
                dst.at<cv::Vec3b>(y, x) = cv::Vec3b(uchar(c[0]), uchar(c[1]), uchar(c[2]));
            }
    };
    // Blue-on-yellow vs yellow-on-blue inverted in hue but chosen so grey levels differ the
    // same way: grey = 0.114 B + 0.587 G + 0.299 R.
    paint(frame(cv::Rect(10, 10, 40, 30)), cv::Scalar(0, 200, 0), cv::Scalar(60, 60, 60));
    cv::Mat tpl_img(30, 40, CV_8UC3);
    paint(tpl_img, cv::Scalar(0, 0, 255 * 0.587 / 0.299 > 255 ? 255 : 255), cv::Scalar(60, 60, 60));
    Template t;
    t.name = "red_circle";
    t.bgr = tpl_img;
    Match m = TemplateMatcher().locate(frame, t);
    CHECK(m.box == Rect{10, 10, 40, 30});
    CHECK(m.score > 0.95);        // greyscale sees the same circle
    CHECK(m.color_score < m.score);
    CHECK_FALSE(m.found);         // colour says it is another thing
}

TEST_CASE("find_all returns every copy once, best first", "[vision]") {
    cv::Mat frame(300, 400, CV_8UC3, cv::Scalar(255, 255, 255));
    Template t = Template::load(kImages + "btn_7.png");
    const cv::Point places[] = {{10, 10}, {200, 40}, {60, 220}};
    for (auto p : places) t.bgr.copyTo(frame(cv::Rect(p.x, p.y, t.bgr.cols, t.bgr.rows)));
    auto all = TemplateMatcher().findAll(frame, t);
    REQUIRE(all.size() == 3);
    for (size_t i = 1; i < all.size(); ++i) CHECK(all[i - 1].score >= all[i].score);
    for (auto p : places) {
        bool hit = false;
        for (const auto& m : all) hit |= m.box.x == p.x && m.box.y == p.y;
        CHECK(hit);
    }
    CHECK(TemplateMatcher().findAll(frame, t, std::nullopt, 2).size() == 2);
}

TEST_CASE("find_all reads the digits of the xcalc display", "[vision]") {
    cv::Mat frame = loadFrame("xcalc_digits.png");  // the display shows 1234567890
    std::string read;
    std::vector<std::pair<int, char>> hits;
    for (char d = '0'; d <= '9'; ++d) {
        Template t = Template::load(kImages + "display_" + d + ".png");
        t.threshold = 0.95;
        for (const auto& m : TemplateMatcher().findAll(frame, t, Rect{0, 0, 226, 60}))
            hits.emplace_back(m.box.x, d);
    }
    std::sort(hits.begin(), hits.end());
    for (auto& h : hits) read += h.second;
    CHECK(read == "1234567890");
}

TEST_CASE("non-maximum suppression keeps the best of overlapping boxes", "[vision]") {
    std::vector<Match> c(3);
    c[0].box = {0, 0, 10, 10}; c[0].score = 0.8;
    c[1].box = {1, 1, 10, 10}; c[1].score = 0.9;
    c[2].box = {50, 50, 10, 10}; c[2].score = 0.7;
    auto kept = nonMaximumSuppression(c, 0.3, 10);
    REQUIRE(kept.size() == 2);
    CHECK(kept[0].score == 0.9);
    CHECK(kept[1].box.x == 50);
}

TEST_CASE("a PNG's pHYs gives the scale it was captured at", "[vision]") {
    const std::string f = EACU_FIXTURES;
    CHECK(pngScale(f + "/dpi192.png") == Approx(2.0));   // 192 dpi against 96
    CHECK(pngScale(f + "/dpi144.png") == Approx(2.0));   // 144 dpi: macOS's 2x
    CHECK_FALSE(pngScale(f + "/xcalc.png").has_value());  // no pHYs
    CHECK(Template::load(f + "/dpi192.png").scale == Approx(2.0));
}

TEST_CASE("images are decoded only as PNG or JPEG, and only up to the pixels they may have", "[vision]") {
    cv::Mat small(12, 16, CV_8UC3, cv::Scalar(10, 200, 30));
    std::vector<unsigned char> png, jpg;
    cv::imencode(".png", small, png);
    cv::imencode(".jpg", small, jpg);
    CHECK(hasPngSignature(png));
    CHECK_FALSE(hasPngSignature(jpg));
    CHECK(decodeImage(png, cv::IMREAD_COLOR).size() == cv::Size(16, 12));
    CHECK(decodeImage(jpg, cv::IMREAD_COLOR).size() == cv::Size(16, 12));
    // A JPEG whose start of frame declares 63224x16393 (a gigapixel, 3 GB as BGR): refused
    // before any decoder allocates.
    for (size_t i = 2; i + 9 < jpg.size(); ++i)
        if (jpg[i] == 0xFF && jpg[i + 1] == 0xC0) {
            jpg[i + 5] = 0x40, jpg[i + 6] = 0x09, jpg[i + 7] = 0xF6, jpg[i + 8] = 0xF8;
            break;
        }
    CHECK_THROWS_WITH(decodeImage(jpg, cv::IMREAD_COLOR), Catch::Contains("declares 63224x16393 pixels"));
    // A stray byte before the frame header: libjpeg skips it and decodes, so the check must too.
    std::vector<unsigned char> stray = jpg;
    for (size_t i = 2; i + 1 < stray.size(); ++i)
        if (stray[i] == 0xFF && stray[i + 1] == 0xC0) {
            stray.insert(stray.begin() + long(i), 0x00);
            break;
        }
    CHECK_THROWS_WITH(decodeImage(stray, cv::IMREAD_COLOR), Catch::Contains("declares 63224x16393 pixels"));
    // The same for a PNG's IHDR.
    png[16] = 0x00, png[17] = 0x01, png[18] = 0x00, png[19] = 0x00;  // width 65536
    png[20] = 0x00, png[21] = 0x01, png[22] = 0x00, png[23] = 0x00;  // height 65536
    CHECK_THROWS_WITH(decodeImage(png, cv::IMREAD_COLOR), Catch::Contains("declares 65536x65536 pixels"));
    // BMP (OpenCV would decode it) and truncated data.
    std::vector<unsigned char> bmp{'B', 'M', 0, 0, 0, 0};
    CHECK_THROWS_WITH(decodeImage(bmp, cv::IMREAD_COLOR), Catch::Contains("not a PNG or JPEG"));
    std::vector<unsigned char> cut(jpg.begin(), jpg.begin() + 20);
    CHECK_THROWS_AS(decodeImage(cut, cv::IMREAD_COLOR), std::runtime_error);
}
