#include "vision/ocr/OcrEngine.h"

#include "vision/ocr/ChangedRegions.h"
#include "vision/ocr/OcrCache.h"
#include "vision/ocr/TextProposals.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <stdexcept>
#include <thread>

#include <dlfcn.h>

#include <opencv2/imgproc.hpp>
#include <tesseract/baseapi.h>
#include <tesseract/resultiterator.h>

namespace fs = std::filesystem;

namespace eacu {

struct OcrEngine::Worker {
    tesseract::TessBaseAPI api;
};

namespace {

std::vector<std::string> splitLangs(const std::string& langs) {
    std::vector<std::string> out;
    size_t start = 0;
    while (start <= langs.size()) {
        size_t plus = langs.find('+', start);
        if (plus == std::string::npos) plus = langs.size();
        if (plus > start) out.push_back(langs.substr(start, plus - start));
        start = plus + 1;
    }
    return out;
}

/// Debian package name of a Tesseract language: chi_sim -> tesseract-ocr-chi-sim.
std::string packageFor(std::string lang) {
    std::transform(lang.begin(), lang.end(), lang.begin(), [](unsigned char c) {
        return c == '_' ? '-' : char(std::tolower(c));
    });
    return "tesseract-ocr-" + lang;
}

cv::Mat toGrey(const cv::Mat& img) {
    if (img.depth() != CV_8U)
        throw std::invalid_argument("OCR: expected an 8-bit image, got depth " + std::to_string(img.depth()));
    cv::Mat grey;
    switch (img.channels()) {
        case 1: grey = img; break;
        case 3: cv::cvtColor(img, grey, cv::COLOR_BGR2GRAY); break;
        case 4: cv::cvtColor(img, grey, cv::COLOR_BGRA2GRAY); break;
        default:
            throw std::invalid_argument("OCR: expected a grey, BGR or BGRA image, got " +
                                        std::to_string(img.channels()) + " channels");
    }
    return grey;
}

/// Rows where a horizontal band may be cut: the row with the least horizontal detail
/// (sum of |dI/dx|) within `window` rows of each wanted cut.
std::vector<int> bandCuts(const cv::Mat& grey, int bands) {
    std::vector<int> cuts{0};
    if (bands <= 1) {
        cuts.push_back(grey.rows);
        return cuts;
    }
    std::vector<double> detail(grey.rows, 0.0);
    for (int y = 0; y < grey.rows; ++y) {
        const uchar* p = grey.ptr<uchar>(y);
        long s = 0;
        for (int x = 1; x < grey.cols; ++x) s += std::abs(int(p[x]) - int(p[x - 1]));
        detail[y] = double(s);
    }
    const int window = grey.rows / (bands * 4);
    for (int k = 1; k < bands; ++k) {
        int want = int(std::lround(double(grey.rows) * k / bands));
        int best = want;
        for (int y = std::max(cuts.back() + 1, want - window); y <= std::min(grey.rows - 1, want + window); ++y)
            if (detail[y] < detail[best] || (detail[y] == detail[best] && std::abs(y - want) < std::abs(best - want)))
                best = y;
        cuts.push_back(best);
    }
    cuts.push_back(grey.rows);
    return cuts;
}

struct Band {
    int own0, own1;  // rows owned (a line belongs to the band holding its centre)
    int y0, y1;      // rows given to Tesseract (owned rows plus overlap)
};

/// The mean confidence (0..1) of the symbols of the word at `it`. Tesseract's LSTM sometimes
/// gives a word it read correctly a word confidence of 0 (tesseract-ocr/tesseract#3983, seen
/// here on "Documentation" and "os.path"); its symbols keep their own confidences.
float symbolConfidence(const tesseract::ResultIterator& it) {
    tesseract::LTRResultIterator sym(it);
    double sum = 0;
    int n = 0;
    do {
        if (sym.Empty(tesseract::RIL_SYMBOL)) break;
        sum += sym.Confidence(tesseract::RIL_SYMBOL);
        ++n;
        if (sym.IsAtFinalElement(tesseract::RIL_WORD, tesseract::RIL_SYMBOL)) break;
    } while (sym.Next(tesseract::RIL_SYMBOL));
    return n ? float(sum / n / 100.0) : 0.0f;
}

/// Reads one band with one Tesseract instance; boxes in pixels of the enlarged image.
std::vector<OcrLine> readBand(tesseract::TessBaseAPI& api, const cv::Mat& big, const Band& band, int ppi) {
    cv::Mat roi = big.rowRange(band.y0, band.y1);
    if (!roi.isContinuous()) roi = roi.clone();
    api.SetImage(roi.data, roi.cols, roi.rows, 1, int(roi.step));
    api.SetSourceResolution(ppi);
    if (api.Recognize(nullptr) != 0) throw std::runtime_error("OCR: Tesseract failed to recognise the image");
    std::vector<OcrLine> lines;
    std::unique_ptr<tesseract::ResultIterator> it(api.GetIterator());
    if (!it) return lines;
    using tesseract::RIL_TEXTLINE;
    using tesseract::RIL_WORD;
    OcrLine line;
    bool open = false;
    auto text = [&](tesseract::PageIteratorLevel level) {
        std::unique_ptr<char[]> s(it->GetUTF8Text(level));
        std::string t = s ? s.get() : "";
        while (!t.empty() && (t.back() == '\n' || t.back() == ' ' || t.back() == '\r')) t.pop_back();
        size_t b = t.find_first_not_of(' ');
        return b == std::string::npos ? std::string() : t.substr(b);
    };
    auto box = [&](tesseract::PageIteratorLevel level) {
        int l, t, r, b;
        if (!it->BoundingBox(level, &l, &t, &r, &b)) return Rect{};
        return Rect{l, t + band.y0, r - l, b - t};
    };
    auto finish = [&]() {
        if (open && !line.words.empty()) {
            int cy = line.box.y + line.box.h / 2;
            if (cy >= band.own0 && cy < band.own1) lines.push_back(std::move(line));
        }
        line = OcrLine{};
        open = false;
    };
    do {
        if (it->Empty(RIL_WORD)) continue;
        if (it->IsAtBeginningOf(RIL_TEXTLINE)) {
            finish();
            line.text = text(RIL_TEXTLINE);
            line.box = box(RIL_TEXTLINE);
            line.confidence = it->Confidence(RIL_TEXTLINE) / 100.0f;
            open = true;
        }
        OcrWord w;
        w.text = text(RIL_WORD);
        w.box = box(RIL_WORD);
        w.confidence = it->Confidence(RIL_WORD) / 100.0f;
        if (w.confidence <= 0) w.confidence = symbolConfidence(*it);
        if (!w.text.empty() && !w.box.empty()) line.words.push_back(std::move(w));
        if (it->IsAtFinalElement(RIL_TEXTLINE, RIL_WORD)) finish();
    } while (it->Next(RIL_WORD));
    finish();
    api.Clear();
    return lines;
}

/// Tesseract (Debian's build) parallelises its LSTM with OpenMP, 4 threads per call. With our
/// own threads per band that oversubscribes the cores (and OpenMP's spin-waiting doubles the
/// CPU time on a busy machine), so OpenMP regions started from this thread run on one thread:
/// max-active-levels 0 is a per-thread setting in libgomp. Looked up at run time: libgomp is
/// loaded by libtesseract, and eacu does not link it itself.
void singleThreadedOpenMp() {
    using SetLevels = void (*)(int);
    static SetLevels set = reinterpret_cast<SetLevels>(dlsym(RTLD_DEFAULT, "omp_set_max_active_levels"));
    if (set) set(0);
}

/// Reads the line or proposal in box `r` of `grey` (cut and normalised by prepareLine,
/// `line_height` px high) in page segmentation `mode` (single line for a page's line; single
/// line or sparse text for a proposal), all words as one line; boxes in pixels of `grey`.
/// Empty when nothing was read or the words' mean confidence is under `min_confidence`.
/// `erase_frames` as prepareLine's (a proposal's frame; never in a page's line).
std::optional<OcrLine> readLine(tesseract::TessBaseAPI& api, const cv::Mat& grey, const Rect& r, double line_height,
                                double min_confidence, tesseract::PageSegMode mode, bool erase_frames) {
    double f = 1;
    cv::Point o;
    cv::Mat img = prepareLine(grey, r, line_height, &f, &o, erase_frames);
    auto back = api.GetPageSegMode();
    api.SetPageSegMode(mode);
    // The cut is dark text on light already (prepareLine): Tesseract's second reading of a
    // line inverted when its confidence is low (tessedit_do_invert) would only double its cost.
    bool invert = true;
    api.GetBoolVariable("tessedit_do_invert", &invert);
    api.SetVariable("tessedit_do_invert", "0");
    api.SetImage(img.data, img.cols, img.rows, 1, int(img.step));
    api.SetSourceResolution(int(std::lround(96 * f)));
    int rc = api.Recognize(nullptr);
    OcrLine line;
    std::unique_ptr<tesseract::ResultIterator> it(rc == 0 ? api.GetIterator() : nullptr);
    double sum = 0;
    if (it) do {
        if (it->Empty(tesseract::RIL_WORD)) continue;
        std::unique_ptr<char[]> t(it->GetUTF8Text(tesseract::RIL_WORD));
        int l, tp, rt, b;
        if (!t || !t[0] || !it->BoundingBox(tesseract::RIL_WORD, &l, &tp, &rt, &b)) continue;
        OcrWord w;
        w.text = t.get();
        w.confidence = it->Confidence(tesseract::RIL_WORD) / 100.0f;
        if (w.confidence <= 0) w.confidence = symbolConfidence(*it);
        int x0 = o.x + int(std::floor((l - 10) / f)), y0 = o.y + int(std::floor((tp - 10) / f));
        int x1 = o.x + int(std::ceil((rt - 10) / f)), y1 = o.y + int(std::ceil((b - 10) / f));
        w.box = Rect{x0, y0, x1 - x0, y1 - y0}.intersect(Rect{0, 0, grey.cols, grey.rows});
        if (w.box.empty()) continue;
        sum += w.confidence;
        line.text += (line.text.empty() ? "" : " ") + w.text;
        line.box = line.words.empty() ? w.box : line.box.united(w.box);
        line.words.push_back(std::move(w));
    } while (it->Next(tesseract::RIL_WORD));
    api.Clear();
    api.SetPageSegMode(back);
    api.SetVariable("tessedit_do_invert", invert ? "1" : "0");
    if (rc != 0) throw std::runtime_error("OCR: Tesseract failed to recognise a line of text");
    if (line.words.empty()) return std::nullopt;
    line.confidence = float(sum / double(line.words.size()));
    if (line.confidence < min_confidence) return std::nullopt;
    return line;
}

/// `grey` with its dark bands inverted, so that the layout analysis, which looks for dark text
/// on a light page, also finds light text on a dark band (a selected item, a highlighted menu
/// entry, a dark button or header). A dark area is where the median of ~20x20 px windows is
/// under 100 of 255 (on a quarter-size copy: 5x5 windows); one at most 3 text heights tall
/// (at least 48 px) is inverted as the box of its rows and columns that are at least half
/// dark. Larger dark areas (a dark backdrop, a dark theme, a picture) are left as they are.
/// The image itself when nothing is inverted.
cv::Mat darkBackgroundInverted(const cv::Mat& grey, double text_height) {
    if (grey.rows < 8 || grey.cols < 8) return grey;
    cv::Mat small, bg, mask, labels, stats, centroids;
    cv::resize(grey, small, cv::Size((grey.cols + 3) / 4, (grey.rows + 3) / 4), 0, 0, cv::INTER_AREA);
    cv::medianBlur(small, bg, 5);
    cv::threshold(bg, mask, 99, 255, cv::THRESH_BINARY_INV);
    int n = cv::connectedComponentsWithStats(mask, labels, stats, centroids, 8, CV_32S);
    if (n <= 1) return grey;
    cv::Mat out;
    const Rect image{0, 0, grey.cols, grey.rows};
    const int max_h = std::max(48, int(std::lround(3 * text_height)));
    for (int i = 1; i < n; ++i) {
        if (stats.at<int>(i, cv::CC_STAT_AREA) < 4 || stats.at<int>(i, cv::CC_STAT_HEIGHT) * 4 > max_h + 8) continue;
        Rect r = Rect{stats.at<int>(i, cv::CC_STAT_LEFT) * 4, stats.at<int>(i, cv::CC_STAT_TOP) * 4,
                      stats.at<int>(i, cv::CC_STAT_WIDTH) * 4, stats.at<int>(i, cv::CC_STAT_HEIGHT) * 4}
                     .grown(4)
                     .intersect(image);
        cv::Mat dark = grey(cv::Rect(r.x, r.y, r.w, r.h)) < 100;
        int y0 = -1, y1 = -1, x0 = -1, x1 = -1;
        for (int y = 0; y < dark.rows; ++y)
            if (cv::countNonZero(dark.row(y)) * 2 >= dark.cols) y0 = y0 < 0 ? y : y0, y1 = y;
        for (int x = 0; x < dark.cols; ++x)
            if (cv::countNonZero(dark.col(x)) * 2 >= dark.rows) x0 = x0 < 0 ? x : x0, x1 = x;
        if (y0 < 0 || x0 < 0) continue;
        if (out.empty()) out = grey.clone();
        cv::Mat box = out(cv::Rect(r.x + x0, r.y + y0, x1 - x0 + 1, y1 - y0 + 1));
        cv::bitwise_not(box, box);
    }
    return out.empty() ? grey : out;
}

/// Text line boxes found by Tesseract's layout analysis (in the engine's page segmentation
/// mode) in `roi` of `big`, in pixels of `big`; only lines whose centre row is in
/// [own0, own1) (a line cut by one band is whole in the next).
std::vector<Rect> layoutLines(tesseract::TessBaseAPI& api, const cv::Mat& big, const Rect& roi, int own0, int own1,
                              int ppi) {
    std::vector<Rect> out;
    if (roi.empty()) return out;
    api.SetImage(big.ptr<uchar>(roi.y) + roi.x, roi.w, roi.h, 1, int(big.step));
    api.SetSourceResolution(ppi);
    std::unique_ptr<tesseract::PageIterator> it(api.AnalyseLayout());
    if (it) do {
        if (it->Empty(tesseract::RIL_TEXTLINE)) continue;
        int l, t, r, b;
        if (!it->BoundingBox(tesseract::RIL_TEXTLINE, &l, &t, &r, &b)) continue;
        Rect box{l + roi.x, t + roi.y, r - l, b - t};
        int cy = box.y + box.h / 2;
        if (!box.empty() && cy >= own0 && cy < own1) out.push_back(box);
    } while (it->Next(tesseract::RIL_TEXTLINE));
    it.reset();
    api.Clear();
    return out;
}

/// The line cache's key for reading box `r` of `grey` in way `how`: the pixels of its cut
/// (lineCut) and where the box lies in it.
uint64_t patchKey(const cv::Mat& grey, const Rect& r, uint64_t how) {
    Rect c = lineCut(grey, r);
    uint64_t h = OcrCache::fingerprint(grey(cv::Rect(c.x, c.y, c.w, c.h)));
    for (uint64_t v : {uint64_t(uint32_t(r.x - c.x)), uint64_t(uint32_t(r.y - c.y)), uint64_t(uint32_t(r.w)),
                       uint64_t(uint32_t(r.h)), how}) {
        h ^= v + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2);
        h *= 0xBF58476D1CE4E5B9ull;
    }
    return h;
}

/// `line` with every box moved by (dx, dy).
OcrLine moved(OcrLine line, int dx, int dy) {
    line.box.x += dx;
    line.box.y += dy;
    for (auto& w : line.words) {
        w.box.x += dx;
        w.box.y += dy;
    }
    return line;
}

/// Runs job(api, i) for every i in [0, n) on threads of our own, one per Tesseract instance of
/// `workers` (at most n), each taking the next i; the first error is thrown after all ended.
/// (Always on threads of our own: the OpenMP setting stays off the caller's thread.)
template <class Worker, class Job>
void onWorkers(std::vector<std::unique_ptr<Worker>>& workers, size_t n, Job job) {
    std::vector<std::string> errors(n);
    std::atomic<size_t> next{0};
    auto work = [&](Worker& w) {
        singleThreadedOpenMp();
        for (size_t i; (i = next++) < n;) {
            try {
                job(w.api, i);
            } catch (const std::exception& e) {
                errors[i] = e.what();
            }
        }
    };
    std::vector<std::thread> threads;
    for (size_t i = 0; i < std::min(workers.size(), n); ++i) threads.emplace_back(work, std::ref(*workers[i]));
    for (auto& t : threads) t.join();
    for (const auto& e : errors)
        if (!e.empty()) throw std::runtime_error(e);
}

// How a patch was read, for the line cache's key: a page's line, or a text proposal.
constexpr uint64_t kReadPageLine = 1, kReadProposal = 2;

/// `grey` enlarged by `f` (bicubic), or itself (continuous) when f is 1.
cv::Mat enlarge(const cv::Mat& grey, double f) {
    cv::Mat big;
    if (f != 1.0)
        cv::resize(grey, big, cv::Size(), f, f, cv::INTER_CUBIC);
    else
        big = grey.isContinuous() ? grey : grey.clone();
    return big;
}

Rect unscale(const Rect& r, double f, Point offset) {
    int x0 = int(std::floor(r.x / f)), y0 = int(std::floor(r.y / f));
    int x1 = int(std::ceil((r.x + r.w) / f)), y1 = int(std::ceil((r.y + r.h) / f));
    return {x0 + offset.x, y0 + offset.y, x1 - x0, y1 - y0};
}

}  // namespace

