// OCR: Tesseract on real screenshots (the locate-v1 corpus, a real GTK dialog showing Chinese),
// the phrase finder's folding and fuzzy matching, the per-frame cache.
#include <catch2/catch.hpp>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <thread>

#include <nlohmann/json.hpp>
#include <opencv2/imgcodecs.hpp>

#include "device/virtual/VirtualDisplay.h"
#include "device/x11/X11Device.h"
#include "process/Process.h"
#include "base/Cancel.h"
#include "base/Utf8.h"
#include "vision/ocr/ChangedRegions.h"
#include "vision/ocr/LineCache.h"
#include "vision/ocr/OcrCache.h"
#include "vision/ocr/OcrEngine.h"
#include "vision/ocr/TextFinder.h"

using namespace eacu;
namespace fs = std::filesystem;

namespace {

// The corpus in the repository (tests/corpus/locate-v1): always there, never skipped.
const std::string kCorpus = EACU_SOURCE_DIR "/tests/corpus/locate-v1";

bool corpusPresent() { return fs::exists(kCorpus + "/cases.json"); }

/// The corpus's text cases: screenshot path, phrase, the element's box, the phrase's other
/// occurrences on the screenshot (`also`), scale.
struct TextCase {
    std::string shot, text;
    Rect expect;
    std::vector<Rect> also;
    double scale;
};

Rect boxOf(const nlohmann::json& e) {
    return Rect{int(std::lround(e[0].get<double>())), int(std::lround(e[1].get<double>())),
                int(std::lround(e[2].get<double>())), int(std::lround(e[3].get<double>()))};
}

std::vector<TextCase> textCases() {
    std::ifstream in(kCorpus + "/cases.json");
    auto doc = nlohmann::json::parse(in);
    std::vector<TextCase> out;
    for (const auto& j : doc) {
        if (j.value("kind", "") != "text") continue;
        TextCase c{kCorpus + "/" + j["screenshot"].get<std::string>(), j["text"], boxOf(j["expect"]), {},
                   j.value("scale", 1.0)};
        for (const auto& e : j.value("also", nlohmann::json::array())) c.also.push_back(boxOf(e));
        out.push_back(std::move(c));
    }
    return out;
}

/// The corpus's definition of a hit: the centre of `found` inside `expect`.
bool centreInside(const Rect& found, const Rect& expect) {
    double cx = found.x + found.w / 2.0, cy = found.y + found.h / 2.0;
    return cx >= expect.x && cy >= expect.y && cx <= expect.x + expect.w && cy <= expect.y + expect.h;
}

/// A hit on a text case: on its element or on another occurrence of the phrase (`also`).
bool textHit(const Rect& found, const TextCase& c) {
    if (centreInside(found, c.expect)) return true;
    for (const Rect& a : c.also)
        if (centreInside(found, a)) return true;
    return false;
}

OcrWord word(const std::string& text, int x, int y, int w, int h, float conf = 0.9f) {
    return {text, Rect{x, y, w, h}, conf};
}

OcrLine line(std::vector<OcrWord> words) {
    OcrLine l;
    l.words = std::move(words);
    Rect box = l.words.front().box;
    for (const auto& w : l.words) {
        int x1 = std::max(box.x + box.w, w.box.x + w.box.w), y1 = std::max(box.y + box.h, w.box.y + w.box.h);
        box.x = std::min(box.x, w.box.x);
        box.y = std::min(box.y, w.box.y);
        box.w = x1 - box.x;
        box.h = y1 - box.y;
        l.text += (l.text.empty() ? "" : " ") + w.text;
    }
    l.box = box;
    l.confidence = 0.9f;
    return l;
}

}  // namespace

// ---------------------------------------------------------------- folding and similarity

