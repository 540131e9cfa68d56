#include "recorder/Neighbours.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <stdexcept>

#include "vision/ocr/TextFinder.h"

namespace eacu {

std::vector<Neighbour> neighboursOf(const std::vector<std::pair<std::string, Rect>>& labels, const Rect& box,
                                    double scale, const std::vector<std::pair<std::string, Rect>>& siblings,
                                    size_t max) {
    const int grow = int((2 * std::max(box.w, box.h)) + 40 * scale);
    const Rect near{box.x - grow, box.y - grow, box.w + 2 * grow, box.h + 2 * grow};
    const Point c = box.center();
    std::vector<std::pair<double, Neighbour>> found;
    auto take = [&](const std::string& text, const Rect& b, bool anywhere) {
        const Point lc = b.center();
        if (text.empty() || (!anywhere && !near.contains(lc)) || box.contains(lc)) return;
        const double dx = lc.x - c.x, dy = lc.y - c.y;
        const char* side = std::abs(dx) > std::abs(dy) ? (dx < 0 ? "left" : "right") : (dy < 0 ? "above" : "below");
        found.push_back({std::hypot(dx, dy), {text, side}});
    };
    for (const auto& [text, b] : labels) take(text, b, false);
    for (const auto& [text, b] : siblings) take(text, b, true);
    std::stable_sort(found.begin(), found.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    std::vector<Neighbour> out;
    for (auto& entry : found) {
        Neighbour& n = entry.second;  // a named reference: lambdas may not capture structured bindings before clang 16
        if (out.size() < max && std::none_of(out.begin(), out.end(), [&](const Neighbour& o) { return o.text == n.text; }))
            out.push_back(std::move(n));
    }
    return out;
}

namespace {

void collectLabels(const A11yElement& e, std::vector<std::pair<std::string, Rect>>& out) {
    const std::string& label = e.name.empty() ? e.description : e.name;
    if (!label.empty() && !e.bounds.empty() && e.has("showing")) out.emplace_back(label, e.bounds);
    for (const A11yElement& c : e.children) collectLabels(c, out);
}

}  // namespace

std::vector<std::pair<std::string, Rect>> treeLabels(const A11yElement& root) {
    std::vector<std::pair<std::string, Rect>> out;
    collectLabels(root, out);
    return out;
}

namespace {

// The element whose bounds are `box`, and its parent (null for the root).
bool findParent(const A11yElement& e, const Rect& box, const A11yElement*& parent) {
    for (const A11yElement& c : e.children) {
        if (!c.bounds.empty() && c.bounds.iou(box) > 0.9) {
            parent = &e;
            return true;
        }
        if (findParent(c, box, parent)) return true;
    }
    return false;
}

}  // namespace

std::vector<std::pair<std::string, Rect>> treeSiblings(const A11yElement& root, const Rect& box) {
    std::vector<std::pair<std::string, Rect>> out;
    const A11yElement* parent = nullptr;
    if (!findParent(root, box, parent)) return out;
    for (const A11yElement& c : parent->children) {
        const std::string& label = c.name.empty() ? c.description : c.name;
        if (!label.empty() && !c.bounds.empty() && c.has("showing") && c.bounds.iou(box) <= 0.9)
            out.emplace_back(label, c.bounds);
    }
    return out;
}

nlohmann::json neighboursJson(const std::vector<Neighbour>& ns) {
    nlohmann::json j = nlohmann::json::array();
    for (const Neighbour& n : ns) j.push_back({n.text, n.side});
    return j;
}

std::vector<Neighbour> neighboursFromJson(const nlohmann::json& j) {
    std::vector<Neighbour> out;
    if (!j.is_array()) return out;
    for (const nlohmann::json& e : j)
        if (e.is_array() && e.size() == 2 && e[0].is_string() && e[1].is_string())
            out.push_back({e[0].get<std::string>(), e[1].get<std::string>()});
    return out;
}

namespace {

bool evidenceHasLetters(const std::string& s) {
    try {
        return !foldText(s).empty();
    } catch (const std::exception&) {
        return false;  // not UTF-8: not a word
    }
}

std::optional<Rect> evidenceRectFrom(const nlohmann::json& j) {
    if (!j.is_array() || j.size() != 4) return std::nullopt;
    for (const auto& v : j)
        if (!v.is_number_integer()) return std::nullopt;
    return Rect{j[0].get<int>(), j[1].get<int>(), j[2].get<int>(), j[3].get<int>()};
}

}  // namespace

SomOptions evidenceSomOptions(double scale) {
    SomOptions so;
    so.scale = scale;
    so.max_elements = 200;
    return so;
}

std::string somKindAt(const cv::Mat& bgr, const OcrResult& reading, Point point, double scale) {
    if (bgr.empty()) return "";
    std::vector<SomOcrLine> lines;
    for (const OcrLine& l : reading.lines) lines.push_back({l.text, l.box, l.confidence});
    const SomResult som = buildSom(bgr, lines, {}, evidenceSomOptions(scale));
    const SomElement* best = nullptr;
    for (const SomElement& e : som.elements)
        if (e.box.contains(point) && (!best || e.box.area() < best->box.area())) best = &e;
    return best ? best->kind : "";
}

void readEvidence(FrameEvidence& ev, const OcrResult& reading, const cv::Mat& bgr, const Rect& box, Size frame_size,
                  double scale) {
    ev.box = box;
    ev.frame_size = frame_size;
    ev.kind = somKindAt(bgr, reading, box.center(), scale);
    ev.words.clear();
    std::vector<std::pair<std::string, Rect>> lines;
    for (const OcrLine& l : reading.lines) {
        if (l.confidence < kEvidenceMinConfidence || !evidenceHasLetters(l.text)) continue;
        lines.emplace_back(l.text, l.box);
        if (box.contains(l.box.center()) && std::find(ev.words.begin(), ev.words.end(), l.text) == ev.words.end())
            ev.words.push_back(l.text);
    }
    ev.ocr_neighbours = neighboursOf(lines, box, scale);
}

nlohmann::json frameEvidenceJson(const FrameEvidence& ev) {
    nlohmann::json j = nlohmann::json::object();
    if (!ev.tree_neighbours.empty()) j["tree_neighbours"] = neighboursJson(ev.tree_neighbours);
    if (ev.box)
        j["ocr"] = {{"box", {ev.box->x, ev.box->y, ev.box->w, ev.box->h}},
                    {"frame", {ev.frame_size.w, ev.frame_size.h}},
                    {"words", ev.words},
                    {"neighbours", neighboursJson(ev.ocr_neighbours)}};
    if (ev.box && !ev.kind.empty()) j["ocr"]["kind"] = ev.kind;
    return j;
}

FrameEvidence frameEvidenceFromJson(const nlohmann::json& j) {
    FrameEvidence ev;
    if (!j.is_object()) return ev;
    ev.tree_neighbours = neighboursFromJson(j.value("tree_neighbours", nlohmann::json::array()));
    const auto o = j.find("ocr");
    if (o == j.end() || !o->is_object()) return ev;
    const std::optional<Rect> box = evidenceRectFrom(o->value("box", nlohmann::json()));
    const nlohmann::json frame = o->value("frame", nlohmann::json());
    const nlohmann::json words = o->value("words", nlohmann::json());
    if (!box || !frame.is_array() || frame.size() != 2 || !frame[0].is_number_integer() || !frame[1].is_number_integer() ||
        !words.is_array())
        return ev;
    ev.box = box;
    ev.frame_size = {frame[0].get<int>(), frame[1].get<int>()};
    const nlohmann::json kind = o->value("kind", nlohmann::json());
    if (kind.is_string()) ev.kind = kind.get<std::string>();
    for (const auto& w : words)
        if (w.is_string()) ev.words.push_back(w.get<std::string>());
    ev.ocr_neighbours = neighboursFromJson(o->value("neighbours", nlohmann::json::array()));
    return ev;
}

void writeFrameEvidence(const std::string& path, const FrameEvidence& ev) {
    std::ofstream f(path);
    f << frameEvidenceJson(ev).dump() << "\n";
    if (!f) throw std::runtime_error("cannot write \"" + path + "\"");
}

FrameEvidence readFrameEvidence(const std::string& path) {
    std::ifstream f(path);
    if (!f) return {};
    try {
        return frameEvidenceFromJson(nlohmann::json::parse(f));
    } catch (const std::exception&) {
        return {};  // a file that is not the recorder's
    }
}

}  // namespace eacu