std::string OcrEngine::tessdataDir() {
    if (const char* env = std::getenv("TESSDATA_PREFIX"); env && *env) return env;
    for (const char* d : {"/usr/share/tesseract-ocr/5/tessdata", "/usr/share/tesseract-ocr/4.00/tessdata",
                          "/usr/share/tessdata"})
        if (fs::is_directory(d)) return d;
    return "/usr/share/tesseract-ocr/5/tessdata";
}

std::string OcrEngine::langsFor(const std::string& phrase) {
    // Lead bytes of UTF-8 sequences for U+2E80..U+9FFF (CJK radicals to unified ideographs,
    // kana, CJK punctuation), U+AC00..U+D7AF (hangul), U+F900..U+FAFF, U+FF00..U+FFEF.
    for (size_t i = 0; i + 2 < phrase.size(); ++i) {
        unsigned char c = phrase[i];
        if ((c & 0xF0) != 0xE0) continue;
        unsigned cp = ((c & 0x0F) << 12) | ((phrase[i + 1] & 0x3F) << 6) | (phrase[i + 2] & 0x3F);
        if ((cp >= 0x2E80 && cp <= 0x9FFF) || (cp >= 0xAC00 && cp <= 0xD7AF) || (cp >= 0xF900 && cp <= 0xFAFF) ||
            (cp >= 0xFF00 && cp <= 0xFFEF))
            return "eng+chi_sim";
    }
    return "eng";
}