TEST_CASE("TextFinder: folding of case, width, spaces and punctuation", "[ocr]") {
    CHECK(foldText("Library Reference") == U"libraryreference");
    CHECK(foldText("Library Reference", true) == U"LibraryReference");
    CHECK(foldText("ＡＢＣ　１２３！") == U"abc123");            // fullwidth ASCII, ideographic space
    CHECK(foldText("你好，世界。") == U"你好世界");               // CJK punctuation dropped
    CHECK(foldText("你 好 世 界") == U"你好世界");                // one character per word
    CHECK(foldText("What's new in Python 3.11?") == U"whatsnewinpython311");
    CHECK(foldText("« » | — •") == U"");
    CHECK(foldText("| »", false, true) == U"|»");
    CHECK(foldText("ÉCOLE Straße ΑΒΓ") == U"écolestraßeαβγ");
    CHECK_THROWS_WITH(foldText("bad \xff byte"), Catch::Contains("UTF-8") && Catch::Contains("byte 4"));
    CHECK(encodeUtf8(decodeUtf8("eacu 你好 ✓")) == "eacu 你好 ✓");

    CHECK(textSimilarity("Reference", "reference") == 1.0);
    CHECK(textSimilarity("Reference", "reference", true) < 1.0);
    CHECK(textSimilarity("Refrence", "Reference") == Approx(1.0 - 1.0 / 9));
    CHECK(textSimilarity("", "") == 1.0);
    CHECK(textSimilarity("ＯＫ", "ok") == 1.0);
}

