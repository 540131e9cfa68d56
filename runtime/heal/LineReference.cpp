#include "heal/LineReference.h"

#include <algorithm>
#include <filesystem>
#include <fstream>

#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include "vision/Template.h"
#include "vision/ocr/OcrCache.h"
#include "vision/ocr/TextFinder.h"

namespace fs = std::filesystem;

namespace eacu {

std::string LineReference::describe() const {
    std::string out;
    auto list = [](const std::vector<std::string>& v) {
        std::string s;
        for (const std::string& w : v) s += (s.empty() ? "\"" : ", \"") + w + "\"";
        return s;
    };
    if (!words.empty()) out += "words " + list(words);
    if (!role.empty()) out += (out.empty() ? "" : "; ") + std::string("role \"") + role + "\"";
    if (!neighbours.empty()) {
        std::vector<std::string> texts;
        for (const Neighbour& n : neighbours) texts.push_back(n.text + " (" + n.side + ")");
        out += (out.empty() ? "" : "; ") + std::string("beside ") + list(texts);
    }
    if (!crop.empty()) out += (out.empty() ? "" : "; ") + std::string("a crop ") + std::to_string(crop.cols) + "x" +
                              std::to_string(crop.rows);
    if (box) out += " at " + box->str() + " of " + proof_frame;
    return out.empty() ? "nothing recorded" : out;
}

namespace {

// A word with letters or digits (not punctuation alone), once.
void addWord(std::vector<std::string>& words, const std::string& w) {
    if (!foldText(w).empty() && std::find(words.begin(), words.end(), w) == words.end()) words.push_back(w);
}

// The crop's place on the proof frame: the best normalized correlation (the frame is the very
// screen it was cut from, so it is there nearly exactly); nullopt below 0.9.
std::optional<Rect> cropPlace(const cv::Mat& frame, const cv::Mat& crop) {
    if (crop.empty() || frame.empty() || crop.cols > frame.cols || crop.rows > frame.rows) return std::nullopt;
    cv::Mat r;
    cv::matchTemplate(frame, crop, r, cv::TM_CCOEFF_NORMED);
    double best = 0;
    cv::Point at;
    cv::minMaxLoc(r, nullptr, &best, nullptr, &at);
    if (best < 0.9) return std::nullopt;
    return Rect{at.x, at.y, crop.cols, crop.rows};
}

}  // namespace

LineReference lineReference(const TargetSpec& t, const AssetLibrary& assets, const std::string& script_dir,
                            const std::string& langs) {
    LineReference ref;
    std::vector<const TargetSpec*> all = {&t};
    for (const TargetSpec& a : t.alternatives) all.push_back(&a);
    for (const TargetSpec* x : all) {
        if (x->a11y) {
            if (x->a11y->name) addWord(ref.words, *x->a11y->name);
            if (x->a11y->role && ref.role.empty()) ref.role = *x->a11y->role;
        }
        if (x->text) addWord(ref.words, *x->text);
        if (x->image && ref.crop.empty()) {
            try {
                std::vector<Template> v = assets.resolveVariants(*x->image, script_dir);
                if (v.empty() || v.front().bgr.empty()) continue;
                ref.crop = v.front().bgr;
                ref.crop_scale = v.front().scale;
                ref.crop_path = v.front().path;
                const std::string parent = fs::path(*x->image).parent_path().string();
                if (!parent.empty() && fs::path(*x->image).is_relative()) ref.assets_ref = parent;
            } catch (const std::exception&) {
                // an image that cannot be read: the rest of the reference stays
            }
        }
    }
    if (ref.crop_path.empty()) return ref;
    const fs::path stem = fs::path(ref.crop_path).parent_path() / fs::path(ref.crop_path).stem();
    FrameEvidence kept = readFrameEvidence(stem.string() + "_frame.json");
    std::vector<Neighbour> tree = std::move(kept.tree_neighbours);
    ref.tree_kept = !tree.empty();
    const fs::path frame_path = stem.string() + "_frame.jpg";
    if (!kept.box && fs::exists(frame_path)) {
        // Written before the reading was kept beside the frame: the frame read now, as the
        // writer would have read it.
        cv::Mat frame = cv::imread(frame_path.string(), cv::IMREAD_COLOR);
        if (std::optional<Rect> at = cropPlace(frame, ref.crop))
            readEvidence(kept, *OcrCache::shared().get(frame, std::nullopt, langs), frame, *at, {frame.cols, frame.rows},
                         ref.crop_scale);
    }
    if (kept.box) {
        ref.box = kept.box;
        ref.proof_frame = frame_path.string();
        ref.frame_size = kept.frame_size;
        ref.kind = kept.kind;
        for (const std::string& w : kept.words) addWord(ref.words, w);
        ref.neighbours = std::move(kept.ocr_neighbours);
    }
    for (Neighbour& n : tree)
        if (std::none_of(ref.neighbours.begin(), ref.neighbours.end(), [&](const Neighbour& o) { return o.text == n.text; }))
            ref.neighbours.push_back(std::move(n));
    return ref;
}

}  // namespace eacu
