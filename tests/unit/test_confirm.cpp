// The confirms that keep look-alikes out: colour (chroma agreement) and words (text confirm),
// on synthetic images and on the locate-v1 corpus (real Chromium renderings).
#include <catch2/catch.hpp>

#include <filesystem>

#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include "vision/ColourAgreement.h"
#include "vision/Locator.h"
#include "vision/ocr/TextConfirm.h"
#include "vision/ocr/TextFinder.h"

using namespace eacu;

namespace {

// The corpus in the repository (tests/corpus/locate-v1): always there, never skipped.
const std::string kCorpus = EACU_SOURCE_DIR "/tests/corpus/locate-v1/";

bool corpusPresent() { return std::filesystem::exists(kCorpus + "cases.json"); }

// A word drawn in `ink` on white (BGR).
cv::Mat word(const std::string& text, cv::Scalar ink) {
    cv::Mat m(40, 160, CV_8UC3, cv::Scalar(255, 255, 255));
    cv::putText(m, text, {6, 30}, cv::FONT_HERSHEY_SIMPLEX, 1.0, ink, 2, cv::LINE_AA);
    return m;
}

LocateReport locateIn(const std::string& shot, const std::string& tpl) {
    cv::Mat frame = cv::imread(kCorpus + "shots/" + shot, cv::IMREAD_COLOR);
    REQUIRE_FALSE(frame.empty());
    PreparedFrame pf(frame);
    return Locator().locate(pf, {Template::load(kCorpus + "templates/" + tpl)});
}

}  // namespace

TEST_CASE("chroma agreement tells a blue word from the same word in black", "[confirm]") {
    cv::Mat blue = word("Library", {170, 100, 20}), black = word("Library", {30, 30, 30});
    cv::Mat grey = word("Library", {110, 110, 110});
    CHECK(chromaAgreement(blue, blue) == Approx(1.0));
    CHECK(chromaAgreement(blue, black) < 0.3);
    CHECK(chromaAgreement(black, blue) == Approx(chromaAgreement(blue, black)));
    CHECK(chromaAgreement(black, grey) > 0.95);  // greys agree: lightness is the grey score's job
    cv::Mat red = word("Library", {20, 20, 200});
    CHECK(chromaAgreement(blue, red) < 0.0);  // opposite hues
    // A one-pixel shift of the same word still agrees (blur before comparing).
    cv::Mat shifted;
    cv::warpAffine(blue, shifted, cv::Mat_<double>({2, 3}, {1, 0, 1, 0, 1, 0}), blue.size(), cv::INTER_LINEAR,
                   cv::BORDER_REPLICATE);
    CHECK(chromaAgreement(blue, shifted) > 0.8);
    // Only the mask's pixels count.
    cv::Mat mask(blue.size(), CV_8U, cv::Scalar(0));
    CHECK(chromaAgreement(blue, black, mask) == Approx(1.0));
    CHECK_THROWS_AS(chromaAgreement(blue, blue(cv::Rect(0, 0, 10, 10))), std::invalid_argument);
}