TEST_CASE("TextFinder: phrases across words, fuzzy, partial words, ranking", "[ocr]") {
    OcrResult r;
    r.lines.push_back(line({word("3.11.2", 10, 10, 40, 12), word("Documentation", 54, 10, 90, 12), word("»", 148, 10, 8, 12),
                            word("previous", 400, 10, 60, 12), word("|", 464, 10, 4, 12), word("next", 472, 10, 30, 12),
                            word("|", 506, 10, 4, 12), word("index", 514, 10, 36, 12)}));
    r.lines.push_back(line({word("Libray", 20, 60, 50, 14), word("Reference", 74, 60, 70, 14)}));
    r.lines.push_back(line({word("see", 20, 100, 24, 12), word("the", 48, 100, 22, 12), word("next", 74, 100, 30, 12),
                            word("section", 108, 100, 50, 12), word("nextafter", 162, 100, 70, 12)}));
    r.lines.push_back(line({word("你", 300, 200, 14, 14), word("好", 316, 200, 14, 14), word("世界", 332, 200, 28, 14)}));
    r.lines.push_back(line({word("打开文件保存设置", 300, 230, 128, 16)}));
    r.lines.push_back(line({word("General", 20, 300, 56, 12), word("Index", 80, 300, 40, 12)}));
    r.lines.push_back(line({word("APIs", 20, 400, 30, 12), word("to", 54, 400, 14, 12), word("run", 72, 400, 22, 12),
                            word("Python", 98, 400, 44, 12)}));
    r.lines.push_back(line({word("coroutines", 20, 417, 70, 12), word("concurrently", 94, 417, 84, 12)}));

    SECTION("a phrase over several words: the box is their union") {
        auto m = findText(r, "3.11.2 Documentation");
        REQUIRE(!m.empty());
        CHECK(m[0].box == Rect{10, 10, 134, 12});
        CHECK(m[0].score == 1.0);
        CHECK(m[0].whole_words);
        CHECK(m[0].text == "3.11.2 Documentation");
        CHECK(m[0].first_word == 0);
        CHECK(m[0].last_word == 1);
    }
    SECTION("fuzzy: one letter missing, above the threshold; not with an exact threshold") {
        auto m = findText(r, "Library Reference");
        REQUIRE(!m.empty());
        CHECK(m[0].score == Approx(1.0 - 1.0 / 16));
        CHECK(m[0].text == "Libray Reference");
        CHECK(m[0].box == Rect{20, 60, 124, 14});
        CHECK(findText(r, "Library Reference", {1.0}).empty());
        CHECK(findText(r, "Completely Different").empty());
    }
    SECTION("a word in a label beats the same word in running text and inside a word") {
        auto m = findText(r, "next");
        REQUIRE(m.size() >= 2);
        CHECK(m[0].box == Rect{472, 10, 30, 12});  // "| next |" in the navigation bar
        CHECK(m[1].box == Rect{74, 100, 30, 12});  // "see the next section"
        bool inside_context = false;
        for (const auto& x : m) inside_context |= !x.whole_words;
        CHECK(inside_context);  // "nextafter" holds "next" too, ranked last
        CHECK_FALSE(m.back().whole_words);
    }
    SECTION("exact case ranks first when both spellings are read") {
        auto m = findText(r, "Index");
        REQUIRE(m.size() == 2);
        CHECK(m[0].box == Rect{80, 300, 40, 12});
        m = findText(r, "index");
        CHECK(m[0].box == Rect{514, 10, 36, 12});
        m = findText(r, "index", {1.0, true});
        REQUIRE(m.size() == 1);
        CHECK(m[0].box == Rect{514, 10, 36, 12});
    }
    SECTION("CJK: one character per word, punctuation and fullwidth folded") {
        auto m = findText(r, "你好，世界");
        REQUIRE(!m.empty());
        CHECK(m[0].score == 1.0);
        CHECK(m[0].box == Rect{300, 200, 60, 14});
        m = findText(r, "好世");  // the first half of the word 世界
        REQUIRE(!m.empty());
        CHECK_FALSE(m[0].whole_words);
        CHECK(m[0].box == Rect{316, 200, 14 + 2 + 14, 14});
        CHECK(m[0].text == "好 世");
    }
    SECTION("CJK without spaces: part of a word gets a proportional box") {
        auto m = findText(r, "保存设置");
        REQUIRE(!m.empty());
        CHECK(m[0].text == "保存设置");
        CHECK(m[0].box == Rect{364, 230, 64, 16});
        m = findText(r, "打开　文件");
        REQUIRE(!m.empty());
        CHECK(m[0].box == Rect{300, 230, 64, 16});
    }
    SECTION("a phrase wrapped onto the next line") {
        auto m = findText(r, "run Python coroutines");
        REQUIRE(!m.empty());
        CHECK(m[0].score == 1.0);
        CHECK(m[0].line == 6);
        CHECK(m[0].first_word == 2);
        CHECK(m[0].end_line == 7);
        CHECK(m[0].last_word == 0);
        CHECK(m[0].box == Rect{20, 400, 122, 29});
        CHECK(m[0].text == "run Python coroutines");
        m = findText(r, "Python");  // within one line: end_line == line
        REQUIRE(!m.empty());
        CHECK(m[0].end_line == m[0].line);
    }
    SECTION("a phrase read as two lines side by side on one row") {
        // Tesseract's sparse-text pass reads widely spaced words of a small fixed font apart.
        OcrResult row;
        row.lines.push_back(line({{"Save", {142, 34, 29, 11}, 0.96f}}));
        row.lines.push_back(line({{"all", {177, 34, 22, 11}, 0.95f}}));
        row.lines.push_back(line({{"Retry", {92, 34, 40, 11}, 0.95f}}));
        row.lines.push_back(line({{"far", {260, 34, 22, 11}, 0.95f}}));  // a gap of 3 text heights
        auto m = findText(row, "Save all");
        REQUIRE(!m.empty());
        CHECK(m[0].score == 1.0);
        CHECK(m[0].line == 0);
        CHECK(m[0].end_line == 1);
        CHECK(m[0].box == Rect{142, 34, 57, 11});
        CHECK(findText(row, "all far").empty());
        m = findText(row, "Retry Save");  // 10 px apart: the same row, one text height
        REQUIRE(!m.empty());
        CHECK(m[0].box == Rect{92, 34, 79, 11});
    }
    SECTION("punctuation-only phrases compare punctuation") {
        auto m = findText(r, "»");
        REQUIRE(!m.empty());
        CHECK(m[0].box == Rect{148, 10, 8, 12});
    }
    SECTION("bad phrases") {
        CHECK_THROWS_AS(findText(r, "   "), std::invalid_argument);
        CHECK_THROWS_AS(findText(r, "\xc3"), std::invalid_argument);
        CHECK(findText(OcrResult{}, "anything").empty());
    }
    SECTION("max_results") {
        TextFindOptions o;
        o.max_results = 1;
        CHECK(findText(r, "next", o).size() == 1);
    }
}