void OcrEngine::checkLanguages(const std::string& langs) {
    auto list = splitLangs(langs);
    if (list.empty()) throw std::runtime_error("OCR: expected a language set such as \"eng+chi_sim\", got \"" + langs + "\"");
    std::string dir = tessdataDir();
    for (const auto& lang : list) {
        fs::path model = fs::path(dir) / (lang + ".traineddata");
        if (!fs::exists(model))
            throw std::runtime_error("OCR: no Tesseract model for language \"" + lang + "\": " + model.string() +
                                     " not found (install the Debian package " + packageFor(lang) +
                                     ", or set TESSDATA_PREFIX to the folder holding " + lang + ".traineddata)");
    }
}

double OcrEngine::estimateTextHeight(const cv::Mat& grey) {
    if (grey.empty()) return 0;
    cv::Mat edges;
    cv::Canny(grey, edges, 60, 160);
    cv::Mat labels, stats, centroids;
    int n = cv::connectedComponentsWithStats(edges, labels, stats, centroids, 8, CV_32S);
    std::vector<int> heights;
    heights.reserve(n);
    for (int i = 1; i < n; ++i) {
        int w = stats.at<int>(i, cv::CC_STAT_WIDTH), h = stats.at<int>(i, cv::CC_STAT_HEIGHT);
        // Glyph-like: not a speck, not a rule or a frame, not a big picture.
        if (h < 4 || h > 200 || w > 3 * h || w < 2) continue;
        heights.push_back(h);
    }
    if (heights.size() < 5) return 0;
    std::nth_element(heights.begin(), heights.begin() + heights.size() / 2, heights.end());
    return heights[heights.size() / 2];
}

