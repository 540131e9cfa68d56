#include "vision/som/Som.h"

#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <cmath>
#include <map>

namespace eacu {

namespace {

enum Priority { kA11y = 6, kAsset = 5, kControlText = 4, kOcr = 3, kControl = 2, kBlob = 1 };

int priorityOf(const SomElement& e) {
    if (e.source.rfind("box_a11y", 0) == 0) return kA11y;
    if (e.source == "box_asset_content_asset") return kAsset;
    if (e.source == "box_contour_content_ocr") return kControlText;
    if (e.source == "box_ocr_content_ocr") return kOcr;
    if (e.source == "box_contour") return kControl;
    return kBlob;
}

/// Fraction of `inner`'s area inside `outer`.
double coverage(const Rect& inner, const Rect& outer) {
    int a = inner.area();
    return a > 0 ? double(inner.intersect(outer).area()) / a : 0.0;
}

Rect toRect(const cv::Rect& r) { return {r.x, r.y, r.width, r.height}; }

bool controlSized(const Rect& r, Size s, const SomOptions& o) {
    int min_side = std::max(4, int(std::lround(o.min_side * std::max(0.5, o.scale * 0.8))));
    return r.w >= min_side && r.h >= min_side && r.w <= o.max_w_frac * s.w && r.h <= o.max_h_frac * s.h;
}

/// Reading order: rows of vertically overlapping boxes (anchored on the row's first box, by
/// centre y), rows top to bottom, left to right within a row.
void readingOrder(std::vector<SomElement>& v) {
    std::sort(v.begin(), v.end(), [](const SomElement& a, const SomElement& b) {
        int ca = a.box.y * 2 + a.box.h, cb = b.box.y * 2 + b.box.h;
        return ca != cb ? ca < cb : a.box.x < b.box.x;
    });
    std::vector<SomElement> out;
    size_t i = 0;
    while (i < v.size()) {
        const Rect anchor = v[i].box;
        size_t j = i + 1;
        while (j < v.size()) {
            int cy = v[j].box.y + v[j].box.h / 2;
            if (cy < anchor.y || cy >= anchor.y + std::max(1, anchor.h)) break;
            ++j;
        }
        std::sort(v.begin() + i, v.begin() + j, [](const SomElement& a, const SomElement& b) {
            return a.box.x != b.box.x ? a.box.x < b.box.x : a.box.y < b.box.y;
        });
        for (size_t k = i; k < j; ++k) out.push_back(v[k]);
        i = j;
    }
    v = std::move(out);
}

std::string classifyControl(const Rect& r, const cv::Mat& edges) {
    // A wide, mostly empty box is a text field; otherwise a button.
    int m = std::max(4, r.h / 6);
    cv::Rect inner(r.x + m, r.y + m, std::max(1, r.w - 2 * m), std::max(1, r.h - 2 * m));
    inner &= cv::Rect(0, 0, edges.cols, edges.rows);
    double density = inner.area() > 0 ? cv::countNonZero(edges(inner)) / double(inner.area()) : 0;
    if (r.w >= 4 * r.h && density < 0.03) return "text_field";
    return "button";
}

}  // namespace

std::map<int, Rect> SomResult::boxes() const {
    std::map<int, Rect> m;
    for (const auto& e : elements) m[e.id] = e.box;
    return m;
}

std::vector<SomElement> proposeControls(const cv::Mat& img, const SomOptions& o) {
    std::vector<SomElement> out;
    if (img.empty()) return out;
    cv::Mat grey;
    if (img.channels() == 3) cv::cvtColor(img, grey, cv::COLOR_BGR2GRAY);
    else if (img.channels() == 4) cv::cvtColor(img, grey, cv::COLOR_BGRA2GRAY);
    else grey = img;
    Size s{grey.cols, grey.rows};

    // 1. Boxed controls: closed edge contours that fill their bounding rectangle.
    cv::Mat edges;
    cv::Canny(grey, edges, 40, 120);
    if (o.contours) {
        cv::Mat closed;
        cv::morphologyEx(edges, closed, cv::MORPH_CLOSE, cv::getStructuringElement(cv::MORPH_RECT, {3, 3}));
        std::vector<std::vector<cv::Point>> contours;
        cv::findContours(closed, contours, cv::RETR_LIST, cv::CHAIN_APPROX_SIMPLE);
        for (const auto& c : contours) {
            cv::Rect br = cv::boundingRect(c);
            Rect r = toRect(br);
            if (!controlSized(r, s, o) || r.h < 10 * std::max(0.75, o.scale) * 0.8) continue;
            double fill = std::abs(cv::contourArea(c)) / std::max(1.0, double(br.area()));
            if (fill < 0.85) continue;
            std::vector<cv::Point> poly;
            cv::approxPolyDP(c, poly, 0.02 * cv::arcLength(c, true), true);
            if (poly.size() < 4 || poly.size() > 8) continue;
            SomElement e;
            e.type = "icon";
            e.kind = classifyControl(r, edges);
            e.box = r;
            e.interactivity = true;
            e.source = "box_contour";
            e.score = std::min(1.0, fill);
            out.push_back(e);
        }
        // The same control yields nested contours (outer/inner edge of its border): keep the outer.
        std::sort(out.begin(), out.end(), [](const SomElement& a, const SomElement& b) { return a.box.area() > b.box.area(); });
        std::vector<SomElement> kept;
        for (const auto& e : out) {
            bool dup = false;
            for (const auto& k : kept)
                if (e.box.iou(k.box) > 0.7 || (coverage(e.box, k.box) > 0.95 && e.box.area() > 0.7 * k.box.area())) {
                    dup = true;
                    break;
                }
            if (!dup) kept.push_back(e);
        }
        out = std::move(kept);
    }

    // 2. Blobs: glyph groups (words, short lines, icons) from the morphological gradient.
    if (o.blob_gap > 0) {
        cv::Mat grad, bin;
        cv::morphologyEx(grey, grad, cv::MORPH_GRADIENT, cv::getStructuringElement(cv::MORPH_ELLIPSE, {3, 3}));
        cv::threshold(grad, bin, 0, 255, cv::THRESH_BINARY | cv::THRESH_OTSU);
        int gap = std::max(3, int(std::lround(o.blob_gap * o.scale)));
        cv::morphologyEx(bin, bin, cv::MORPH_CLOSE, cv::getStructuringElement(cv::MORPH_RECT, {gap, 1}));
        cv::Mat labels, stats, centroids;
        int n = cv::connectedComponentsWithStats(bin, labels, stats, centroids, 8, CV_32S);
        std::vector<std::pair<Rect, double>> blobs;
        for (int i = 1; i < n; ++i) {
            Rect r{stats.at<int>(i, cv::CC_STAT_LEFT), stats.at<int>(i, cv::CC_STAT_TOP),
                   stats.at<int>(i, cv::CC_STAT_WIDTH), stats.at<int>(i, cv::CC_STAT_HEIGHT)};
            if (!controlSized(r, s, o)) continue;
            if (r.h > 80 * o.scale) continue;  // not a word/line/icon
            double fill = stats.at<int>(i, cv::CC_STAT_AREA) / double(r.area());
            if (fill > 0.95) continue;  // a solid bar, not glyphs
            blobs.push_back({r, fill});
        }
        // A blob that is a control's border is that control: drop it before joining words, so
        // that the control does not glue its neighbours into one line.
        blobs.erase(std::remove_if(blobs.begin(), blobs.end(),
                                   [&](const std::pair<Rect, double>& b) {
                                       for (const auto& c : out)
                                           if (c.box.iou(b.first) > 0.6) return true;
                                       return false;
                                   }),
                    blobs.end());
        // Join words of one line: neighbours with overlapping rows, similar heights and a gap
        // under 0.6 of their height (word spacing is ~0.25-0.35 em), repeated until stable.
        for (bool merged = true; merged;) {
            merged = false;
            for (size_t i = 0; i < blobs.size() && !merged; ++i)
                for (size_t j = 0; j < blobs.size() && !merged; ++j) {
                    if (i == j) continue;
                    const Rect& a = blobs[i].first;
                    const Rect& b = blobs[j].first;
                    if (b.x < a.x) continue;
                    int gap = b.x - (a.x + a.w);
                    int hmax = std::max(a.h, b.h), hmin = std::min(a.h, b.h);
                    int vover = std::min(a.y + a.h, b.y + b.h) - std::max(a.y, b.y);
                    if (gap > 0.6 * hmax || gap < -hmin || hmax > 1.6 * hmin || vover < 0.6 * hmin) continue;
                    blobs[i] = {a.united(b), (blobs[i].second + blobs[j].second) / 2};
                    blobs.erase(blobs.begin() + long(j));
                    merged = true;
                }
        }
        for (const auto& [r, fill] : blobs) {
            if (!controlSized(r, s, o) || r.w > 40 * r.h) continue;
            SomElement e;
            e.type = "icon";
            e.kind = (r.w <= 2 * r.h && r.h <= 48 * o.scale) ? "icon" : "control";
            e.box = r.grown(1);
            e.box = toRect(cv::Rect(e.box.x, e.box.y, e.box.w, e.box.h) & cv::Rect(0, 0, s.w, s.h));
            e.interactivity = true;
            e.source = "box_blob";
            e.score = fill;
            out.push_back(e);
        }
    }
    return out;
}

// The Set-of-Marks kind of an accessibility role.
static std::string kindOfRole(const std::string& role) {
    if (role == "push button" || role == "toggle button" || role == "button") return "button";
    if (role == "text" || role == "entry" || role == "password text" || role == "spin button") return "text_field";
    return role;
}

SomResult buildSom(const cv::Mat& bgr, const std::vector<SomOcrLine>& ocr, const std::vector<SomAssetHit>& assets,
                   const SomOptions& o, const std::vector<SomA11yNode>& a11y) {
    SomResult res;
    res.size = {bgr.cols, bgr.rows};
    std::vector<SomElement> all;
    std::vector<SomElement> nodes;
    for (const auto& n : a11y) {
        Rect r = bgr.empty() ? n.box : n.box.intersect({0, 0, bgr.cols, bgr.rows});
        if (r.empty()) continue;
        nodes.push_back({0, "icon", kindOfRole(n.role), r, true, n.name, "box_a11y_content_a11y", 1.0});
    }
    for (const auto& a : assets) {
        if (a.box.empty()) continue;
        all.push_back({0, "icon", "asset", a.box, true, a.name, "box_asset_content_asset", a.score});
    }
    std::vector<SomElement> texts;
    for (const auto& l : ocr) {
        if (l.box.empty() || l.text.empty()) continue;
        texts.push_back({0, "text", "label", l.box, false, l.text, "box_ocr_content_ocr", l.confidence});
    }
    std::vector<SomElement> found = bgr.empty() ? std::vector<SomElement>{} : proposeControls(bgr, o);
    res.candidates = int(nodes.size() + all.size() + texts.size() + found.size());

    // Elements of the accessibility tree stand for the OCR lines inside them (their labels); one
    // without a name is named by them.
    std::vector<bool> read_by_tree(texts.size(), false);
    for (auto& n : nodes) {
        for (size_t i = 0; i < texts.size(); ++i) {
            if (read_by_tree[i] || coverage(texts[i].box, n.box) <= 0.8) continue;
            read_by_tree[i] = true;
            if (n.content.empty()) {
                n.content = texts[i].content;
                n.source = "box_a11y_content_ocr";
            }
        }
    }
    // Proposals from the pixels that a tree element covers are that element.
    found.erase(std::remove_if(found.begin(), found.end(),
                               [&](const SomElement& c) {
                                   for (const auto& n : nodes)
                                       if (c.box.iou(n.box) > 0.3 || coverage(c.box, n.box) > 0.7) return true;
                                   return false;
                               }),
                found.end());
    for (auto& n : nodes) all.push_back(std::move(n));

    // Controls absorb the OCR lines they contain (OmniParser: box_yolo_content_ocr).
    std::vector<bool> text_used(texts.size(), false);
    for (auto& c : found) {
        if (c.source != "box_contour") continue;
        std::vector<size_t> inside;
        for (size_t i = 0; i < texts.size(); ++i)
            if (!text_used[i] && coverage(texts[i].box, c.box) > 0.8) inside.push_back(i);
        if (inside.empty()) continue;
        std::sort(inside.begin(), inside.end(), [&](size_t a, size_t b) {
            return texts[a].box.y != texts[b].box.y ? texts[a].box.y < texts[b].box.y : texts[a].box.x < texts[b].box.x;
        });
        if (inside.size() > 3) continue;  // a panel of text, not a control
        for (size_t i : inside) {
            if (read_by_tree[i]) continue;  // a tree element's label (counted above: a panel stays a panel)
            c.content += (c.content.empty() ? "" : " ") + texts[i].content;
            text_used[i] = true;
        }
        if (!c.content.empty()) c.source = "box_contour_content_ocr";
    }
    for (size_t i = 0; i < texts.size(); ++i)
        if (!text_used[i] && !read_by_tree[i]) all.push_back(texts[i]);

    // A control stands for the few glyph blobs inside it (its label).
    std::vector<bool> blob_used(found.size(), false);
    for (const auto& c : found) {
        if (c.source == "box_blob") continue;
        std::vector<size_t> inside;
        for (size_t i = 0; i < found.size(); ++i)
            if (found[i].source == "box_blob" && coverage(found[i].box, c.box) > 0.9 && found[i].box.area() < c.box.area())
                inside.push_back(i);
        if (inside.size() <= 3)
            for (size_t i : inside) blob_used[i] = true;
    }

    // Blobs and controls covered by an OCR line or an asset are the same thing: drop them.
    for (size_t fi = 0; fi < found.size(); ++fi) {
        const auto& c = found[fi];
        if (blob_used[fi]) continue;
        bool covered = false;
        if (c.source == "box_blob" || c.source == "box_contour") {
            for (const auto& t : all) {
                if (t.source != "box_ocr_content_ocr" && t.source != "box_asset_content_asset") continue;
                if (c.box.iou(t.box) > 0.3 || coverage(c.box, t.box) > 0.7) {
                    covered = true;
                    break;
                }
            }
        }
        if (!covered) all.push_back(c);
    }

    // Containers (panels, toolbars) hold several elements; they are not one control.
    std::vector<SomElement> kept;
    for (size_t i = 0; i < all.size(); ++i) {
        if (priorityOf(all[i]) == kA11y || priorityOf(all[i]) == kAsset || priorityOf(all[i]) == kOcr) {
            kept.push_back(all[i]);
            continue;
        }
        int held = 0;
        for (size_t j = 0; j < all.size(); ++j)
            if (j != i && all[j].box.area() < all[i].box.area() && coverage(all[j].box, all[i].box) > 0.9) ++held;
        if (held < 3) kept.push_back(all[i]);
    }

    // De-duplicate by IoU, best priority first (then larger score, then reading position).
    std::stable_sort(kept.begin(), kept.end(), [](const SomElement& a, const SomElement& b) {
        int pa = priorityOf(a), pb = priorityOf(b);
        if (pa != pb) return pa > pb;
        if (a.box.y != b.box.y) return a.box.y < b.box.y;
        return a.box.x < b.box.x;
    });
    std::vector<SomElement> uniq;
    for (const auto& e : kept) {
        bool dup = false;
        for (const auto& u : uniq)
            if (e.box.iou(u.box) > o.iou_dedup) {
                dup = true;
                break;
            }
        if (!dup) uniq.push_back(e);
    }
    if (o.max_elements >= 0 && int(uniq.size()) > o.max_elements) uniq.resize(size_t(o.max_elements));
    readingOrder(uniq);
    for (size_t i = 0; i < uniq.size(); ++i) uniq[i].id = int(i);
    res.elements = std::move(uniq);
    return res;
}

nlohmann::json somToJson(const SomResult& som) {
    nlohmann::json arr = nlohmann::json::array();
    double w = std::max(1, som.size.w), h = std::max(1, som.size.h);
    auto r4 = [](double v) { return std::round(v * 10000.0) / 10000.0; };
    for (const auto& e : som.elements) {
        arr.push_back({{"id", e.id},
                       {"type", e.type},
                       {"bbox", {r4(e.box.x / w), r4(e.box.y / h), r4((e.box.x + e.box.w) / w), r4((e.box.y + e.box.h) / h)}},
                       {"interactivity", e.interactivity},
                       {"content", e.content},
                       {"source", e.source}});
    }
    return arr;
}

std::string somText(const SomResult& som) {
    std::string out;
    for (const auto& e : som.elements) {
        if (!e.interactivity && e.content.empty()) continue;
        Point c = e.box.center();
        const char* hpos = c.x < som.size.w * 0.33 ? "左" : c.x < som.size.w * 0.66 ? "中" : "右";
        const char* vpos = c.y < som.size.h * 0.33 ? "上" : c.y < som.size.h * 0.66 ? "中" : "下";
        std::string content = e.content.empty() ? "(无文字)" : "\"" + e.content + "\"";
        if (!out.empty()) out += "\n";
        out += "  [" + std::to_string(e.id) + "] " + (e.interactivity ? "🔘" : "📝") + " " + e.kind + " | " + content +
               " | 屏幕" + vpos + hpos;
    }
    return out;
}

cv::Mat somOverlay(const cv::Mat& bgr, const SomResult& som) {
    cv::Mat out;
    if (bgr.channels() == 1) cv::cvtColor(bgr, out, cv::COLOR_GRAY2BGR);
    else if (bgr.channels() == 4) cv::cvtColor(bgr, out, cv::COLOR_BGRA2BGR);
    else out = bgr.clone();
    if (out.empty()) return out;
    double fs = std::clamp(out.rows / 1500.0, 0.35, 0.9);
    int thick = std::max(1, int(std::lround(out.rows / 700.0)));
    for (const auto& e : som.elements) {
        // A fixed palette by ID so the same element keeps its colour across frames.
        static const cv::Scalar palette[] = {{0, 0, 230}, {0, 160, 0}, {230, 0, 0},   {0, 140, 255},
                                             {200, 0, 200}, {0, 170, 170}, {120, 60, 0}, {60, 60, 60}};
        cv::Scalar col = palette[e.id % 8];
        cv::rectangle(out, cv::Rect(e.box.x, e.box.y, e.box.w, e.box.h), col, thick);
        std::string label = std::to_string(e.id);
        int base = 0;
        cv::Size ts = cv::getTextSize(label, cv::FONT_HERSHEY_SIMPLEX, fs, thick, &base);
        int lx = std::clamp(e.box.x, 0, std::max(0, out.cols - ts.width - 4));
        int ly = e.box.y - ts.height - base - 2 >= 0 ? e.box.y - ts.height - base - 2 : e.box.y;
        ly = std::clamp(ly, 0, std::max(0, out.rows - ts.height - base - 2));
        cv::rectangle(out, cv::Rect(lx, ly, ts.width + 4, ts.height + base + 2), col, cv::FILLED);
        cv::putText(out, label, {lx + 2, ly + ts.height + 1}, cv::FONT_HERSHEY_SIMPLEX, fs, {255, 255, 255}, thick,
                    cv::LINE_AA);
    }
    return out;
}

}  // namespace eacu