// ---------------------------------------------------------------- engine

TEST_CASE("OcrEngine: languages, missing models", "[ocr]") {
    CHECK(OcrEngine::langsFor("Library Reference") == "eng");
    CHECK(OcrEngine::langsFor("打开文件") == "eng+chi_sim");
    CHECK(OcrEngine::langsFor("ＯＫ") == "eng+chi_sim");
    CHECK_THROWS_WITH(OcrEngine::checkLanguages("eng+xyz_abc"),
                      Catch::Contains("\"xyz_abc\"") && Catch::Contains("tesseract-ocr-xyz-abc"));
    CHECK_THROWS_WITH(OcrEngine("eng+xyz_abc"), Catch::Contains("tesseract-ocr-xyz-abc"));
    CHECK_THROWS_WITH(OcrEngine::checkLanguages(""), Catch::Contains("expected a language set"));
    CHECK_NOTHROW(OcrEngine::checkLanguages("eng+chi_sim"));
    CHECK(OcrEngine::shared("eng").recognize(cv::Mat()).lines.empty());
    CHECK_THROWS_AS(OcrEngine::shared("eng").recognize(cv::Mat(10, 10, CV_32FC1, cv::Scalar(0))), std::invalid_argument);
}

TEST_CASE("OcrEngine: Chinese and English in a real GTK dialog", "[ocr]") {
    // zenity --info rendered by GTK on Xvfb (font: Droid Sans Fallback) and captured by X11Device.
    cv::Mat img = cv::imread(EACU_FIXTURES "/ocr_chinese_zenity.png", cv::IMREAD_COLOR);
    REQUIRE(!img.empty());
    OcrResult r = OcrEngine::shared("eng+chi_sim").recognize(img);
    INFO([&] {
        std::string s;
        for (const auto& l : r.lines) s += l.box.str() + " " + l.text + "\n";
        return s;
    }());
    // Where the text is (measured on the image): line 1 y 130..145, line 2 y 149..163,
    // line 3 y 166..181, from x 286; the OK button around (522, 218).
    struct Want {
        const char* phrase;
        Rect where;
    };
    for (Want w : {Want{"你好世界", {284, 128, 56, 18}}, Want{"测试", {338, 128, 32, 18}},
                   Want{"打开文件", {284, 147, 56, 18}}, Want{"保存设置", {348, 147, 58, 18}},
                   Want{"已就绪", {374, 165, 42, 18}}, Want{"eacu 版本", {284, 165, 70, 18}},
                   Want{"你好，世界！", {284, 128, 56, 18}}, Want{"ＯＫ", {505, 208, 34, 20}}}) {
        auto m = findText(r, w.phrase);
        INFO(w.phrase);
        REQUIRE(!m.empty());
        CHECK(m[0].score >= 0.99);
        CHECK(centreInside(m[0].box, w.where));
    }
    // A region: only the second line, boxes still in frame pixels.
    OcrResult part = OcrEngine::shared("eng+chi_sim").recognize(img, Rect{270, 146, 200, 18});
    auto m = findText(part, "保存设置");
    REQUIRE(!m.empty());
    CHECK(centreInside(m[0].box, {348, 147, 58, 18}));
    CHECK(findText(part, "你好世界").empty());
}