TEST_CASE("chroma planes are CIE a*, b* of sRGB (D65)", "[confirm]") {
    // Reference values of the sRGB primaries (CIE 1976 L*a*b*, D65 white; e.g. Lindbloom's
    // calculator): red a* 80.11 b* 67.22, green -86.18 83.19, blue 79.20 -107.86.
    cv::Mat prim(1, 4, CV_8UC3);
    prim.at<cv::Vec3b>(0, 0) = {0, 0, 255};
    prim.at<cv::Vec3b>(0, 1) = {0, 255, 0};
    prim.at<cv::Vec3b>(0, 2) = {255, 0, 0};
    prim.at<cv::Vec3b>(0, 3) = {255, 255, 255};
    cv::Mat ab = chromaPlanes(prim, 0);
    REQUIRE(ab.type() == CV_32FC2);
    const float expect[4][2] = {{80.11f, 67.22f}, {-86.18f, 83.19f}, {79.20f, -107.86f}, {0, 0}};
    for (int i = 0; i < 4; ++i) {
        INFO("colour " << i);
        CHECK(ab.at<cv::Vec2f>(0, i)[0] == Approx(expect[i][0]).margin(0.2));
        CHECK(ab.at<cv::Vec2f>(0, i)[1] == Approx(expect[i][1]).margin(0.2));
    }
    // Greys have no chroma; any colour is within half a unit of OpenCV's cvtColor(BGR2Lab) of the
    // image scaled to [0, 1] (its own tables round; chromaPlanes no longer calls it: their
    // set-up cost ~90 ms on a process's first colour comparison).
    cv::Mat bgr(64, 256, CV_8UC3);
    cv::randu(bgr, 0, 256);
    for (int i = 0; i < 256; ++i) bgr.at<cv::Vec3b>(0, i) = {uchar(i), uchar(i), uchar(i)};
    cv::Mat f, lab;
    bgr.convertTo(f, CV_32F, 1.0 / 255);
    cv::cvtColor(f, lab, cv::COLOR_BGR2Lab);
    ab = chromaPlanes(bgr, 0);
    double worst = 0, grey = 0;
    for (int y = 0; y < bgr.rows; ++y)
        for (int x = 0; x < bgr.cols; ++x) {
            const cv::Vec3f l = lab.at<cv::Vec3f>(y, x);
            const cv::Vec2f c = ab.at<cv::Vec2f>(y, x);
            worst = std::max({worst, double(std::abs(l[1] - c[0])), double(std::abs(l[2] - c[1]))});
            if (y == 0) grey = std::max({grey, double(std::abs(c[0])), double(std::abs(c[1]))});
        }
    CHECK(grey < 1e-3);
    CHECK(worst < 0.5);  // ΔE units; chroma agreement's c0 is 5
    CHECK_THROWS_AS(chromaPlanes(cv::Mat(4, 4, CV_8UC1, cv::Scalar(0)), 0), std::invalid_argument);
}

TEST_CASE("containment similarity finds a word inside another", "[confirm]") {
    CHECK(containmentSimilarity("os", "Glossary") == Approx(1.0));
    CHECK(containmentSimilarity("next", "ex") == Approx(0.5));  // a fragment is not the word
    CHECK(containmentSimilarity("next", "index") == Approx(0.5));
    CHECK(containmentSimilarity("os", "asyncio") == Approx(0.5));
    CHECK(containmentSimilarity("Library Reference-", "Library Reference") == Approx(1.0));
    CHECK(containmentSimilarity("2to3 code translation", "2t03 code translation.") > 0.9);
    CHECK(containmentSimilarity("", "anything") == Approx(1.0));
}

TEST_CASE("a blue link is not found as black body text of the same words", "[confirm][corpus]") {
    REQUIRE(corpusPresent());
    // "The Python Standard Library" is a blue link on the tutorial index; the library index
    // shows the same words in black as its heading.
    LocateReport there = locateIn("tutorial_index@1920x1080x1.0.png", "tutorial_index_04.png");
    CHECK(there.match.found);
    CHECK(there.match.box.center().x >= 659);
    CHECK(there.match.box.center().x <= 659 + 203);
    LocateReport black = locateIn("neg_tutorial_index_in_library_index@1920x1080x1.0.png", "tutorial_index_04.png");
    CHECK_FALSE(black.match.found);
}

TEST_CASE("a look-alike word is rejected by reading it", "[confirm][corpus]") {
    REQUIRE(corpusPresent());
    // The "next" link is not on the documentation's front page; the "ndex" of its "index"
    // link correlates at about 0.75.
    LocateReport r = locateIn("neg_library_index_in_index@1440x900x1.5.png", "library_index_10.png");
    CHECK_FALSE(r.match.found);
    cv::Mat frame = cv::imread(kCorpus + "shots/neg_library_index_in_index@1440x900x1.5.png", cv::IMREAD_COLOR);
    TextVerdict v = confirmText(frame, Template::load(kCorpus + "templates/library_index_10.png"),
                                Rect{2085, 31, 41, 24});
    CHECK(v.judged);
    CHECK_FALSE(v.agrees);
    CHECK(v.template_text == "next");
    CHECK(v.frame_text.find("ndex") != std::string::npos);
    // The real "next" link, where it is, is found and agrees.
    LocateReport ok = locateIn("library_index@1440x900x1.5.png", "library_index_10.png");
    CHECK(ok.match.found);
    CHECK(ok.match.box.center().x >= 1909);
    CHECK(ok.match.box.center().x <= 1909 + 41);
    TextVerdict same = confirmText(frame.empty() ? frame : cv::imread(kCorpus + "shots/library_index@1440x900x1.5.png"),
                                   Template::load(kCorpus + "templates/library_index_10.png"), Rect{1909, 32, 41, 24});
    CHECK(same.agrees);
}

