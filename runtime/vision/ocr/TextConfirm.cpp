#include "vision/ocr/TextConfirm.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <mutex>
#include <vector>

#include <opencv2/imgproc.hpp>

#include "vision/ocr/OcrEngine.h"
#include "vision/ocr/TextFinder.h"

namespace eacu {
namespace {

struct Reading {
    std::string text;
    float confidence = 0;  // the lowest word confidence, 0 when nothing was read
    std::string langs;
};

// Tesseract's binarisations: Sauvola's adaptive threshold (the OcrEngine default) and Otsu's
// global one (Tesseract's own default), which keeps a word whole where a thin line crosses it.
enum class Binarisation { sauvola, otsu };

// The single-line engine for a language set and binarisation (images are enlarged here, so
// the engine's upscale is 1).
OcrEngine& lineEngine(const std::string& langs, Binarisation b) {
    OcrOptions o;
    o.threads = 1;
    o.upscale = 1;
    o.page_seg_mode = 7;
    o.proposals = false;  // one line already: no text proposals inside it
    o.variables = {{"thresholding_method", b == Binarisation::otsu ? "0" : "2"}};
    return OcrEngine::shared(langs, b == Binarisation::otsu ? "line/otsu" : "line/sauvola", o);
}

// The background around `img`: the per-channel median of its outermost pixels. Text cut
// tightly touches the edges, and padding by replicating them would draw bars beside it (the
// left stroke of an "i" read as an "a").
cv::Scalar borderColour(const cv::Mat& img) {
    std::vector<std::vector<uchar>> ch(img.channels());
    auto take = [&](int y, int x) {
        const uchar* p = img.ptr<uchar>(y) + x * img.channels();
        for (int c = 0; c < img.channels(); ++c) ch[c].push_back(p[c]);
    };
    for (int x = 0; x < img.cols; ++x) take(0, x), take(img.rows - 1, x);
    for (int y = 1; y + 1 < img.rows; ++y) take(y, 0), take(y, img.cols - 1);
    cv::Scalar out;
    for (int c = 0; c < img.channels() && c < 4; ++c) {
        auto mid = ch[c].begin() + ch[c].size() / 2;
        std::nth_element(ch[c].begin(), mid, ch[c].end());
        out[c] = *mid;
    }
    return out;
}

// The words of `img`, read as one line, whose boxes overlap `keep` (pixels of img) by at
// least 30 % of the narrower width and half the lower height, in reading order; the image is
// first enlarged so that `keep` is `glyph_height` pixels high (at most 4x) and padded with
// its background colour.
Reading readLineWith(const cv::Mat& img, const std::string& langs, double glyph_height, const Rect& keep,
                     Binarisation binarisation) {
    const int pad = 10;
    double up = std::clamp(glyph_height / std::max(1, keep.h), 1.0, 4.0);
    cv::Mat big, padded;
    cv::resize(img, big, cv::Size(), up, up, cv::INTER_CUBIC);
    cv::copyMakeBorder(big, padded, pad, pad, pad, pad, cv::BORDER_CONSTANT, borderColour(img));
    OcrResult r = lineEngine(langs, binarisation).recognize(padded);
    Reading out;
    out.langs = langs;
    out.confidence = 1;
    bool any = false;
    for (const OcrLine& line : r.lines)
        for (const OcrWord& w : line.words) {
            double x = (w.box.x - pad) / up, y = (w.box.y - pad) / up, ww = w.box.w / up, wh = w.box.h / up;
            double ox = std::min(x + ww, double(keep.x + keep.w)) - std::max(x, double(keep.x));
            double oy = std::min(y + wh, double(keep.y + keep.h)) - std::max(y, double(keep.y));
            if (ox < 0.3 * std::min(ww, double(keep.w)) || oy < 0.5 * std::min(wh, double(keep.h))) continue;
            if (foldText(w.text).empty()) continue;  // a stray mark read as punctuation
            if (any) out.text += ' ';
            out.text += w.text;
            out.confidence = std::min(out.confidence, w.confidence);
            any = true;
        }
    if (!any) out.confidence = 0;
    return out;
}

// The two ways a line is read: Sauvola at the options' glyph height, and Otsu at three
// quarters of it. A reading is trusted only as far as the two agree: a template whose two
// readings differ (a button's border read as letters) shows no legible words, and a match is
// vetoed only when both readings of the frame miss the template's words.
Reading readFirst(const cv::Mat& img, const std::string& langs, double glyph_height, const Rect& keep) {
    return readLineWith(img, langs, glyph_height, keep, Binarisation::sauvola);
}
Reading readSecond(const cv::Mat& img, const std::string& langs, double glyph_height, const Rect& keep) {
    return readLineWith(img, langs, 0.75 * glyph_height, keep, Binarisation::otsu);
}

// The template's reading, once per distinct image (kept for the life of the process);
// confidence 0 unless both readings are confident and spell the same words of two or more
// characters.
Reading templateReading(const Template& tpl, const TextConfirmOptions& o) {
    static std::mutex mutex;
    static std::map<std::string, Reading> cache;
    cv::Scalar sum = cv::sum(tpl.bgr);
    std::string key = tpl.name + "#" + std::to_string(tpl.bgr.cols) + "x" + std::to_string(tpl.bgr.rows) + "#" +
                      std::to_string(sum[0]) + "," + std::to_string(sum[1]) + "," + std::to_string(sum[2]) + "#" +
                      std::to_string(o.glyph_height);
    {
        std::lock_guard lock(mutex);
        auto it = cache.find(key);
        if (it != cache.end()) return it->second;
    }
    Rect all{0, 0, tpl.bgr.cols, tpl.bgr.rows};
    auto legible = [&](const std::string& langs) {
        Reading a = readFirst(tpl.bgr, langs, o.glyph_height, all);
        // One character is no word: OCR reads single glyphs into icons (a "2" in a logo).
        if (foldText(a.text).size() < 2) a.confidence = 0;
        if (a.confidence < o.min_confidence) return a;
        Reading b = readSecond(tpl.bgr, langs, o.glyph_height, all);
        if (b.confidence < o.min_confidence || textSimilarity(a.text, b.text) < o.min_similarity) a.confidence = 0;
        return a;
    };
    Reading r = legible("eng");
    if (r.confidence < o.min_confidence || OcrEngine::langsFor(r.text) != "eng") {
        Reading z = legible("eng+chi_sim");  // perhaps Chinese
        if (z.confidence > r.confidence) r = z;
    }
    std::lock_guard lock(mutex);
    cache[key] = r;
    return r;
}

}  // namespace

TextVerdict confirmText(const cv::Mat& frame_bgr, const Template& tpl, const Rect& box,
                        const TextConfirmOptions& options) {
    auto t0 = std::chrono::steady_clock::now();
    TextVerdict v;
    Reading t = templateReading(tpl, options);
    v.template_text = t.text;
    v.template_confidence = t.confidence;
    v.template_legible = t.confidence >= options.min_confidence;
    Rect frame{0, 0, frame_bgr.cols, frame_bgr.rows};
    Rect around = Rect{box.x - 4 * box.h, box.y - box.h / 3, box.w + 8 * box.h, box.h + 2 * (box.h / 3)}.intersect(frame);
    if (v.template_legible && !around.empty()) {
        cv::Mat img = frame_bgr(cv::Rect(around.x, around.y, around.w, around.h));
        Rect keep{box.x - around.x, box.y - around.y, box.w, box.h};
        size_t needle = foldText(t.text).size();
        Reading best;
        bool any_words = false;
        bool longer_without = true;  // every reading is a longer run of letters without the words
        for (int pass = 0; pass < 2 && !v.judged; ++pass) {
            Reading f = pass == 0 ? readFirst(img, t.langs, options.glyph_height, keep)
                                  : readSecond(img, t.langs, options.glyph_height, keep);
            size_t hay = foldText(f.text).size();
            any_words = any_words || hay > 0;
            double sim = hay ? containmentSimilarity(t.text, f.text) : 0.0;
            double coverage = hay ? std::min(1.0, double(needle) / double(hay)) : 0.0;
            longer_without = longer_without && coverage < options.min_coverage && sim < options.min_similarity;
            if (sim >= options.min_similarity && coverage >= options.min_coverage) {  // the words are there
                v.judged = true;
                v.agrees = true;
                v.similarity = sim;
                v.coverage = coverage;
                v.frame_text = f.text;
                v.frame_confidence = f.confidence;
            } else if (pass == 0 || f.confidence > best.confidence) {
                best = f;
                v.similarity = sim;
                v.coverage = coverage;
            }
        }
        if (!v.judged) {
            v.frame_text = best.text;
            v.frame_confidence = best.confidence;
            // Both readings miss the template's words (or find them only inside longer words)
            // and one of them is confident; or both read, however unsurely, a run of letters
            // much longer than the words (coverage below min_coverage) without them; or no
            // words at all are seen at a size text is read at.
            if (best.confidence >= options.min_confidence || longer_without ||
                (!any_words && box.h >= options.min_text_height)) {
                v.judged = true;
                v.agrees = false;
            }
        }
    }
    v.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    return v;
}

}  // namespace eacu