TEST_CASE("OcrEngine: Chinese from a live zenity dialog on Xvfb", "[ocr][x11]") {
    if (std::system("command -v Xvfb >/dev/null 2>&1 && command -v zenity >/dev/null 2>&1") != 0) {
        WARN("Xvfb or zenity is not installed: skipping");
        return;
    }
    if (std::system("test -n \"$(fc-list :lang=zh 2>/dev/null)\"") != 0) {
        WARN("no font for Chinese (fonts-droid-fallback or fonts-noto-cjk): skipping");
        return;
    }
    auto vd = VirtualDisplay::start(640, 360, 24, 15);
    X11Device dev(vd->name());
    ProcessOptions o;
    o.env["DISPLAY"] = vd->name();
    o.env["NO_AT_BRIDGE"] = "1";
    o.env["GSETTINGS_BACKEND"] = "memory";
    auto zenity = Process::spawn({"zenity", "--info", "--title=eacu", "--width=420", "--text", "请选择文件\n确定后开始测试"}, o);
    // Until the dialog is drawn and the screen stays still (three equal captures in a row),
    // polling every 0.1 s, for at most 30 s.
    cv::Mat last;
    int still = 0;
    const double deadline = monotonicSeconds() + 30;
    while (still < 3 && monotonicSeconds() < deadline) {
        processToken().sleep(0.1);
        cv::Mat now = dev.capture().bgr;
        bool same = !last.empty() && cv::norm(now, last, cv::NORM_INF) == 0 && cv::countNonZero(now.reshape(1)) > 0;
        still = same ? still + 1 : 0;
        last = now;
    }
    REQUIRE(still >= 3);
    auto r = OcrCache::shared().get(last, std::nullopt, "eng+chi_sim");
    INFO([&] {
        std::string s;
        for (const auto& l : r->lines) s += l.box.str() + " " + l.text + "\n";
        return s;
    }());
    auto a = findText(*r, "请选择文件");
    auto b = findText(*r, "开始测试");
    REQUIRE(!a.empty());
    REQUIRE(!b.empty());
    CHECK(a[0].box.y < b[0].box.y);  // two lines, in order
    CHECK(a[0].score >= 0.8);
    CHECK(b[0].score >= 0.8);
}

TEST_CASE("OcrEngine: English in Chromium screenshots at device scales 0.75 to 2", "[ocr]") {
    REQUIRE(corpusPresent());
    // Three renderings of one page at three scales; every text case on them must hit.
    auto cases = textCases();
    std::map<std::string, std::vector<TextCase>> by_shot;
    for (const auto& c : cases)
        if (c.shot.find("/index@") != std::string::npos &&
            (c.scale == 0.75 || c.scale == 1.25 || c.scale == 2.0))
            by_shot[c.shot].push_back(c);
    REQUIRE(by_shot.size() == 3);
    for (const auto& [shot, list] : by_shot) {
        cv::Mat img = cv::imread(shot, cv::IMREAD_COLOR);
        REQUIRE(!img.empty());
        OcrResult r = OcrEngine::shared("eng").recognize(img);
        CHECK(r.upscale >= 1.0);
        // Bands read on two threads overlap: no line may come back twice.
        for (size_t i = 0; i < r.lines.size(); ++i)
            for (size_t j = i + 1; j < r.lines.size(); ++j) {
                INFO("line \"" << r.lines[i].text << "\" at " << r.lines[i].box.str() << " and at " << r.lines[j].box.str());
                CHECK_FALSE((r.lines[i].text == r.lines[j].text && r.lines[i].box.iou(r.lines[j].box) > 0.3));
            }
        for (const auto& c : list) {
            INFO(shot << ": \"" << c.text << "\" expected in " << c.expect.str());
            auto m = findText(r, c.text);
            REQUIRE(!m.empty());
            INFO("found " << m[0].box.str() << " \"" << m[0].text << "\" score " << m[0].score);
            CHECK(textHit(m[0].box, c));
            CHECK(m[0].confidence > 0.5f);
        }
    }
}

