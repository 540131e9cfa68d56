#include <catch2/catch.hpp>

#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include "geometry/ModelImage.h"

using namespace eacu;

TEST_CASE("model images fit the Anthropic budget (long edge, pixels, 28 px tiles)", "[geometry]") {
    auto p = ModelImagePolicy::anthropic();
    CHECK(modelImageSize({1280, 800}, p) == Size{1280, 800});  // already inside: unchanged
    Size s = modelImageSize({3840, 2160}, p);
    CHECK(std::max(s.w, s.h) <= 1568);
    CHECK(long(s.w) * s.h <= 1'150'000);
    CHECK(long((s.w + 27) / 28) * ((s.h + 27) / 28) <= 1568);
    CHECK(double(s.w) / s.h == Approx(16.0 / 9).epsilon(0.01));  // aspect kept
    CHECK(s.w > 1300);                                            // not shrunk more than needed
    Size tall = modelImageSize({1000, 5000}, p);
    CHECK(tall.h <= 1568);
    CHECK(double(tall.w) / tall.h == Approx(0.2).epsilon(0.02));
    CHECK(modelImageSize({2560, 1600}, ModelImagePolicy::none()) == Size{2560, 1600});
    CHECK_THROWS_AS(ModelImagePolicy::parse("huge"), std::invalid_argument);
}

TEST_CASE("XGA/WXGA/FWXGA are chosen by aspect ratio as the computer-use demo does", "[geometry]") {
    auto x = ModelImagePolicy::xga();
    CHECK(modelImageSize({2048, 1536}, x) == Size{1024, 768});  // 4:3
    CHECK(modelImageSize({2560, 1600}, x) == Size{1280, 800});  // 16:10
    CHECK(modelImageSize({1920, 1080}, x) == Size{1366, 768});  // 16:9 (1.7786 vs 1.7778)
    CHECK(modelImageSize({1024, 768}, x) == Size{1024, 768});   // not larger than the screen
    CHECK(modelImageSize({1000, 1000}, x) == Size{1000, 1000}); // no aspect match: unscaled
}

TEST_CASE("every coordinate space maps back to physical pixels", "[geometry]") {
    cv::Mat frame(1600, 2560, CV_8UC3, cv::Scalar(1, 2, 3));
    ModelImage mi = makeModelImage(frame, ModelImagePolicy::xga(), 2.0);
    const auto& t = mi.transform;
    REQUIRE(mi.image.cols == 1280);
    REQUIRE(mi.image.rows == 800);
    CHECK(t.sx() == 0.5);
    CHECK(t.policy == "xga");

    SECTION("model-image pixels") {
        CHECK(t.imageToPhysical(640, 400) == Point{1280, 800});
        CHECK(t.imageToPhysical(1280, 800) == Point{2559, 1599});  // the far edge stays inside
        CHECK(t.physicalToImage({1280, 800}) == Point{640, 400});
        CHECK(t.imageRectToPhysical({10, 20, 30, 40}) == Rect{20, 40, 60, 80});
        CHECK(t.physicalRectToImage({20, 40, 60, 80}) == Rect{10, 20, 30, 40});
        CHECK_THROWS_AS(t.imageToPhysical(1281, 10), std::out_of_range);
        CHECK_THROWS_AS(t.imageToPhysical(-1, 10), std::out_of_range);
    }
    SECTION("fractions") {
        CHECK(t.fractionToPhysical(0.5, 0.25) == Point{1280, 400});
        CHECK(t.fractionToPhysical(1.0, 1.0) == Point{2559, 1599});
        CHECK_THROWS_AS(t.fractionToPhysical(1.2, 0), std::out_of_range);
    }
    SECTION("per-mille 0..1000") {
        CHECK(t.permilleToPhysical(500, 500) == Point{1280, 800});
        CHECK(t.permilleToPhysical(0, 1000) == Point{0, 1599});
        CHECK(t.physicalToPermille({1280, 400}) == Point{500, 250});
        // seed 002's VisionAgent box: centre of {xmin,ymin,xmax,ymax} in 0..1000
        Rect b = t.permilleBoxToPhysical(100, 200, 300, 400);
        CHECK(b == Rect{256, 320, 512, 320});
        CHECK(b.center() == Point{512, 480});
        CHECK_THROWS_AS(t.permilleToPhysical(1001, 0), std::out_of_range);
    }
    SECTION("OmniParser normalized bboxes") {
        Rect b = t.normBoxToPhysical(0.1, 0.2, 0.3, 0.4);
        CHECK(b == Rect{256, 320, 512, 320});
        auto n = t.physicalToNormBox(b);
        CHECK(n[0] == Approx(0.1));
        CHECK(n[3] == Approx(0.4));
        CHECK_THROWS_AS(t.normBoxToPhysical(0.5, 0.2, 0.3, 0.4), std::invalid_argument);
        CHECK_THROWS_AS(t.normBoxToPhysical(0.1, 0.2, 1.3, 0.4), std::out_of_range);
    }
    SECTION("DPI scale: logical and physical") {
        CHECK(t.logicalToPhysical({640, 400}) == Point{1280, 800});
        CHECK(t.physicalToLogical({1280, 800}) == Point{640, 400});
        // seed 000 §6: a bbox centre in logical pixels = centre fraction x logical screen size
        Rect b = t.normBoxToPhysical(0.2, 0.2, 0.4, 0.4);
        CHECK(t.physicalToLogical(b.center()) == Point{384, 240});
    }
    SECTION("the transform is recorded as JSON") {
        auto j = t.toJson();
        CHECK(j["policy"] == "xga");
        CHECK(j["physical"][0] == 2560);
        CHECK(j["image"][1] == 800);
        CHECK(j["dpi_scale"] == 2.0);
    }
}

TEST_CASE("model images keep content and encode", "[geometry]") {
    cv::Mat frame(1080, 1920, CV_8UC3, cv::Scalar(255, 255, 255));
    cv::rectangle(frame, cv::Rect(960, 540, 200, 100), cv::Scalar(0, 0, 255), cv::FILLED);
    ModelImage mi = makeModelImage(frame, ModelImagePolicy::anthropic());
    CHECK(mi.image.cols == mi.transform.image.w);
    // The red box's centre in the model image maps back into the red box.
    Point c = mi.transform.physicalToImage({1060, 590});
    CHECK(mi.image.at<cv::Vec3b>(c.y, c.x)[2] == 255);
    Point back = mi.transform.imageToPhysical(c.x, c.y);
    CHECK(Rect{960, 540, 200, 100}.contains(back));
    std::string png = encodeImage(mi.image, "png");
    CHECK(png.substr(1, 3) == "PNG");
    std::string jpg = encodeImage(mi.image, "jpeg", 75);
    CHECK(uint8_t(jpg[0]) == 0xFF);
    CHECK(uint8_t(jpg[1]) == 0xD8);
    CHECK_THROWS_AS(encodeImage(mi.image, "gif"), std::invalid_argument);
    CHECK_THROWS_AS(makeModelImage(cv::Mat(), ModelImagePolicy::anthropic()), std::invalid_argument);
}