OcrEngine::OcrEngine(const std::string& langs, OcrOptions options)
    : langs_(langs), options_(options), line_cache_(options.line_cache) {
    checkLanguages(langs);
    int n = options_.threads > 0 ? options_.threads
                                 : std::clamp(int(std::thread::hardware_concurrency()), 1, 4);
    std::string dir = tessdataDir();
    for (int i = 0; i < n; ++i) {
        auto w = std::make_unique<Worker>();
        if (w->api.Init(dir.c_str(), langs.c_str(), tesseract::OEM_LSTM_ONLY) != 0)
            throw std::runtime_error("OCR: Tesseract could not load \"" + langs + "\" from " + dir);
        w->api.SetVariable("debug_file", "/dev/null");
        w->api.SetPageSegMode(tesseract::PageSegMode(options_.page_seg_mode));
        for (const auto& [name, value] : options_.variables)
            if (!w->api.SetVariable(name.c_str(), value.c_str()))
                throw std::runtime_error("OCR: Tesseract has no parameter \"" + name + "\" (set to \"" + value + "\")");
        workers_.push_back(std::move(w));
    }
}

OcrEngine::~OcrEngine() = default;

void OcrEngine::forgetLastPage() {
    std::lock_guard lock(mutex_);
    last_ = LastPage{};
}