TEST_CASE("OcrEngine: labels inside bordered and filled buttons and an entry (Chromium)", "[ocr]") {
    // Headless Chromium renderings (chromium --headless=new --screenshot) of the fixtures'
    // ocr_button_press.html and ocr_buttons.html: default-styled and coloured buttons (light on
    // dark, dark on light, borders of 1-3 px), 12-24 px labels, Latin and Chinese, and an entry.
    // Tesseract's layout takes a bordered box for an image: these are read by text proposals.
    struct Want {
        const char* file;
        const char* phrase;
        Rect where;  // the button or entry (CSS box of the page)
    };
    for (Want w : {Want{"ocr_button_press.png", "Press", {100, 100, 200, 60}},
                   Want{"ocr_buttons.png", "Save", {40, 40, 48, 22}},
                   Want{"ocr_buttons.png", "Submit", {240, 40, 160, 44}},
                   Want{"ocr_buttons.png", "提交", {240, 40, 160, 44}},
                   Want{"ocr_buttons.png", "Cancel", {480, 40, 140, 40}},
                   Want{"ocr_buttons.png", "Upload", {40, 140, 120, 32}},
                   Want{"ocr_buttons.png", "确定", {240, 140, 180, 50}},
                   Want{"ocr_buttons.png", "删除文件", {480, 140, 150, 40}},
                   Want{"ocr_buttons.png", "Hello", {40, 240, 208, 24}},
                   Want{"ocr_buttons.png", "Next", {300, 240, 200, 60}}}) {
        cv::Mat img = cv::imread(std::string(EACU_FIXTURES "/") + w.file, cv::IMREAD_COLOR);
        REQUIRE(!img.empty());
        OcrEngine& engine = OcrEngine::shared(OcrEngine::langsFor(w.phrase));
        engine.forgetLastPage();  // read whole, not as changes to another test's frame
        OcrResult r = engine.recognize(img);
        INFO(w.file << ": \"" << w.phrase << "\" in " << w.where.str() << "; read:\n" << [&] {
            std::string s;
            for (const auto& l : r.lines) s += l.box.str() + " " + l.text + "\n";
            return s;
        }());
        auto m = findText(r, w.phrase);
        REQUIRE(!m.empty());
        CHECK(m[0].score >= 0.99);
        CHECK(centreInside(m[0].box, w.where));
    }
}

// ---------------------------------------------------------------- cache

TEST_CASE("OcrCache: keys, LRU, fingerprint", "[ocr]") {
    cv::Mat a(100, 120, CV_8UC3, cv::Scalar(10, 20, 30)), b = a.clone();
    CHECK(OcrCache::fingerprint(a) == OcrCache::fingerprint(b));
    b.at<cv::Vec3b>(99, 119)[2] = 31;
    CHECK(OcrCache::fingerprint(a) != OcrCache::fingerprint(b));
    cv::Mat wide(100, 240, CV_8UC3, cv::Scalar(10, 20, 30));
    CHECK(OcrCache::fingerprint(a) == OcrCache::fingerprint(wide(cv::Rect(0, 0, 120, 100))));  // a view, not continuous
    CHECK(OcrCache::fingerprint(a) != OcrCache::fingerprint(a.reshape(1)));

    OcrCache cache(2);
    auto r1 = std::make_shared<OcrResult>();
    auto r2 = std::make_shared<OcrResult>();
    auto r3 = std::make_shared<OcrResult>();
    cache.put(a, std::nullopt, "eng", r1);
    cache.put(a, Rect{0, 0, 50, 50}, "eng", r2);
    CHECK(cache.find(a, std::nullopt, "eng") == r1);  // now most recent
    CHECK(cache.find(a, Rect{0, 0, 50, 50}, "eng") == r2);
    CHECK(cache.find(a, std::nullopt, "eng+chi_sim") == nullptr);
    CHECK(cache.find(b, std::nullopt, "eng") == nullptr);
    cache.put(b, std::nullopt, "eng", r3);  // evicts the least recently used: a's full frame
    CHECK(cache.size() == 2);
    CHECK(cache.find(a, std::nullopt, "eng") == nullptr);
    CHECK(cache.find(b, std::nullopt, "eng") == r3);
    cache.clear();
    CHECK(cache.size() == 0);
}

TEST_CASE("OcrCache: a frame already read is not read again", "[ocr]") {
    cv::Mat img = cv::imread(EACU_FIXTURES "/ocr_chinese_zenity.png", cv::IMREAD_COLOR);
    REQUIRE(!img.empty());
    OcrCache cache(4);
    bool hit = true;
    auto first = cache.get(img, std::nullopt, "eng", &hit);
    CHECK_FALSE(hit);
    REQUIRE(first);
    cv::Mat copy = img.clone();  // same content, other memory: same entry
    auto second = cache.get(copy, std::nullopt, "eng", &hit);
    CHECK(hit);
    CHECK(second.get() == first.get());
    CHECK(!findText(*second, "OK").empty());
}

