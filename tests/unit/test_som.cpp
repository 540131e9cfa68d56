#include <catch2/catch.hpp>

#include <filesystem>
#include <set>

#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include "vision/som/Som.h"

using namespace eacu;

namespace {

/// A synthetic window: a text field, two buttons with labels, an icon, and a big panel.
cv::Mat syntheticScreen() {
    cv::Mat m(600, 800, CV_8UC3, cv::Scalar(245, 245, 245));
    cv::rectangle(m, cv::Rect(20, 20, 300, 32), cv::Scalar(120, 120, 120), 1);       // text field
    cv::rectangle(m, cv::Rect(340, 20, 80, 32), cv::Scalar(90, 90, 90), 2);          // button "Go"
    cv::putText(m, "Go", {365, 43}, cv::FONT_HERSHEY_SIMPLEX, 0.6, {0, 0, 0}, 1, cv::LINE_AA);
    cv::rectangle(m, cv::Rect(600, 500, 120, 40), cv::Scalar(200, 120, 40), cv::FILLED);  // button "Send"
    cv::putText(m, "Send", {630, 527}, cv::FONT_HERSHEY_SIMPLEX, 0.6, {255, 255, 255}, 1, cv::LINE_AA);
    cv::circle(m, {60, 300}, 14, cv::Scalar(30, 30, 200), cv::FILLED);                // an icon
    cv::putText(m, "Hello world label", {100, 305}, cv::FONT_HERSHEY_SIMPLEX, 0.6, {20, 20, 20}, 1, cv::LINE_AA);
    return m;
}

bool near(const Rect& a, const Rect& b, int tol) {
    return std::abs(a.x - b.x) <= tol && std::abs(a.y - b.y) <= tol && std::abs(a.w - b.w) <= 2 * tol &&
           std::abs(a.h - b.h) <= 2 * tol;
}

void checkSane(const SomResult& som, int cap) {
    REQUIRE(int(som.elements.size()) <= cap);
    for (size_t i = 0; i < som.elements.size(); ++i) {
        const auto& e = som.elements[i];
        CHECK(e.id == int(i));
        CHECK(!e.box.empty());
        CHECK(e.box.x >= 0);
        CHECK(e.box.y >= 0);
        CHECK(e.box.x + e.box.w <= som.size.w);
        CHECK(e.box.y + e.box.h <= som.size.h);
        for (size_t j = i + 1; j < som.elements.size(); ++j) CHECK(e.box.iou(som.elements[j].box) <= 0.5);
    }
}

}  // namespace

TEST_CASE("SoM finds boxed controls, merges OCR text into them, numbers in reading order", "[som]") {
    cv::Mat m = syntheticScreen();
    std::vector<SomOcrLine> ocr = {{"Go", {363, 30, 28, 18}, 0.9},
                                   {"Send", {628, 512, 50, 20}, 0.95},
                                   {"Hello world label", {98, 290, 190, 22}, 0.9}};
    std::vector<SomAssetHit> assets = {{"app.red_dot", {46, 286, 29, 29}, 0.97}};
    SomResult som = buildSom(m, ocr, assets);
    checkSane(som, 40);

    const SomElement* go = nullptr;
    const SomElement* send = nullptr;
    const SomElement* field = nullptr;
    const SomElement* dot = nullptr;
    const SomElement* label = nullptr;
    for (const auto& e : som.elements) {
        if (e.content == "Go") go = &e;
        if (e.content == "Send") send = &e;
        if (e.kind == "text_field") field = &e;
        if (e.content == "app.red_dot") dot = &e;
        if (e.content == "Hello world label") label = &e;
    }
    REQUIRE(go);
    CHECK(go->source == "box_contour_content_ocr");
    CHECK(near(go->box, {340, 20, 80, 32}, 3));
    REQUIRE(send);
    CHECK(send->source == "box_contour_content_ocr");
    CHECK(send->kind == "button");
    CHECK(near(send->box, {600, 500, 120, 40}, 3));
    REQUIRE(field);
    CHECK(near(field->box, {20, 20, 300, 32}, 3));
    REQUIRE(dot);
    CHECK(dot->source == "box_asset_content_asset");
    REQUIRE(label);
    CHECK(label->type == "text");
    CHECK_FALSE(label->interactivity);
    // Reading order: the top row (field, Go) first, left to right; Send last.
    CHECK(field->id < go->id);
    CHECK(go->id < dot->id);
    CHECK(dot->id < label->id);
    CHECK(send->id == int(som.elements.size()) - 1);
    // No element is the OCR text of a control a second time.
    int gos = 0;
    for (const auto& e : som.elements) gos += e.content == "Go";
    CHECK(gos == 1);

    SECTION("OmniParser JSON") {
        auto j = somToJson(som);
        REQUIRE(j.size() == som.elements.size());
        auto g = j[go->id];
        CHECK(g["type"] == "icon");
        CHECK(g["interactivity"] == true);
        CHECK(g["content"] == "Go");
        CHECK(g["source"] == "box_contour_content_ocr");
        CHECK(g["bbox"][0].get<double>() == Approx(340.0 / 800).margin(0.005));
        CHECK(g["bbox"][3].get<double>() == Approx(52.0 / 600).margin(0.005));
        CHECK(j[label->id]["type"] == "text");
    }
    SECTION("text list in seed 000's form") {
        std::string t = somText(som);
        CHECK(t.find("  [" + std::to_string(send->id) + "] 🔘 button | \"Send\" | 屏幕下右") != std::string::npos);
        CHECK(t.find("  [" + std::to_string(label->id) + "] 📝 label | \"Hello world label\" | 屏幕中左") != std::string::npos);
        CHECK(t.find("(无文字)") != std::string::npos);  // the empty text field
    }
    SECTION("overlay draws numbered boxes") {
        cv::Mat ov = somOverlay(m, som);
        REQUIRE(ov.size() == m.size());
        cv::Mat diff;
        cv::absdiff(ov, m, diff);
        cv::cvtColor(diff, diff, cv::COLOR_BGR2GRAY);
        CHECK(cv::countNonZero(diff) > 500);
        // Pixels far from every box are untouched.
        CHECK(cv::countNonZero(diff(cv::Rect(400, 150, 150, 100))) == 0);
    }
}

