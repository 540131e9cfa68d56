#include "heal/LineReference.h"

#include <algorithm>
#include <filesystem>

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
    if (!neighbours.empty()) out += (out.empty() ? "" : "; ") + std::string("beside ") + list(neighbours);
    if (!crop.empty()) out += (out.empty() ? "" : "; ") + std::string("a crop ") + std::to_string(crop.cols) + "x" +
                              std::to_string(crop.rows);
    if (box) out += " at " + box->str() + " of " + proof_frame;
    return out.empty() ? "nothing recorded" : out;
}

std::vector<std::string> neighbourWords(const std::vector<std::pair<std::string, Rect>>& lines, const Rect& box,
                                        double scale) {
    const int grow = int((2 * std::max(box.w, box.h)) + 40 * scale);
    const Rect near{box.x - grow, box.y - grow, box.w + 2 * grow, box.h + 2 * grow};
    std::vector<std::string> out;
    for (const auto& [text, b] : lines) {
        if (text.empty() || !near.contains(b.center()) || box.contains(b.center())) continue;
        if (std::find(out.begin(), out.end(), text) == out.end()) out.push_back(text);
    }
    return out;
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
    fs::path frame_path = fs::path(ref.crop_path).parent_path() / (fs::path(ref.crop_path).stem().string() + "_frame.jpg");
    if (!fs::exists(frame_path)) return ref;
    cv::Mat frame = cv::imread(frame_path.string(), cv::IMREAD_COLOR);
    ref.box = cropPlace(frame, ref.crop);
    if (!ref.box) return ref;
    ref.proof_frame = frame_path.string();
    ref.frame_size = {frame.cols, frame.rows};
    std::vector<std::pair<std::string, Rect>> lines;
    // Only confident readings (as the recorder's proof reads a label: confidence >= 0.8).
    for (const OcrLine& l : OcrCache::shared().get(frame, std::nullopt, langs)->lines) {
        if (l.confidence < 0.8 || foldText(l.text).empty()) continue;
        lines.emplace_back(l.text, l.box);
        if (ref.box->contains(l.box.center())) addWord(ref.words, l.text);
    }
    ref.neighbours = neighbourWords(lines, *ref.box, ref.crop_scale);
    return ref;
}

}  // namespace eacu
