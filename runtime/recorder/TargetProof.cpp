#include "recorder/TargetProof.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <vector>

#include <opencv2/imgcodecs.hpp>

#include "base/Clock.h"
#include "step/A11yTarget.h"
#include "step/RelativeTarget.h"
#include "vision/PreparedFrame.h"
#include "vision/Template.h"
#include "vision/TemplateMatcher.h"
#include "vision/ocr/OcrCache.h"
#include "vision/ocr/OcrEngine.h"
#include "vision/ocr/TextFinder.h"

namespace eacu {

namespace {

constexpr double kTextSimilarity = 0.8;  // TargetSpec's default text threshold
constexpr double kAlikeScore = 0.9;      // another place scoring this is a copy of the crop
constexpr int kBand[2] = {640, 64};      // logical pixels read around a point for its phrase

std::string fmt2(double v) {
    char b[32];
    std::snprintf(b, sizeof b, "%.2f", v);
    return b;
}

std::string fmt3(double v) {
    char b[32];
    std::snprintf(b, sizeof b, "%.3f", v);
    return b;
}

std::string boxText(const Rect& r) {
    return "(" + std::to_string(r.x) + "," + std::to_string(r.y) + " " + std::to_string(r.w) + "x" + std::to_string(r.h) + ")";
}

bool isField(const A11yElement& e) {
    return e.editable_text || e.role == "text" || e.role == "entry" || e.role == "password text" || e.role == "spin button";
}

// The smallest interactive element on screen whose bounds hold `p`.
const A11yElement* elementAt(const std::vector<const A11yElement*>& all, Point p) {
    const A11yElement* best = nullptr;
    for (const A11yElement* e : all) {
        if (!isInteractive(*e) || e->bounds.empty() || !e->has("showing") || !e->bounds.contains(p)) continue;
        if (!best || e->bounds.area() < best->bounds.area()) best = e;
    }
    return best;
}

std::optional<ProvenTarget> proveA11y(const A11yElement& tree, Point p, std::string& tried) {
    std::vector<const A11yElement*> all = flatten(tree);
    const A11yElement* e = elementAt(all, p);
    if (!e) {
        tried += "no interactive element of the accessibility tree under the point; ";
        return std::nullopt;
    }
    ProvenTarget t;
    t.box = e->bounds;
    if (!e->name.empty()) {
        A11yQuery q;
        q.role = e->role;
        q.name = e->name;
        A11yFound f = findElement(tree, q);
        if (f.element && f.element->path == e->path && f.how == "name") {
            t.kind = ProvenTarget::Kind::A11y;
            t.lua = "{ role = " + luaQuote(e->role) + ", name = " + luaQuote(e->name) + " }";
            t.why = "the " + e->role + " " + luaQuote(e->name) + " of the accessibility tree is under the point, the first the tree gives for that role and name";
            return t;
        }
        tried += "the " + e->role + " " + luaQuote(e->name) + " under the point is not the first element of that role and name; ";
        return std::nullopt;
    }
    if (!isField(*e)) {
        tried += "the " + e->role + " under the point has no name; ";
        return std::nullopt;
    }
    std::string label = labelOf(*e, all);
    if (label.empty()) {
        tried += "the unnamed " + e->role + " under the point has no label beside it; ";
        return std::nullopt;
    }
    A11yQuery lq;
    lq.role = "label";
    lq.name = label;
    A11yFound lf = findElement(tree, lq);
    if (!lf.element || lf.how != "name") {
        tried += "the label " + luaQuote(label) + " is not found by its name; ";
        return std::nullopt;
    }
    std::vector<RelCandidate> cands;
    int ours = -1;
    for (const A11yElement* c : all) {
        if (!isInteractive(*c) || c->bounds.empty() || !c->has("showing")) continue;
        if (c->path == e->path) ours = int(cands.size());
        cands.push_back({c->bounds, isField(*c) ? "field" : "other", c->name, "a11y"});
    }
    RelQuery rq;
    rq.relation = Relation::RightOf;
    rq.kind = "field";
    RelPick pick = pickRelative(lf.element->bounds, cands, rq);
    if (pick.chosen < 0 || pick.chosen != ours) {
        tried += "the field right of the label " + luaQuote(label) + " is not the one under the point; ";
        return std::nullopt;
    }
    t.kind = ProvenTarget::Kind::Relative;
    t.lua = "{ right_of = { role = \"label\", name = " + luaQuote(label) + " }, kind = \"field\" }";
    t.why = "the unnamed " + e->role + " under the point is the field right of the label " + luaQuote(label) + " in the accessibility tree";
    return t;
}

// The phrases OCR reads at `p`, the likeliest label first: the short line holding it (up to 4
// words, 30 bytes: a button's label), then its word; each with its box.
std::vector<std::pair<std::string, Rect>> phrasesAt(const OcrResult& ocr, Point p) {
    for (const OcrLine& line : ocr.lines) {
        for (const OcrWord& w : line.words) {
            if (!w.box.grown(2).contains(p)) continue;
            std::vector<std::pair<std::string, Rect>> out;
            if (line.words.size() > 1 && line.words.size() <= 4 && line.text.size() <= 30) out.emplace_back(line.text, line.box);
            out.emplace_back(w.text, w.box);
            return out;
        }
    }
    return {};
}

// Whether a tap at the centre of `box` (where a replay taps a phrase found there) lands where
// the person pressed: within a quarter of its width and half its height of `p` (6 px at least).
bool centreNear(const Rect& box, Point p) {
    Point c = box.center();
    return std::abs(c.x - p.x) <= std::max(6, box.w / 4) && std::abs(c.y - p.y) <= std::max(6, box.h / 2);
}

std::optional<ProvenTarget> provePhrase(const Frame& frame, Point p, std::string phrase, std::string& tried) {
    while (!phrase.empty() && phrase.back() == ' ') phrase.pop_back();
    std::u32string folded;
    try {
        folded = foldText(phrase);
    } catch (const std::exception&) {
        folded.clear();
    }
    std::string langs = OcrEngine::langsFor(phrase);
    if (folded.size() < 2 && !(langs != "eng" && !folded.empty())) {
        tried += "OCR reads only " + luaQuote(phrase) + " at the point (too short to be sure of); ";
        return std::nullopt;
    }
    // Proven the way a replay finds it: read with the languages the phrase asks for.
    std::shared_ptr<const OcrResult> ocr = OcrCache::shared().get(frame.bgr, std::nullopt, langs);
    TextFindOptions any;
    any.threshold = 0;
    any.max_results = 3;
    std::vector<TextMatch> hits = findText(*ocr, phrase, any);
    if (hits.empty() || hits[0].score < kTextSimilarity || !hits[0].box.grown(2).contains(p)) {
        tried += "the text " + luaQuote(phrase) + " read at the point is not what a search for it finds first; ";
        return std::nullopt;
    }
    if (!centreNear(hits[0].box, p)) {
        tried += "the centre of the text " + luaQuote(phrase) + " is too far from the point; ";
        return std::nullopt;
    }
    if (hits.size() > 1 && hits[1].score >= kTextSimilarity) {
        tried += "the text " + luaQuote(phrase) + " is read elsewhere too, at " + boxText(hits[1].box) + "; ";
        return std::nullopt;
    }
    ProvenTarget t;
    t.kind = ProvenTarget::Kind::Text;
    t.box = hits[0].box;
    t.lua = luaQuote("text:" + phrase);
    t.why = "OCR reads " + luaQuote(phrase) + " here (similarity " + fmt2(hits[0].score) + ") and nowhere else on the screen" +
            (hits.size() > 1 ? " (next best " + fmt2(hits[1].score) + ")" : "");
    return t;
}

std::optional<ProvenTarget> proveText(const Frame& frame, Point p, std::shared_ptr<const OcrResult> band,
                                      std::string& tried) {
    // What is written at the point is read from a band around it (kBand logical pixels), not
    // from the whole frame: that was most of the time a proof took; the recorder reads it
    // ahead while the person acts (`band`). Only a phrase worth proving costs the whole
    // frame, read as a replay reads it (provePhrase).
    std::shared_ptr<const OcrResult> seen =
        band ? band : OcrCache::shared().get(frame.bgr, phraseBand(frame, p), kPhraseBandLangs);
    std::vector<std::pair<std::string, Rect>> phrases = phrasesAt(*seen, p);
    if (phrases.empty()) {
        tried += "OCR reads no word at the point; ";
        return std::nullopt;
    }
    for (const auto& [phrase, box] : phrases)
        if (auto t = provePhrase(frame, p, phrase, tried)) return t;
    return std::nullopt;
}

std::optional<ProvenTarget> proveImage(const Frame& frame, Point p, const Locator& locator, const ProofOptions& o,
                                       std::string& tried) {
    // Larger crops carry more context; where the context repeats (a keypad's grid) a smaller
    // one, mostly the element's own mark, is the one that differs.
    static const int sizes[][2] = {{40, 28}, {56, 36}, {80, 48}, {112, 64}, {160, 96}, {28, 20}, {20, 14}};
    Rect screen{0, 0, frame.width(), frame.height()};
    PreparedFrame prepared(frame.bgr);
    std::string last;
    for (const auto& s : sizes) {
        int w = int(s[0] * frame.scale), h = int(s[1] * frame.scale);
        Rect box = Rect{p.x - w / 2, p.y - h / 2, w, h}.intersect(screen);
        if (box.w < 8 || box.h < 8) continue;
        Template tpl;
        tpl.name = o.image_stem;
        tpl.bgr = frame.bgr(cv::Rect(box.x, box.y, box.w, box.h)).clone();
        tpl.scale = frame.scale;
        // The cheap pass first: one correlation of the crop over the frame at its own size
        // says whether anything else looks nearly the same (a look-alike scoring clearly less,
        // e.g. a key with another digit, is not taken by a replay's locate). Only a crop with
        // no look-alike costs the full locate a replay makes, which must find it at its place.
        double next = 0;
        int alike = 0;
        for (const Match& m : TemplateMatcher().findAll(frame.bgr, tpl)) {
            if (m.box.iou(box) >= 0.5) continue;
            next = std::max(next, m.score);
            if (m.score >= kAlikeScore) ++alike;
        }
        if (alike > 0) {
            if (last.empty())
                last = "a " + std::to_string(box.w) + "x" + std::to_string(box.h) + " crop is found " + std::to_string(alike + 1) +
                       " times (score " + fmt3(next) + " elsewhere)";
            continue;
        }
        LocateHints hints;
        hints.expected_scale = 1.0;
        LocateReport r = locator.locate(prepared, {tpl}, hints);
        if (!r.match.found || r.match.box.iou(box) < 0.8) {
            if (last.empty())
                last = "a " + std::to_string(box.w) + "x" + std::to_string(box.h) + " crop is found at " + boxText(r.match.box) +
                       " instead of its place";
            continue;
        }
        ProvenTarget t;
        t.kind = ProvenTarget::Kind::Image;
        t.box = box;
        t.crop = tpl.bgr;
        t.scale = frame.scale;
        t.image_file = o.image_stem + ".png";
        t.lua = luaQuote(o.image_ref + "/" + t.image_file);
        t.why = "a " + std::to_string(box.w) + "x" + std::to_string(box.h) + " image around the point (scale " + fmt2(frame.scale) +
                ") is found only there on the screen (score " + fmt3(r.match.score) +
                (next > 0 ? ", next best " + fmt3(next) : "") + ")";
        return t;
    }
    tried += (last.empty() ? std::string("no image crop fits") : last + ", and no other size is unique either") + "; ";
    return std::nullopt;
}

uint32_t crc32Of(const unsigned char* data, size_t n, uint32_t crc = 0) {
    crc = ~crc;
    for (size_t i = 0; i < n; ++i) {
        crc ^= data[i];
        for (int k = 0; k < 8; ++k) crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
    }
    return ~crc;
}

void put32(std::vector<unsigned char>& v, uint32_t x) {
    for (int s = 24; s >= 0; s -= 8) v.push_back((unsigned char)(x >> s));
}

// A PNG of `bgr` with a pHYs chunk of `dpi` dots per inch.
std::vector<unsigned char> pngWithDpi(const cv::Mat& bgr, double dpi) {
    std::vector<unsigned char> png;
    if (!cv::imencode(".png", bgr, png)) throw std::runtime_error("cannot encode a PNG");
    std::vector<unsigned char> chunk;
    put32(chunk, 9);
    std::vector<unsigned char> body = {'p', 'H', 'Y', 's'};
    uint32_t ppm = uint32_t(dpi / 0.0254 + 0.5);
    put32(body, ppm);
    put32(body, ppm);
    body.push_back(1);  // unit: metre
    chunk.insert(chunk.end(), body.begin(), body.end());
    put32(chunk, crc32Of(body.data(), body.size()));
    const size_t after_ihdr = 8 + 12 + 13;  // signature, IHDR's length, type, 13 bytes, CRC
    png.insert(png.begin() + long(after_ihdr), chunk.begin(), chunk.end());
    return png;
}

}  // namespace

Rect phraseBand(const Frame& frame, Point p) {
    const double k = frame.scale > 0 ? frame.scale : 1.0;
    const int bw = int(kBand[0] * k), bh = int(kBand[1] * k);
    return Rect{p.x - bw / 2, p.y - bh / 2, bw, bh}.intersect({0, 0, frame.width(), frame.height()});
}

std::string luaQuote(const std::string& s) {
    std::string out = "\"";
    for (unsigned char c : s) {
        switch (c) {
        case '\\': out += "\\\\"; break;
        case '"': out += "\\\""; break;
        case '\n': out += "\\n"; break;
        case '\r': out += "\\r"; break;
        case '\t': out += "\\t"; break;
        default:
            if (c < 0x20 || c == 0x7f) {
                char b[8];
                std::snprintf(b, sizeof b, "\\%03d", c);
                out += b;
            } else {
                out += char(c);
            }
        }
    }
    return out + "\"";
}

void writeScaledPng(const std::string& path, const cv::Mat& bgr, double scale) {
    // pngScale reads multiples of 72 dpi as macOS writes them, others against 96 dpi: pick the
    // resolution it reads back as `scale`.
    for (double dpi : {96.0 * scale, 72.0 * scale}) {
        std::vector<unsigned char> png = pngWithDpi(bgr, dpi);
        {
            std::ofstream out(path, std::ios::binary | std::ios::trunc);
            out.write(reinterpret_cast<const char*>(png.data()), std::streamsize(png.size()));
            if (!out) throw std::runtime_error("cannot write \"" + path + "\"");
        }
        auto back = pngScale(path);
        if (back && std::abs(*back - scale) < 0.01) return;
    }
}

ProvenTarget proveTarget(const Frame& frame, const A11yElement* tree, Point p, const Locator& locator, const ProofOptions& o) {
    double t0 = monotonicSeconds();
    std::string tried;
    std::optional<ProvenTarget> t;
    if (tree) t = proveA11y(*tree, p, tried);
    else tried += "no accessibility tree; ";
    if (!t && o.text) t = proveText(frame, p, o.band, tried);
    if (!t && o.image) t = proveImage(frame, p, locator, o, tried);
    if (!t) {
        t = ProvenTarget{};
        t->kind = ProvenTarget::Kind::Point;
        t->box = {p.x, p.y, 1, 1};
        t->lua = "{ x = " + std::to_string(p.x) + ", y = " + std::to_string(p.y) + " }";
        if (tried.size() >= 2) tried.resize(tried.size() - 2);
        t->why = "no target could be proven, so screen coordinates: " + tried;
    }
    t->ms = (monotonicSeconds() - t0) * 1000.0;
    return *t;
}

}  // namespace eacu