TEST_CASE("a template's word found inside a longer word is rejected", "[confirm][corpus]") {
    REQUIRE(corpusPresent());
    // The heading "os" against the "os" of "Glossary" in a smaller font: the same letters in
    // the same blue, but part of another word.
    cv::Mat frame = cv::imread(kCorpus + "shots/neg_library_os_in_tutorial_index@1440x900x1.5.png", cv::IMREAD_COLOR);
    REQUIRE_FALSE(frame.empty());
    TextVerdict v = confirmText(frame, Template::load(kCorpus + "templates/library_os_04.png"), Rect{469, 1098, 28, 26});
    CHECK(v.judged);
    CHECK_FALSE(v.agrees);
    CHECK(v.frame_text.find("Glossary") != std::string::npos);
    CHECK(v.coverage < 1.0 / 3);
    LocateReport r = locateIn("neg_library_os_in_tutorial_index@1440x900x1.5.png", "library_os_04.png");
    CHECK_FALSE(r.match.found);
}

TEST_CASE("a blue link is found among black copies of its words, blind", "[confirm][corpus]") {
    REQUIRE(corpusPresent());
    // "Introduction" is a blue link in the list and black text in the sidebar and body; at
    // 0.75 the black copies correlate better in grey.
    LocateReport r = locateIn("library_index@1600x1000x0.75.png", "library_index_05.png");
    REQUIRE(r.match.found);
    Point c = r.match.box.center();
    CHECK(c.x >= 214);
    CHECK(c.x <= 214 + 63);
    CHECK(c.y >= 425);
    CHECK(c.y <= 425 + 13);
}

TEST_CASE("words a layout runs together still confirm each other", "[confirm][corpus]") {
    REQUIRE(corpusPresent());
    // The Python docs' header draws the page title and "previous" without a gap: OCR reads
    // "interfacesprevious", which holds the template's word and is not three times as long.
    cv::Mat frame = cv::imread(kCorpus + "shots/library_os@1280x720x2.0.png", cv::IMREAD_COLOR);
    REQUIRE_FALSE(frame.empty());
    TextVerdict v = confirmText(frame, Template::load(kCorpus + "templates/library_os_11.png"), Rect{2091, 43, 109, 32});
    CHECK(v.template_text == "previous");
    CHECK(v.agrees);
}

TEST_CASE("an icon is not taken for words, and unreadable look-alikes after a rejected one fail", "[confirm][corpus]") {
    REQUIRE(corpusPresent());
    // OCR reads the Python logo as "2" both ways: one character is no word, so the logo's
    // matches are never read against the screen.
    cv::Mat frame = cv::imread(kCorpus + "shots/index@1920x1080x1.0.png", cv::IMREAD_COLOR);
    REQUIRE_FALSE(frame.empty());
    TextVerdict logo = confirmText(frame, Template::load(kCorpus + "templates/index_02.png"), Rect{26, 22, 16, 16});
    CHECK_FALSE(logo.template_legible);
    CHECK_FALSE(logo.judged);
    // The header's "index" link is cut off at the right edge of this 2x rendering: the best
    // candidate is the "ode" of "Mode" (0.77), rejected by reading it; the next ones are glyph
    // fragments too small to read, which then do not count either.
    LocateReport r = locateIn("library_os@1280x720x2.0.png", "index_10.png");
    CHECK_FALSE(r.match.found);
    CHECK(r.match.veto.find("Mode") != std::string::npos);
}
