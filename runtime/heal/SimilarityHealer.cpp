#include "heal/SimilarityHealer.h"

#include <algorithm>
#include <cmath>

#include <opencv2/imgproc.hpp>

#include "base/Clock.h"
#include "base/Format.h"
#include "heal/HealProof.h"
#include "recorder/TargetProof.h"
#include "step/Session.h"
#include "step/TreeNodes.h"
#include "vision/ocr/OcrCache.h"
#include "vision/ocr/OcrEngine.h"
#include "vision/ocr/TextFinder.h"

namespace eacu {

namespace {

// The best normalized correlation (grey, at least 0) of `crop` within twice its size around
// the centre of `box`: how much the element's surroundings look like the crop cut around the
// recorded point.
double lookAlike(const cv::Mat& crop, const Frame& frame, const Rect& box) {
    if (crop.empty()) return 0;
    const Point c = box.center();
    Rect area = Rect{c.x - crop.cols, c.y - crop.rows, 2 * crop.cols, 2 * crop.rows}.intersect({0, 0, frame.width(), frame.height()});
    if (area.w < crop.cols || area.h < crop.rows) return 0;
    cv::Mat a, g, r;
    cv::cvtColor(frame.bgr(cv::Rect(area.x, area.y, area.w, area.h)), a, cv::COLOR_BGR2GRAY);
    cv::cvtColor(crop, g, crop.channels() == 4 ? cv::COLOR_BGRA2GRAY : cv::COLOR_BGR2GRAY);
    cv::matchTemplate(a, g, r, cv::TM_CCOEFF_NORMED);
    double best = 0;
    cv::minMaxLoc(r, nullptr, &best);
    return std::isfinite(best) ? std::max(0.0, best) : 0.0;
}

std::string boxJsonText(const Rect& b) { return b.str(); }

nlohmann::json boxJson(const Rect& b) { return {b.x, b.y, b.w, b.h}; }

// The tree role of the element whose bounds are `box` ("" when it is not the tree's).
std::string roleAt(const std::vector<SomA11yNode>& tree, const Rect& box) {
    for (const SomA11yNode& n : tree)
        if (n.box.iou(box) > 0.9) return n.role;
    return "";
}

}  // namespace

double similarity(const LineReference& ref, const SomElement& e, const std::string& role, const Frame& frame,
                  const std::vector<std::pair<std::string, Rect>>& labels, const A11yElement* tree, std::string& why) {
    double weights = 0, sum = 0;
    auto add = [&](const char* name, double w, double v) {
        weights += w;
        sum += w * v;
        why += (why.empty() ? "" : " ") + std::string(name) + " " + fixed(v);
    };
    const bool readable = !foldText(e.content).empty();
    double words = 0;
    for (const std::string& w : ref.words) words = std::max(words, readable ? textSimilarity(w, e.content) : 0.0);
    // Identity first: an element whose words are one of the recorded neighbours' (and not the
    // element's own) is that neighbour, which stood beside the element when it was recorded.
    if (readable && words < kHealSameText)
        for (const Neighbour& n : ref.neighbours)
            if (textSimilarity(n.text, e.content) >= kHealSameText) {
                why = "it is the recorded neighbour " + luaQuote(n.text);
                return 0;
            }
    if (!ref.words.empty()) add("words", 1.5, words);
    if (!ref.role.empty() && !role.empty()) add("role", 1.5, role == ref.role ? 1.0 : 0.0);
    // On a screen without a tree, the element's tag is its Set-of-Marks kind on each frame
    // (the same buildSom and options on both: FrameEvidence::kind).
    else if (ref.role.empty() && !ref.kind.empty()) add("kind", 1.5, e.kind == ref.kind ? 1.0 : 0.0);
    if (!ref.neighbours.empty()) {
        const std::vector<Neighbour> mine =
            neighboursOf(labels, e.box, frame.scale, tree ? treeSiblings(*tree, e.box) : std::vector<std::pair<std::string, Rect>>{});
        double seen = 0;
        for (const Neighbour& n : ref.neighbours) {
            double best = 0;
            for (const Neighbour& m : mine)
                if (textSimilarity(n.text, m.text) >= kHealSameText) best = std::max(best, m.side == n.side ? 1.0 : 0.5);
            seen += best;
        }
        add("neighbours", 1.5, seen / double(ref.neighbours.size()));
    }
    if (ref.box && ref.frame_size.w > 0 && ref.frame_size.h > 0) {
        const Point rc = ref.box->center();
        const double rx = double(rc.x) / ref.frame_size.w * frame.width(), ry = double(rc.y) / ref.frame_size.h * frame.height();
        const Point c = e.box.center();
        const double d = std::hypot(c.x - rx, c.y - ry);
        const double reach = 0.25 * std::hypot(double(frame.width()), double(frame.height()));
        add("position", 0.5, std::max(0.0, 1.0 - d / reach));
    }
    if (!ref.crop.empty()) add("look", 1.0, lookAlike(ref.crop, frame, e.box));
    return weights > 0 ? sum / weights : 0;
}

SimilarityHealer::~SimilarityHealer() {
    if (warm_.joinable()) warm_.join();
}

void SimilarityHealer::warmUp() {
    if (warm_.joinable()) return;
    warm_ = std::thread([] {
        for (const char* langs : {"eng", kPhraseBandLangs, "chi_sim"}) {
            try {
                OcrEngine::shared(langs);
            } catch (const std::exception&) {
                // a missing model: the heal that needs it says so
            }
        }
    });
}

HealResult SimilarityHealer::heal(Session& session, const TargetSpec& target, const std::string& action, int step_idx) {
    const double t0 = monotonicSeconds();
    // Where the time went, milliseconds per phase (the run log's params.heal.phases_ms).
    nlohmann::json phases = nlohmann::json::object();
    double mark = t0;
    auto phase = [&](const char* name) {
        const double now = monotonicSeconds();
        phases[name] = (now - mark) * 1000.0;
        mark = now;
    };
    HealResult r;
    const std::string langs = kPhraseBandLangs;
    LineReference ref = lineReference(target, session.assets(), session.options().script_dir, langs);
    phase("reference");
    session.cancel().check();
    // The engine the screen is read with: loaded ahead (warmUp) in a run with --heal, else now.
    OcrEngine::shared(langs);
    phase("engines");
    session.cancel().check();
    Frame f = session.device().captureCurrent();  // not a stream picture older than the tree read next
    r.frame = f;
    phase("capture");
    std::vector<SomOcrLine> som_lines;
    std::vector<std::pair<std::string, Rect>> lines;
    for (const OcrLine& l : OcrCache::shared().get(f.bgr, std::nullopt, langs)->lines) {
        som_lines.push_back({l.text, l.box, l.confidence});
        lines.emplace_back(l.text, l.box);
    }
    phase("ocr");
    session.cancel().check();
    // The tree only when the line recorded a tree element (a screen without one is not read).
    std::optional<A11yElement> root = healTree(session, ref);
    std::vector<SomA11yNode> tree;
    // The labels an element's neighbours are read from: the OCR lines, and the tree's labels.
    std::vector<std::pair<std::string, Rect>> labels = lines;
    if (root) {
        tree = treeNodesOf(*root, {0, 0, f.width(), f.height()});
        for (auto& l : treeLabels(*root)) labels.push_back(std::move(l));
    }
    phase("tree");
    SomResult som = buildSom(f.bgr, som_lines, {}, evidenceSomOptions(f.scale), tree);
    std::vector<HealCandidate> all;
    for (const SomElement& e : som.elements) {
        HealCandidate c;
        const std::string role = roleAt(tree, e.box);
        c.source = role.empty() ? e.source : "tree";
        c.label = (role.empty() ? e.kind : role) + (e.content.empty() ? "" : " \"" + e.content + "\"");
        c.box = e.box;
        c.score = similarity(ref, e, role, f, labels, root ? &*root : nullptr, c.why);
        all.push_back(std::move(c));
    }
    std::stable_sort(all.begin(), all.end(), [](const HealCandidate& a, const HealCandidate& b) { return a.score > b.score; });
    phase("score");
    const double best = all.empty() ? 0 : all[0].score;
    const double second = all.size() > 1 ? all[1].score : 0;
    for (size_t i = 0; i < all.size() && i < 5; ++i) r.candidates.push_back(all[i]);
    nlohmann::json cands = nlohmann::json::array();
    std::string listed;
    for (const HealCandidate& c : r.candidates) {
        cands.push_back({{"source", c.source}, {"label", c.label}, {"box", boxJson(c.box)}, {"score", c.score}, {"why", c.why}});
        if (cands.size() <= 3) listed += (listed.empty() ? "" : "; ") + c.label + " at " + boxJsonText(c.box) + " " + fixed(c.score) + " (" + c.why + ")";
    }
    r.record = {{"healed", false},
                {"method", "similar"},
                {"old", describeTarget(target)},
                {"where", target.where},
                {"score", best},
                {"second", second},
                {"min_score", kHealMinScore},
                {"margin", kHealMargin},
                {"elements", all.size()},
                {"candidates", cands},
                {"reference",
                 {{"words", ref.words},
                  {"role", ref.role},
                  {"kind", ref.kind},
                  {"neighbours", neighboursJson(ref.neighbours)},
                  {"crop", ref.crop_path},
                  {"proof_frame", ref.proof_frame}}}};
    const std::string head = "similarity search over " + std::to_string(all.size()) + " elements against " + ref.describe();
    auto done = [&](const std::string& why) {
        r.tried = head + ": " + why + (listed.empty() ? "" : "; best candidates: " + listed);
        r.record["rejected"] = why;
        r.record["ms"] = (monotonicSeconds() - t0) * 1000.0;
        r.record["phases_ms"] = phases;
        return r;
    };
    if (all.empty()) return done("no element on the screen");
    if (best < kHealMinScore) return done("best " + fixed(best) + " is below " + fixed(kHealMinScore));
    if (best - second < kHealMargin)
        return done("ambiguous: best " + fixed(best) + " and second " + fixed(second) + " are less than " +
                    fixed(kHealMargin) + " apart");
    std::string why;
    const bool proven = acceptHealed(session, f, root ? &*root : nullptr, all[0].box.center(), all[0].box, ref, action,
                                     step_idx, "similar", best, kHealMinScore, r, why);
    phase("proof");
    if (!proven)
        return done("the best candidate " + all[0].label + " at " + boxJsonText(all[0].box) + " (" + fixed(best) +
                    ") could not be proven unique there: " + why);
    r.record["ms"] = (monotonicSeconds() - t0) * 1000.0;
    r.record["phases_ms"] = phases;
    r.tried = head;
    return r;
}

}  // namespace eacu