TEST_CASE("changedRegions: changed pixels grown to whole lines", "[ocr]") {
    cv::Mat a(200, 300, CV_8UC1, cv::Scalar(240)), b = a.clone();
    CHECK(changedRegions(a, b, {}, 4).empty());
    // One changed block: its box grown by the margin.
    b(cv::Rect(100, 50, 10, 6)).setTo(0);
    auto r = changedRegions(a, b, {}, 4);
    REQUIRE(r.size() == 1);
    CHECK(r[0] == Rect{96, 46, 18, 14});
    // A line it touches (read on the frame before) is taken in whole (2 px around it); a line
    // that line touches is not (no running on through a paragraph).
    r = changedRegions(a, b, {Rect{20, 48, 200, 10}, Rect{20, 150, 200, 10}, Rect{20, 37, 200, 10}}, 4);
    REQUIRE(r.size() == 1);
    CHECK(r[0] == Rect{18, 35, 204, 25});
    r = changedRegions(a, b, {Rect{20, 50, 200, 10}, Rect{20, 63, 200, 10}}, 4);
    REQUIRE(r.size() == 1);
    CHECK(r[0] == Rect{18, 46, 204, 16});
    // Two changes far apart: two regions; near each other: one.
    b(cv::Rect(10, 180, 5, 5)).setTo(0);
    r = changedRegions(a, b, {}, 4);
    CHECK(r.size() == 2);
    b(cv::Rect(100, 60, 3, 3)).setTo(0);
    CHECK(changedRegions(a, b, {}, 4).size() == 2);
    // At the image's edge: clipped.
    cv::Mat c = a.clone();
    c(cv::Rect(0, 0, 2, 2)).setTo(0);
    r = changedRegions(a, c, {}, 4);
    REQUIRE(r.size() == 1);
    CHECK(r[0] == Rect{0, 0, 6, 6});
    CHECK_THROWS_AS(changedRegions(a, cv::Mat(10, 10, CV_8UC1), {}, 4), std::invalid_argument);
    // Which lines' own pixels changed, and what overlaps a line kept.
    CHECK(samePixels(a, c, Rect{10, 10, 50, 50}));
    CHECK_FALSE(samePixels(a, c, Rect{1, 1, 5, 5}));
    CHECK(samePixels(a, c, Rect{-10, -10, 5, 5}));  // outside: nothing differs
    CHECK(overlapsAny(Rect{0, 0, 10, 10}, {Rect{5, 5, 10, 10}}));      // a quarter of either
    CHECK_FALSE(overlapsAny(Rect{0, 0, 10, 10}, {Rect{8, 8, 10, 10}})); // 4 px of 100
    CHECK_FALSE(overlapsAny(Rect{0, 0, 10, 10}, {}));
}

TEST_CASE("LineCache: what was read, by key, least recently used evicted", "[ocr]") {
    LineCache cache(2);
    OcrLine line;
    line.text = "OK";
    line.box = {1, 2, 3, 4};
    cache.put(1, line);
    cache.put(2, std::nullopt);  // a patch that read as nothing is remembered too
    std::optional<OcrLine> got;
    REQUIRE(cache.find(1, &got));
    REQUIRE(got);
    CHECK(got->text == "OK");
    REQUIRE(cache.find(2, &got));
    CHECK_FALSE(got);
    cache.put(3, line);  // evicts 1 (2 was used last)
    CHECK(cache.size() == 2);
    CHECK_FALSE(cache.find(1, &got));
    CHECK(cache.find(3, &got));
    cache.clear();
    CHECK(cache.size() == 0);
}