OcrEngine& OcrEngine::shared(const std::string& langs) { return shared(langs, "", OcrOptions{}); }

OcrEngine& OcrEngine::shared(const std::string& langs, const std::string& variant, const OcrOptions& options) {
    static std::mutex m;
    static std::map<std::pair<std::string, std::string>, std::unique_ptr<OcrEngine>> engines;
    std::lock_guard lock(m);
    std::pair<std::string, std::string> key{langs, variant};
    auto& e = engines[key];
    if (!e) {
        try {
            e = std::make_unique<OcrEngine>(langs, options);
        } catch (...) {
            engines.erase(key);
            throw;
        }
    }
    return *e;
}

void OcrEngine::readProposals(const cv::Mat& grey, Point offset, const std::optional<std::vector<Rect>>& changed,
                              OcrResult& result) {
    // Proposals that words read with confidence do not cover (half of the proposal's area, and
    // their bounds about the proposal's). (A page's lines are read with their polarity
    // normalised, as proposals are: light text on dark needs no second reading.)
    std::vector<Rect> to_read;
    // Glyphs are looked for (MSER, the costly part) only in the areas with detail that words
    // read with confidence do not cover (most of a page of text is).
    std::vector<Rect> props;
    std::vector<Rect> areas;
    if (!changed) {
        areas = detailAreas(grey);
    } else {
        for (const Rect& c : *changed)
            for (Rect a : detailAreas(grey(cv::Rect(c.x, c.y, c.w, c.h)))) areas.push_back({a.x + c.x, a.y + c.y, a.w, a.h});
    }
    for (const Rect& a : areas) {
        Rect fa{a.x + offset.x, a.y + offset.y, a.w, a.h};
        int covered = 0;
        for (const OcrLine& l : result.lines)
            if (l.box.intersect(fa).area() > 0)
                for (const OcrWord& w : l.words)
                    if (w.confidence >= options_.proposal_covered_confidence) covered += w.box.intersect(fa).area();
        if (covered * 10 >= fa.area() * 7) continue;
        for (Rect p : textProposals(grey(cv::Rect(a.x, a.y, a.w, a.h)), result.text_height)) {
            p.x += a.x;
            p.y += a.y;
            bool seen = false;
            for (const Rect& q : props) seen = seen || q.iou(p) > 0.8;
            if (!seen) props.push_back(p);
        }
    }
    for (const Rect& p : props) {
        Rect r{p.x + offset.x, p.y + offset.y, p.w, p.h};
        int area = 0;
        Rect words;
        for (const OcrLine& l : result.lines)
            if (l.box.intersect(r).area() > 0)
                for (const OcrWord& w : l.words)
                    if (w.confidence >= options_.proposal_covered_confidence && w.box.intersect(r).area() > 0) {
                        area += w.box.intersect(r).area();
                        words = words.empty() ? w.box : words.united(w.box);
                    }
        bool covered = 2 * area >= r.area() && words.iou(r) >= 0.5;
        if (!covered) to_read.push_back(p);
    }
    std::vector<std::optional<OcrLine>> read =
        readPatches(grey, to_read, kReadProposal, [&](tesseract::TessBaseAPI& api, const Rect& r) {
            auto line = readLine(api, grey, r, 36, options_.proposal_min_confidence, tesseract::PSM_SINGLE_LINE, true);
            if (!line) line = readLine(api, grey, r, 36, options_.proposal_min_confidence, tesseract::PSM_SPARSE_TEXT, true);
            return line;
        }, result);
    const size_t page_lines = result.lines.size();
    // What the last page's proposals read where their pixels did not change (boxes in `grey`).
    std::vector<Rect> kept;
    if (changed)
        for (const OcrLine& l : last_.proposals)
            if (samePixels(grey, last_.grey, lineCut(grey, l.box))) {
                kept.push_back(l.box);
                result.lines.push_back(moved(l, offset.x, offset.y));
            }
    for (auto& l : read) {
        if (!l || overlapsAny(l->box, kept)) continue;
        // The same text the page pass read there already: nothing new.
        Rect at{l->box.x + offset.x, l->box.y + offset.y, l->box.w, l->box.h};
        bool again = false;
        for (size_t i = 0; i < page_lines && !again; ++i)
            again = result.lines[i].text == l->text && result.lines[i].box.iou(at) > 0.3;
        if (again) continue;
        result.lines.push_back(moved(std::move(*l), offset.x, offset.y));
    }
}

