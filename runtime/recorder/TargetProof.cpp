#include "recorder/TargetProof.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include <opencv2/imgproc.hpp>

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

// Whether a tap at the centre of `box` (where a replay taps a phrase or an element found there)
// lands where the person pressed: within a quarter of its width and half its height of `p`
// (6 px at least).
bool centreNear(const Rect& box, Point p) {
    Point c = box.center();
    return std::abs(c.x - p.x) <= std::max(6, box.w / 4) && std::abs(c.y - p.y) <= std::max(6, box.h / 2);
}

// Whether an element does one thing wherever it is pressed (a button, a box, a row, a field):
// the interactive roles but a slider's and a spin button's. Elsewhere (a slider, a canvas, an
// element interactive only by a handler of its own) where on it matters.
bool actsAsOne(const A11yElement& e) {
    return e.editable_text || (interactiveRole(e.role) && e.role != "slider" && e.role != "spin button");
}

// The field `e` of `tree` (named, or with an id) by what it holds (its tree value `e.value`),
// for a verify of a filled field: kept when findElement finds that very element by its role,
// name (or id) and value.
std::optional<ProvenTarget> proveA11yValue(const A11yElement& tree, const A11yElement& e, std::string& tried) {
    A11yQuery q;
    q.role = e.role;
    if (!e.name.empty()) q.name = e.name;
    else if (!e.id.empty()) q.id = e.id.find(":id/") == std::string::npos ? e.id : e.id.substr(e.id.find(":id/") + 4);
    else {
        tried += "the field under the point has neither a name nor an id to find it by with its value; ";
        return std::nullopt;
    }
    q.value = e.value;
    A11yFound f = findElement(tree, q);
    if (!f.element || f.element->path != e.path || f.how != "name") {
        tried += "the " + e.role + " holding " + luaQuote(e.value) + " under the point is not the first element of its " +
                 (q.name ? "role, name" : "role, id") + " and value; ";
        return std::nullopt;
    }
    ProvenTarget t;
    t.kind = ProvenTarget::Kind::A11y;
    t.box = e.bounds;
    t.lua = "{ role = " + luaQuote(e.role) + ", " + (q.name ? "name = " + luaQuote(*q.name) : "resource_id = " + luaQuote(*q.id)) +
            ", value = " + luaQuote(e.value) + " }";
    t.why = "the " + e.role + " " + luaQuote(q.name ? *q.name : *q.id) + " of the accessibility tree is under the point and holds " +
            luaQuote(e.value) + " (the tree's value), the first the tree gives for that role, " + (q.name ? "name" : "id") +
            " and value";
    return t;
}