TEST_CASE("OcrEngine: a frame read after a small change is read again only there", "[ocr]") {
    REQUIRE(corpusPresent());
    cv::Mat img = cv::imread(kCorpus + "/shots/library_index@1920x1080x1.0.png", cv::IMREAD_COLOR);
    REQUIRE(!img.empty());
    OcrEngine engine("eng");
    OcrResult first = engine.recognize(img);
    CHECK(first.laid_out == 1.0);
    CHECK(first.lines_read > 20);
    CHECK(first.lines_reused == 0);
    auto texts = [](const OcrResult& r) {
        std::multiset<std::string> t;
        for (const OcrLine& l : r.lines) t.insert(l.text);
        return t;
    };
    // The same frame again: nothing laid out or read again, the same lines.
    OcrResult same = engine.recognize(img.clone());
    CHECK(same.laid_out == 0.0);
    CHECK(same.lines_read == 0);
    CHECK(texts(same) == texts(first));
    // One line erased (painted with the background, as when a menu item goes away): only its
    // place is read again; the line is gone, every other line is still there.
    const OcrLine* target = nullptr;
    for (const OcrLine& l : first.lines)
        if (l.text.find("Standard Library") == std::string::npos && l.text.size() > 30 && l.confidence > 0.9 &&
            l.box.y > 300)
            target = target ? target : &l;
    REQUIRE(target);
    cv::Mat changed = img.clone();
    Rect box = target->box.grown(2);
    changed(cv::Rect(box.x, box.y, box.w, box.h)).setTo(img.at<cv::Vec3b>(box.y - 1, box.x - 1));
    OcrResult after = engine.recognize(changed);
    CHECK(after.laid_out > 0.0);
    CHECK(after.laid_out < 0.1);
    CHECK(after.lines_read <= 3);
    std::multiset<std::string> expected = texts(first);
    expected.erase(expected.find(target->text));
    CHECK(texts(after) == expected);
    // Read from scratch (laid out whole, lines from the line cache): the same lines.
    engine.forgetLastPage();
    OcrResult fresh = engine.recognize(changed);
    CHECK(fresh.laid_out == 1.0);
    CHECK(fresh.lines_read <= 3);
    CHECK(texts(fresh) == texts(after));
}

// ---------------------------------------------------------------- the whole corpus (own ctest entry)

TEST_CASE("OCR: corpus text cases hit rate >= 95%", "[.ocr_corpus]") {
    REQUIRE(corpusPresent());
    OcrCache cache(2);
    std::map<double, std::pair<int, int>> by_scale;
    int hits = 0, n = 0;
    double ocr_ms = 0, worst_lookup_ms = 0;
    for (const auto& c : textCases()) {
        static std::map<std::string, cv::Mat> images;
        cv::Mat& img = images[c.shot];
        if (img.empty()) img = cv::imread(c.shot, cv::IMREAD_COLOR);
        REQUIRE(!img.empty());
        const std::string langs = OcrEngine::langsFor(c.text);
        bool was_cached = false;
        auto r = cache.get(img, std::nullopt, langs, &was_cached);
        if (!was_cached) ocr_ms += r->ms;
        auto t0 = std::chrono::steady_clock::now();
        auto m = findText(*cache.get(img, std::nullopt, langs), c.text);
        worst_lookup_ms = std::max(worst_lookup_ms,
                                   std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
        bool hit = !m.empty() && textHit(m[0].box, c);
        if (!hit)
            UNSCOPED_INFO("miss: " << c.shot << " \"" << c.text << "\" expected " << c.expect.str() << ", got "
                                   << (m.empty() ? "nothing" : m[0].box.str() + " \"" + m[0].text + "\""));
        hits += hit;
        ++n;
        by_scale[c.scale].first += hit;
        by_scale[c.scale].second++;
    }
    for (const auto& [scale, hn] : by_scale)
        std::printf("ocr corpus: scale %.2f: %d/%d hit (%.1f%%)\n", scale, hn.first, hn.second, 100.0 * hn.first / hn.second);
    std::printf("ocr corpus: total %d/%d hit (%.1f%%), OCR %.1f s, slowest cached lookup + find %.2f ms\n", hits, n,
                100.0 * hits / n, ocr_ms / 1000, worst_lookup_ms);
    REQUIRE(n > 0);
    CHECK(double(hits) / n >= 0.95);
}