std::vector<std::optional<OcrLine>> OcrEngine::readPatches(
    const cv::Mat& grey, const std::vector<Rect>& boxes, uint64_t how,
    const std::function<std::optional<OcrLine>(tesseract::TessBaseAPI&, const Rect&)>& read, OcrResult& result) {
    std::vector<std::optional<OcrLine>> out(boxes.size());
    std::vector<uint64_t> keys(boxes.size());
    std::vector<size_t> to_read;
    for (size_t i = 0; i < boxes.size(); ++i) {
        keys[i] = patchKey(grey, boxes[i], how);
        Rect c = lineCut(grey, boxes[i]);
        if (line_cache_.find(keys[i], &out[i])) {
            if (out[i]) out[i] = moved(std::move(*out[i]), c.x, c.y);
            ++result.lines_reused;
        } else {
            to_read.push_back(i);
        }
    }
    result.lines_read += int(to_read.size());
    onWorkers(workers_, to_read.size(), [&](tesseract::TessBaseAPI& api, size_t k) {
        size_t i = to_read[k];
        out[i] = read(api, boxes[i]);
        Rect c = lineCut(grey, boxes[i]);
        line_cache_.put(keys[i], out[i] ? std::optional<OcrLine>(moved(*out[i], -c.x, -c.y)) : std::nullopt);
    });
    return out;
}