std::optional<ProvenTarget> proveA11y(const A11yElement& tree, Point p, std::string& tried) {
    std::vector<const A11yElement*> all = flatten(tree);
    const A11yElement* e = elementAt(all, p);
    if (!e) {
        tried += "no interactive element of the accessibility tree under the point; ";
        return std::nullopt;
    }
    // A replay taps the element's centre: the person's press unless where on it matters.
    if (!actsAsOne(*e) && !centreNear(e->bounds, p)) {
        tried += "the " + e->role + " under the point is pressed at " + std::to_string(p.x) + "," + std::to_string(p.y) +
                 ", not near its centre, where a replay taps it, and where on it matters; ";
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
    // An unnamed element with the toolkit's own identifier (Android's resource-id): by it,
    // when the tree gives that very element first for it.
    if (!e->id.empty()) {
        const size_t at = e->id.find(":id/");
        const std::string id = at == std::string::npos ? e->id : e->id.substr(at + 4);
        A11yQuery q;
        q.id = id;
        A11yFound f = findElement(tree, q);
        if (f.element && f.element->path == e->path) {
            t.kind = ProvenTarget::Kind::A11y;
            t.lua = "{ resource_id = " + luaQuote(id) + " }";
            t.why = "the unnamed " + e->role + " under the point has the resource-id " + luaQuote(id) +
                    ", the first element the tree gives for it";
            return t;
        }
        tried += "the resource-id " + luaQuote(id) + " of the " + e->role + " under the point is not the first of its kind; ";
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

// A phrase OCR reads at a point: its text, box and the lowest confidence of its words.
struct Phrase {
    std::string text;
    Rect box;
    float confidence = 0;
};

// A word read with less confidence than this (Tesseract's, 0..1) is not a reading to replay
// (a check box read as a glyph, a small CJK glyph read as a similar one): the confidence at
// which the OCR engine itself takes a word as read (OcrOptions::proposal_covered_confidence).
constexpr float kMinReadConfidence = 0.8f;

// Words `a`..`b` of `line` as one phrase: their text joined by spaces, their box, the lowest
// confidence.
Phrase wordsOf(const OcrLine& line, size_t a, size_t b) {
    Phrase ph{"", line.words[a].box, 1};
    for (size_t i = a; i <= b; ++i) {
        ph.text += (i > a ? " " : "") + line.words[i].text;
        ph.box = ph.box.united(line.words[i].box);
        ph.confidence = std::min(ph.confidence, line.words[i].confidence);
    }
    return ph;
}

// The phrases OCR reads at `p`, the likeliest label first: the short line holding it (up to 4
// words, 30 bytes: a button's label); the confident words round the point's word (the line
// without a neighbour read as noise, such as a check box's square read as a glyph); the word.
std::vector<Phrase> phrasesAt(const OcrResult& ocr, Point p) {
    for (const OcrLine& line : ocr.lines) {
        for (size_t k = 0; k < line.words.size(); ++k) {
            if (!line.words[k].box.grown(2).contains(p)) continue;
            std::vector<Phrase> out;
            const size_t n = line.words.size();
            const bool short_line = n > 1 && n <= 4 && line.text.size() <= 30;
            if (short_line) out.push_back(wordsOf(line, 0, n - 1));
            size_t a = k, b = k;
            while (a > 0 && line.words[a - 1].confidence >= kMinReadConfidence) --a;
            while (b + 1 < n && line.words[b + 1].confidence >= kMinReadConfidence) ++b;
            if (short_line && b > a && b - a + 1 < n) out.push_back(wordsOf(line, a, b));
            out.push_back(wordsOf(line, k, k));
            return out;
        }
    }
    return {};
}

// Why `ph` is not a reading of the element's label ("" when it is): with `label` (the name of
// the tree's element under the point), the phrase must read as it (similarity >= 0.8); without
// one, every word must be read with confidence >= kMinReadConfidence, and a phrase in Latin
// letters must not stand where Chinese is read (its box read with chi_sim alone shows CJK
// characters as confidently): the script that fits the place.
std::string readingFault(const Frame& frame, const Phrase& ph, const std::string& label) {
    if (!label.empty()) {
        double sim = 0;
        try {
            sim = textSimilarity(ph.text, label);
        } catch (const std::exception&) {
        }
        if (sim >= kTextSimilarity) return "";
        return "OCR reads " + luaQuote(ph.text) + " where the element's name is " + luaQuote(label) + " (similarity " +
               fmt2(sim) + ")";
    }
    if (ph.confidence < kMinReadConfidence)
        return "OCR reads " + luaQuote(ph.text) + " with confidence " + fmt2(ph.confidence) + " only (noise, not a label)";
    if (OcrEngine::langsFor(ph.text) == "eng") {
        Rect r = ph.box.grown(std::max(2, ph.box.h / 2)).intersect({0, 0, frame.width(), frame.height()});
        std::shared_ptr<const OcrResult> cjk = OcrCache::shared().get(frame.bgr, r, "chi_sim");
        std::string text;
        float sum = 0;
        int n = 0;
        for (const OcrLine& l : cjk->lines)
            for (const OcrWord& w : l.words) {
                text += w.text;
                sum += w.confidence;
                ++n;
            }
        if (n > 0 && OcrEngine::langsFor(text) != "eng" && sum / n >= std::max(kMinReadConfidence, ph.confidence))
            return "OCR reads " + luaQuote(ph.text) + " where Chinese reads better (" + luaQuote(text) + ", confidence " +
                   fmt2(sum / n) + ")";
    }
    return "";
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
                                      const std::string& label, const std::string& hint, std::string& tried) {
    // What is written at the point is read from a band around it (kBand logical pixels), not
    // from the whole frame: that was most of the time a proof took; the recorder reads it
    // ahead while the person acts (`band`). Only a phrase worth proving costs the whole
    // frame, read as a replay reads it (provePhrase).
    std::shared_ptr<const OcrResult> seen =
        band ? band : OcrCache::shared().get(frame.bgr, phraseBand(frame, p), kPhraseBandLangs);
    std::vector<Phrase> phrases = phrasesAt(*seen, p);
    if (phrases.empty()) {
        tried += "OCR reads no word at the point; ";
        return std::nullopt;
    }
    for (const Phrase& ph : phrases) {
        // A name from a tree that may be another screen's is the label only where it reads so.
        std::string name = label;
        if (name.empty() && !hint.empty() && readingFault(frame, ph, hint).empty()) name = hint;
        if (std::string fault = readingFault(frame, ph, name); !fault.empty()) {
            tried += fault + "; ";
            continue;
        }
        // A reading of a named element's label writes the name itself: "text:Press #8" (OCR's
        // misreading of 按, similar enough) would replay only while the same misreading
        // repeats; the name is found by a replay's reading at the same similarity either way.
        const bool named = !name.empty() && name != ph.text;
        if (auto t = provePhrase(frame, p, named ? name : ph.text, tried)) {
            if (named) t->why += " (the tree's name; OCR read " + luaQuote(ph.text) + ")";
            return t;
        }
    }
    return std::nullopt;
}

// One screen a crop is proven on: the frame before the action, or the one before the pointer
// set off towards it.
struct ProofLook {
    ProofLook(const Frame* f, const char* n) : frame(f), prepared(f->bgr), name(n) {}
    const Frame* frame;
    PreparedFrame prepared;
    const char* name;
};

// Whether the replay's own locate (as Session::lookForImage: a first look with the expected
// scale, then a later look with the place and score it was found with) takes `tpl` at `box` on
// `look`; "" when it does, else why not. `score` receives the first look's score.
std::string replayTakes(const Locator& locator, const ProofLook& look, const Template& tpl, const Rect& box, double& score) {
    LocateHints first;
    first.expected_scale = look.frame->scale / tpl.scale;
    LocateReport r = locator.locate(look.prepared, {tpl}, first);
    score = r.match.score;
    if (!r.match.found || r.match.box.iou(box) < 0.8)
        return "the replay's locate takes " + boxText(r.match.box) + " (" + r.match.method + ", score " + fmt3(r.match.score) +
               (r.match.found ? "" : ", not found") + ") on the screen " + look.name;
    LocateHints later = first;
    later.last_seen = r.match.box;
    later.last_scale = r.match.scale;
    later.last_score = r.match.score;
    LocateReport again = locator.locate(look.prepared, {tpl}, later);
    if (!again.match.found || again.match.box.iou(box) < 0.8)
        return "a later look of the replay takes " + boxText(again.match.box) + " on the screen " + look.name;
    return "";
}

// The crop of `w`x`h` logical pixels around `p`, cut from `source`, proven on every look;
// nullopt with `why_not` set when it is not.
std::optional<ProvenTarget> proveCrop(const Frame& source, const std::vector<ProofLook*>& looks, Point p, int w, int h,
                                      const Locator& locator, const ProofOptions& o, std::string& why_not) {
    Rect screen{0, 0, source.width(), source.height()};
    Rect box = Rect{p.x - w / 2, p.y - h / 2, w, h}.intersect(screen);
    if (box.w < 8 || box.h < 8) return std::nullopt;
    const std::string size = std::to_string(box.w) + "x" + std::to_string(box.h);
    Template tpl;
    tpl.name = o.image_stem;
    tpl.bgr = source.bgr(cv::Rect(box.x, box.y, box.w, box.h)).clone();
    tpl.scale = source.scale;
    // The cheap pass first: one correlation of the crop over each screen at its own size
    // gives its own score and the best of any other place (a look-alike, e.g. a key with
    // another digit, or the key the pointer rests on, highlighted). Only a crop that stands
    // clearly above them costs the full locate a replay makes.
    Template scan = tpl;
    scan.threshold = 0.5;
    double own = 2, next = 0;
    for (const ProofLook* look : looks) {
        // The best three places: its own and the best other are among them unless two others
        // already score above its own (then it is not unique either way).
        double here = 0;
        for (const Match& m : TemplateMatcher().findAll(look->frame->bgr, scan, std::nullopt, 3)) {
            if (m.box.iou(box) >= 0.5) here = std::max(here, m.score);
            else next = std::max(next, m.score);
        }
        own = std::min(own, here);
    }
    if (own - next < kSeparation) {
        why_not = "a " + size + " crop scores " + fmt3(own) + " at its place and " + fmt3(next) + " elsewhere";
        return std::nullopt;
    }
    // The threshold the line runs with: the default, unless a look-alike reaches it; then half
    // way between the crop's own score and the look-alike's, so that neither a hover nor the
    // look-alike decides.
    double threshold = kDefaultThreshold;
    if (next + kSeparation / 2 > kDefaultThreshold) threshold = std::floor((own + next) / 2 * 100) / 100;
    tpl.threshold = threshold;
    std::vector<double> scores;
    for (const ProofLook* look : looks) {
        double score = 0;
        std::string no = replayTakes(locator, *look, tpl, box, score);
        if (!no.empty()) {
            why_not = "a " + size + " crop: " + no;
            return std::nullopt;
        }
        scores.push_back(score);
    }
    ProvenTarget t;
    t.kind = ProvenTarget::Kind::Image;
    t.box = box;
    t.crop = tpl.bgr;
    t.scale = source.scale;
    t.image_file = o.image_stem + ".png";
    std::string ref = luaQuote(o.image_ref + "/" + t.image_file);
    if (threshold != kDefaultThreshold) {
        t.threshold = threshold;
        t.lua = "{ " + ref + ", threshold = " + fmt2(threshold) + " }";
    } else {
        t.lua = ref;
    }
    std::string seen = "score " + fmt3(scores.front());
    if (scores.size() > 1) seen += ", " + fmt3(scores.back()) + " " + looks.back()->name;
    t.why = "a " + size + " image around the point (scale " + fmt2(source.scale) + ")" +
            (looks.size() > 1 ? " cut before the pointer came" : "") + " is found only there on the screen (" + seen +
            (next > 0 ? ", next best " + fmt3(next) : "") +
            (t.threshold ? "; threshold " + fmt2(threshold) + " keeps the look-alike out" : "") + ")";
    return t;
}

std::optional<ProvenTarget> proveImage(const Frame& frame, Point p, const Locator& locator, const ProofOptions& o,
                                       std::string& tried) {
    // Larger crops carry more context; where the context repeats (a keypad's grid) a smaller
    // one, mostly the element's own mark, is the one that differs.
    static const int sizes[][2] = {{40, 28}, {56, 36}, {80, 48}, {112, 64}, {160, 96}, {28, 20}, {20, 14}};
    ProofLook at(&frame, "at the press");
    std::optional<ProofLook> before;
    // Only when the place looks mostly as it did (a hover changes a border or a shade; a
    // window that opened meanwhile changes most of it): half the pixels round the point.
    bool approach = o.approach && !o.approach->empty() && o.approach->bgr.size() == frame.bgr.size();
    if (approach) {
        const int w = int(160 * frame.scale), h = int(96 * frame.scale);
        Rect r = Rect{p.x - w / 2, p.y - h / 2, w, h}.intersect({0, 0, frame.width(), frame.height()});
        cv::Mat diff, grey;
        cv::absdiff(o.approach->bgr(cv::Rect(r.x, r.y, r.w, r.h)), frame.bgr(cv::Rect(r.x, r.y, r.w, r.h)), diff);
        cv::cvtColor(diff, grey, cv::COLOR_BGR2GRAY);
        const int changed = cv::countNonZero(grey);
        approach = changed * 2 < r.area() && cv::norm(o.approach->bgr, frame.bgr, cv::NORM_INF) > 0;
    }
    if (approach) before.emplace(o.approach, "before the pointer came");
    // A replay sees the screen as it was before the pointer came (the pointer where the last
    // action left it): the crop is cut from there and must hold on both screens; when the
    // element was not there yet (the screen changed meanwhile), from the screen at the press.
    std::string last;
    for (int pass = approach ? 0 : 1; pass < 2; ++pass) {
        const Frame& source = pass == 0 ? *o.approach : frame;
        std::vector<ProofLook*> looks = {&at};
        if (pass == 0) looks = {&*before, &at};
        for (const auto& s : sizes) {
            std::string no;
            if (auto t = proveCrop(source, looks, p, int(s[0] * frame.scale), int(s[1] * frame.scale), locator, o, no))
                return t;
            if (last.empty() && !no.empty()) last = no;
        }
    }
    tried += (last.empty() ? std::string("no image crop fits") : last + ", and no other size is unique either") + "; ";
    return std::nullopt;
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

const char* ProvenTarget::kindName() const {
    switch (kind) {
    case Kind::A11y: return "a11y";
    case Kind::Relative: return "relative";
    case Kind::Text: return "text";
    case Kind::Image: return "image";
    case Kind::Point: break;
    }
    return "point";
}

namespace {

std::vector<ProvenTarget> prove(const Frame& frame, const A11yElement* tree, Point p, const Locator& locator,
                                const ProofOptions& o, bool all) {
    double t0 = monotonicSeconds();
    std::string tried;
    std::vector<ProvenTarget> out;
    std::string label;  // the name of the tree's element under the point: what a text must read
    std::string value;  // a field's value, read first when o.field_value (a verify of what it holds)
    if (tree) {
        if (const A11yElement* e = elementAt(flatten(*tree), p)) {
            label = e->name;
            if (o.field_value && isField(*e) && !isPasswordField(*e) && !e->value.empty()) {
                value = e->value;
                if (auto t = proveA11yValue(*tree, *e, tried)) out.push_back(std::move(*t));
            }
        }
        if (auto t = proveA11y(*tree, p, tried)) out.push_back(std::move(*t));
    } else {
        tried += "no accessibility tree; ";
    }
    std::string hint;  // the name under the point in a tree that may be another screen's
    if (!tree && o.name_tree)
        if (const A11yElement* e = elementAt(flatten(*o.name_tree), p)) hint = e->name;
    if ((all || out.empty()) && o.text) {
        std::optional<ProvenTarget> t;
        // A field's value known: a reading of its label would verify where it is, not what it holds.
        if (!value.empty()) t = proveText(frame, p, o.band, value, "", tried);
        else t = proveText(frame, p, o.band, label, hint, tried);
        if (t) out.push_back(std::move(*t));
    }
    if ((all || out.empty()) && o.image)
        if (auto t = proveImage(frame, p, locator, o, tried)) out.push_back(std::move(*t));
    if (out.empty()) {
        ProvenTarget t;
        t.kind = ProvenTarget::Kind::Point;
        t.box = {p.x, p.y, 1, 1};
        t.lua = "{ x = " + std::to_string(p.x) + ", y = " + std::to_string(p.y) + " }";
        if (tried.size() >= 2) tried.resize(tried.size() - 2);
        t.why = "no target could be proven, so screen coordinates: " + tried;
        out.push_back(std::move(t));
    }
    out.front().ms = (monotonicSeconds() - t0) * 1000.0;
    return out;
}

}  // namespace

ProvenTarget proveTarget(const Frame& frame, const A11yElement* tree, Point p, const Locator& locator, const ProofOptions& o) {
    return prove(frame, tree, p, locator, o, false).front();
}

std::vector<ProvenTarget> proveTargets(const Frame& frame, const A11yElement* tree, Point p, const Locator& locator,
                                       const ProofOptions& o) {
    return prove(frame, tree, p, locator, o, true);
}

}  // namespace eacu
