// OcrEngine::recognize: a frame read as lines (laid out in bands or where it changed, each line
// read alone on the workers or taken from the line cache) and text proposals.
#include "vision/ocr/OcrEngineImpl.h"

#include "vision/ocr/ChangedRegions.h"
#include "vision/ocr/OcrCache.h"
#include "vision/ocr/TextProposals.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <functional>
#include <mutex>
#include <stdexcept>
#include <thread>

#include <dlfcn.h>

namespace eacu {

using ocr_detail::Band;
using ocr_detail::bandCuts;
using ocr_detail::darkBackgroundInverted;
using ocr_detail::enlarge;
using ocr_detail::layoutLines;
using ocr_detail::readBand;
using ocr_detail::readLine;
using ocr_detail::splitLangs;
using ocr_detail::toGrey;
using ocr_detail::unscale;

namespace {

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

}  // namespace

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