void OcrEngine::readLines(const cv::Mat& grey, const std::vector<Rect>& lines, Point offset, OcrResult& result) {
    double line_height = options_.line_height;
    if (line_height <= 0) {
        line_height = 36;
        for (const auto& lang : splitLangs(langs_))
            if (lang.rfind("chi_", 0) == 0 || lang.rfind("jpn", 0) == 0 || lang.rfind("kor", 0) == 0) line_height = 24;
    }
    auto read = readPatches(grey, lines, kReadPageLine, [&](tesseract::TessBaseAPI& api, const Rect& r) {
        return readLine(api, grey, r, line_height, 0.0, tesseract::PSM_SINGLE_LINE, false);
    }, result);
    for (auto& l : read)
        if (l) result.lines.push_back(moved(std::move(*l), offset.x, offset.y));
}

std::optional<std::vector<Rect>> OcrEngine::changedSinceLast(const cv::Mat& grey, const Rect& area) const {
    if (!(last_.area == area && last_.grey.size() == grey.size())) return std::nullopt;
    std::vector<Rect> seen = last_.lines;
    for (const OcrLine& l : last_.proposals) seen.push_back(l.box);
    const int margin = int(std::ceil(std::max(last_.text_height, 10.0)));
    std::vector<Rect> changed = changedRegions(grey, last_.grey, seen, margin);
    long changed_area = 0;
    for (const Rect& c : changed) changed_area += c.area();
    // Most of the frame changed (a new page): laid out whole, in bands on all the threads.
    if (changed_area * 2 > long(grey.cols) * grey.rows) return std::nullopt;
    return changed;
}

std::vector<Rect> OcrEngine::findLines(const cv::Mat& grey, double f, const std::optional<std::vector<Rect>>& changed,
                                       OcrResult& result) {
    const int ppi = int(std::lround(96 * f));
    // Inverted where dark over the whole image, so that a region reads as it does in the whole.
    const cv::Mat light = darkBackgroundInverted(grey, result.text_height);
    // Images to lay out (enlarged by f), each with its place in `grey`, and the rows of it
    // whose lines it owns.
    struct Job {
        cv::Mat big;
        Point at;
        Rect roi;
        int own0, own1;
    };
    std::vector<Job> jobs;
    std::vector<Rect> lines;
    std::vector<Rect> kept;  // the last page's lines whose pixels did not change
    if (changed) {
        // Each region laid out alone. (Its layout can differ from the whole page's, which sees
        // more around it: a line whose own pixels did not change is kept as it was, and what the
        // region's layout finds over it is dropped.)
        long changed_area = 0;
        for (const Rect& l : last_.lines)
            if (samePixels(grey, last_.grey, lineCut(grey, l))) kept.push_back(l);
        lines = kept;
        for (const Rect& c : *changed) {
            cv::Mat big = enlarge(light(cv::Rect(c.x, c.y, c.w, c.h)), f);
            jobs.push_back({big, Point{c.x, c.y}, Rect{0, 0, big.cols, big.rows}, 0, big.rows});
            changed_area += c.area();
        }
        result.laid_out = double(changed_area) / (double(grey.cols) * grey.rows);
    } else {
        // Bands: as many as workers (a multiple of it for tall images: ~1500 rows each, in
        // enlarged pixels), none under 400 rows, cut at rows without text, overlapping so
        // that a line cut by one band is whole in the other.
        cv::Mat big = enlarge(light, f);
        int nworkers = int(workers_.size());
        int per_worker = std::max(1, int(std::lround(big.rows / (1500.0 * nworkers))));
        int nbands = std::clamp(big.rows / 400, 1, nworkers * per_worker);
        std::vector<int> cuts = bandCuts(big, nbands);
        int overlap = int(std::ceil(3 * std::max(result.text_height, 10.0) * f));
        for (size_t k = 0; k + 1 < cuts.size(); ++k) {
            int y0 = std::max(0, cuts[k] - overlap), y1 = std::min(big.rows, cuts[k + 1] + overlap);
            jobs.push_back({big, Point{0, 0}, Rect{0, y0, big.cols, y1 - y0}, cuts[k], cuts[k + 1]});
        }
        result.laid_out = 1;
    }
    std::vector<std::vector<Rect>> found(jobs.size());
    onWorkers(workers_, jobs.size(), [&](tesseract::TessBaseAPI& api, size_t j) {
        found[j] = layoutLines(api, jobs[j].big, jobs[j].roi, jobs[j].own0, jobs[j].own1, ppi);
    });
    for (size_t j = 0; j < jobs.size(); ++j)
        for (const Rect& r : found[j]) {
            Rect g = unscale(r, f, jobs[j].at).intersect(Rect{0, 0, grey.cols, grey.rows});
            if (g.empty()) continue;
            if (changed && overlapsAny(g, kept)) continue;
            lines.push_back(g);
        }
    return lines;
}