TEST_CASE("SoM caps the list and de-duplicates overlapping proposals", "[som]") {
    cv::Mat m(400, 400, CV_8UC3, cv::Scalar(255, 255, 255));
    std::vector<SomOcrLine> ocr;
    for (int i = 0; i < 60; ++i) ocr.push_back({"item " + std::to_string(i), {10 + (i % 3) * 130, 5 + (i / 3) * 19, 100, 16}, 0.9});
    ocr.push_back({"item 0 again", {11, 6, 100, 16}, 0.8});  // IoU ~0.9 with item 0
    SomOptions o;
    o.max_elements = 40;
    SomResult som = buildSom(m, ocr, {}, o);
    checkSane(som, 40);
    CHECK(som.elements.size() == 40);
    CHECK(som.elements[0].content == "item 0");
    CHECK(som.elements[1].content == "item 1");
    CHECK(som.elements[3].content == "item 3");  // second row
    // The same input gives the same IDs.
    SomResult again = buildSom(m, ocr, {}, o);
    REQUIRE(again.elements.size() == som.elements.size());
    for (size_t i = 0; i < som.elements.size(); ++i) CHECK(again.elements[i].box == som.elements[i].box);
}

TEST_CASE("SoM on real screenshots gives sane, de-duplicated, capped elements", "[som]") {
    namespace fs = std::filesystem;
    fs::path dir = fs::path(EACU_SOURCE_DIR) / ".." / "shared" / "corpus" / "locate-v1" / "shots";
    if (!fs::exists(dir)) {
        WARN("corpus missing: " << dir << "; skipped");
        return;
    }
    for (const char* name : {"index@1366x768x1.25.png", "library_index@1920x1080x1.0.png", "glossary@1280x720x2.0.png"}) {
        fs::path p = dir / name;
        if (!fs::exists(p)) {
            WARN("missing " << p);
            continue;
        }
        cv::Mat img = cv::imread(p.string(), cv::IMREAD_COLOR);
        REQUIRE_FALSE(img.empty());
        std::string n = name;
        SomOptions o;
        o.scale = std::stod(n.substr(n.rfind('x') + 1));
        SomResult som = buildSom(img, {}, {}, o);
        INFO(name << ": " << som.elements.size() << " of " << som.candidates << " candidates");
        checkSane(som, 40);
        CHECK(som.elements.size() >= 15);
        // Nothing is a whole panel.
        for (const auto& e : som.elements) CHECK(e.box.area() < img.cols * img.rows / 10);
        if (n.rfind("index@1366", 0) == 0) {
            // The search field and the Go button at the top right are proposed as controls.
            double s = o.scale;
            Rect go{int(1264 * 1708 / 1456.0), int(21 * 1708 / 1456.0), int(42 * 1708 / 1456.0), int(20 * 1708 / 1456.0)};
            bool has_go = false;
            for (const auto& e : som.elements) has_go |= e.box.iou(go) > 0.5;
            CHECK(has_go);
            (void)s;
            if (const char* out = std::getenv("EACU_SOM_DUMP")) {
                cv::imwrite(std::string(out) + "/som_" + n, somOverlay(img, som));
                FAIL_CHECK("EACU_SOM_DUMP set: wrote overlay\n" << somText(som));
            }
        }
    }
}