OcrResult OcrEngine::recognize(const cv::Mat& bgr, std::optional<Rect> region) {
    auto t0 = std::chrono::steady_clock::now();
    OcrResult result;
    result.langs = langs_;
    Rect area{0, 0, bgr.cols, bgr.rows};
    if (region) area = area.intersect(*region);
    if (bgr.empty() || area.empty()) return result;
    cv::Mat grey = toGrey(bgr(cv::Rect(area.x, area.y, area.w, area.h)));
    Point offset{area.x, area.y};

    std::lock_guard lock(mutex_);
    const int psm = options_.page_seg_mode;
    const bool page = !(psm == 6 || psm == 7 || psm == 8 || psm == 10 || psm == 13);
    // A page that differs from the last one read in a few places keeps its text height and
    // scale (the text height is estimated over the whole image: that alone would cost more
    // than reading the changes).
    std::optional<std::vector<Rect>> changed = page ? changedSinceLast(grey, area) : std::nullopt;
    double f = options_.upscale;
    if (changed) {
        result.text_height = last_.text_height;
        f = last_.upscale;
    } else {
        result.text_height = estimateTextHeight(grey);
        if (f <= 0) {
            f = result.text_height > 0 ? options_.target_text_height / result.text_height : 1.0;
            f = std::clamp(f, 1.0, options_.max_upscale);
            // At most ~40 megapixels to lay out (a 4K frame of tiny text): time and memory.
            f = std::max(1.0, std::min(f, std::sqrt(40e6 / (double(grey.cols) * grey.rows))));
            f = std::round(f * 4) / 4;  // quarter steps: stable factors for similar frames
        }
    }
    result.upscale = f;

    if (!page) {
        // The whole image is one block, line, word or character: read as it is.
        cv::Mat big = enlarge(grey, f);
        Band whole{0, big.rows, 0, big.rows};
        std::vector<OcrLine> lines;
        onWorkers(workers_, 1, [&](tesseract::TessBaseAPI& api, size_t) {
            lines = readBand(api, big, whole, int(std::lround(96 * f)));
        });
        for (auto& line : lines) {
            line.box = unscale(line.box, f, offset);
            for (auto& w : line.words) w.box = unscale(w.box, f, offset);
            result.lines.push_back(std::move(line));
        }
        result.lines_read = 1;
        result.laid_out = 1;
        if (options_.proposals) readProposals(grey, offset, std::nullopt, result);
    } else {
        std::vector<Rect> lines = findLines(grey, f, changed, result);
        readLines(grey, lines, offset, result);
        const size_t page_lines = result.lines.size();
        if (options_.proposals) readProposals(grey, offset, changed, result);
        last_.area = area;
        last_.upscale = f;
        last_.text_height = result.text_height;
        last_.grey = grey.clone();
        last_.lines = std::move(lines);
        last_.proposals.clear();
        for (size_t i = page_lines; i < result.lines.size(); ++i)
            last_.proposals.push_back(moved(result.lines[i], -offset.x, -offset.y));
    }
    std::stable_sort(result.lines.begin(), result.lines.end(), [](const OcrLine& a, const OcrLine& b) {
        return a.box.y + a.box.h / 2 < b.box.y + b.box.h / 2;
    });
    result.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    return result;
}

}  // namespace eacu
