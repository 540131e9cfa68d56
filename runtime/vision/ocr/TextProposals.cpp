#include "vision/ocr/TextProposals.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include <opencv2/features2d.hpp>
#include <opencv2/imgproc.hpp>

namespace eacu {

namespace {

bool contains(const cv::Rect& outer, const cv::Rect& inner) {
    return (outer & inner).area() * 10 >= inner.area() * 8 && outer.area() > inner.area();
}

int findRoot(std::vector<int>& parent, int i) {
    while (parent[i] != i) i = parent[i] = parent[parent[i]];
    return i;
}

}  // namespace

std::vector<Rect> detailAreas(const cv::Mat& grey) {
    std::vector<Rect> out;
    if (grey.empty()) return out;
    cv::Mat grad, bin, labels, stats, centroids;
    cv::morphologyEx(grey, grad, cv::MORPH_GRADIENT, cv::getStructuringElement(cv::MORPH_RECT, {3, 3}));
    cv::threshold(grad, bin, 24, 255, cv::THRESH_BINARY);
    cv::morphologyEx(bin, bin, cv::MORPH_CLOSE, cv::getStructuringElement(cv::MORPH_RECT, {15, 5}));
    int n = cv::connectedComponentsWithStats(bin, labels, stats, centroids, 8, CV_32S);
    for (int i = 1; i < n; ++i) {
        Rect r{stats.at<int>(i, cv::CC_STAT_LEFT), stats.at<int>(i, cv::CC_STAT_TOP), stats.at<int>(i, cv::CC_STAT_WIDTH),
               stats.at<int>(i, cv::CC_STAT_HEIGHT)};
        r = r.grown(4).intersect(Rect{0, 0, grey.cols, grey.rows});
        if (r.h >= 5 && r.w >= 3) out.push_back(r);
    }
    return out;
}

std::vector<Rect> textProposals(const cv::Mat& grey, double text_height, int min_contrast) {
    std::vector<Rect> out;
    if (grey.empty()) return out;
    const double th = text_height > 0 ? text_height : 12.0;
    const int max_h = int(std::min(120.0, 4 * th));
    // Glyphs: maximally stable extremal regions of either polarity (Matas et al., BMVC 2002),
    // as tall as text, not much wider than tall.
    auto mser = cv::MSER::create(std::max(2, min_contrast / 5), 6, max_h * max_h * 3);
    std::vector<std::vector<cv::Point>> regions;
    std::vector<cv::Rect> found;
    mser->detectRegions(grey, regions, found);
    // Glyphs: as tall as text, not much wider than tall. Pieces: what is too small for a glyph
    // (an "i"'s dot, a comma, the small letters of a small fixed font split by MSER), added
    // to a word beside them below.
    std::vector<cv::Rect> glyphs, pieces;
    for (const cv::Rect& b : found) {
        if (b.height >= 5 && b.height <= max_h && b.width <= 3 * b.height && b.width >= 1)
            glyphs.push_back(b);
        else if (b.height >= 2 && b.height < 5 && b.width <= 3 * b.height)
            pieces.push_back(b);
    }
    auto byX = [](const cv::Rect& a, const cv::Rect& b) { return a.x != b.x ? a.x < b.x : a.y < b.y; };
    std::sort(glyphs.begin(), glyphs.end(), byX);
    glyphs.erase(std::unique(glyphs.begin(), glyphs.end()), glyphs.end());
    // A frame (a button's outline, a box) is not a glyph: it holds two or more glyphs side by
    // side, clearly shorter than it. (A letter's holes lie inside it one at a time or stacked:
    // "o", "B", "8"; its stems are about as tall as it is: "u", "H".) Frames
    // are looked for among all regions, of any width: the sides of a rounded frame (Xaw's
    // buttons) come out as thin glyphs taller than the label inside, and are left out too.
    {
        std::vector<bool> drop(glyphs.size(), false);
        std::sort(found.begin(), found.end(), byX);
        found.erase(std::unique(found.begin(), found.end()), found.end());
        for (const cv::Rect& a : found) {
            if (a.height > max_h) continue;
            size_t first = size_t(std::lower_bound(glyphs.begin(), glyphs.end(), cv::Rect(a.x, std::numeric_limits<int>::min(), 0, 0), byX) -
                                  glyphs.begin());
            // A side: a thin glyph along the frame's left or right edge.
            auto side = [&](const cv::Rect& g) {
                bool at_side = std::abs(g.x - a.x) <= 2 || std::abs(g.x + g.width - a.x - a.width) <= 2;
                bool within = g.y >= a.y - 2 && g.y + g.height <= a.y + a.height + 2;
                return at_side && within && g.width * 3 <= g.height;
            };
            int right_of_first = -1, tallest = 0;
            bool frame = false;
            for (size_t j = first; j < glyphs.size() && glyphs[j].x < a.x + a.width; ++j) {
                // Inside a frame, not a part of a letter (the stems of "u", "H", "m" are about
                // as tall as the letter): at most 4/5 of its height.
                if (!contains(a, glyphs[j]) || glyphs[j].height * 5 > a.height * 4) continue;
                tallest = std::max(tallest, glyphs[j].height);
                if (right_of_first < 0)
                    right_of_first = glyphs[j].x + glyphs[j].width;
                else
                    frame = frame || glyphs[j].x >= right_of_first;
            }
            if (!frame) continue;
            for (size_t j = first; j < glyphs.size() && glyphs[j].x < a.x + a.width; ++j)
                if (side(glyphs[j]) && glyphs[j].height > tallest + 1) drop[j] = true;
            // The frame itself, when it is narrow enough to be among the glyphs.
            auto it = std::lower_bound(glyphs.begin(), glyphs.end(), a, byX);
            if (it != glyphs.end() && *it == a) drop[size_t(it - glyphs.begin())] = true;
        }
        std::vector<cv::Rect> kept;
        for (size_t i = 0; i < glyphs.size(); ++i)
            if (!drop[i]) kept.push_back(glyphs[i]);
        glyphs.swap(kept);
    }
    // Words and short lines: neighbours of similar height on one row, a gap under 0.8 x
    // their height, neither inside the other (a letter inside a button's frame).
    const size_t n = glyphs.size();
    std::vector<int> parent(n);
    for (size_t i = 0; i < n; ++i) parent[i] = int(i);
    for (size_t i = 0; i < n; ++i) {
        const cv::Rect& a = glyphs[i];
        for (size_t j = i + 1; j < n; ++j) {
            const cv::Rect& b = glyphs[j];
            int hmax = std::max(a.height, b.height), hmin = std::min(a.height, b.height);
            if (b.x > a.x + a.width + hmax) break;
            if (hmax > 2 * hmin) continue;
            int overlap = std::min(a.y + a.height, b.y + b.height) - std::max(a.y, b.y);
            if (overlap * 2 < hmin) continue;
            int gap = b.x - (a.x + a.width);
            if (gap * 5 > hmax * 4) continue;
            if (contains(a, b) || contains(b, a)) continue;
            parent[findRoot(parent, int(i))] = findRoot(parent, int(j));
        }
    }
    std::vector<cv::Rect> groups(n);
    std::vector<int> count(n, 0);
    for (size_t i = 0; i < n; ++i) {
        int r = findRoot(parent, int(i));
        groups[r] = count[r]++ ? (groups[r] | glyphs[i]) : glyphs[i];
    }
    std::vector<cv::Rect> boxes;
    for (size_t i = 0; i < n; ++i)
        if (count[i]) boxes.push_back(groups[i]);
    // Pieces beside a group, within its rows (1 px either way), no wider than it is tall and
    // at most half its height away, belong to it (left to right, so a run of them is taken).
    std::sort(pieces.begin(), pieces.end(), byX);
    for (cv::Rect& g : boxes) {
        auto it = std::lower_bound(pieces.begin(), pieces.end(),
                                   cv::Rect(g.x - 2 * g.height, std::numeric_limits<int>::min(), 0, 0), byX);
        for (; it != pieces.end() && it->x <= g.x + g.width + g.height / 2; ++it) {
            const cv::Rect& p = *it;
            int gap = std::max(p.x - (g.x + g.width), g.x - (p.x + p.width));
            if (p.y >= g.y - 1 && p.y + p.height <= g.y + g.height + 1 && p.width <= g.height && gap * 2 <= g.height)
                g |= p;
        }
    }
    // Pieces of one label that glyph linking left apart (a small letter beside a frame's arc,
    // a word after a space): groups on one row with a gap up to the taller one's height.
    for (size_t before = 0; before != boxes.size();) {
        before = boxes.size();
        std::sort(boxes.begin(), boxes.end(), [](const cv::Rect& a, const cv::Rect& b) { return a.x < b.x; });
        std::vector<bool> gone(boxes.size(), false);
        for (size_t i = 0; i < boxes.size(); ++i) {
            if (gone[i]) continue;
            for (size_t j = i + 1; j < boxes.size(); ++j) {
                if (gone[j]) continue;
                const cv::Rect &a = boxes[i], &b = boxes[j];
                int hmax = std::max(a.height, b.height);
                if (b.x > a.x + a.width + hmax) break;
                int overlap = std::min(a.y + a.height, b.y + b.height) - std::max(a.y, b.y);
                int gap = b.x - (a.x + a.width);
                if (overlap * 10 < hmax * 7 || gap > hmax || contains(a, b) || contains(b, a)) continue;
                boxes[i] = a | b;
                gone[j] = true;
            }
        }
        std::vector<cv::Rect> left;
        for (size_t i = 0; i < boxes.size(); ++i)
            if (!gone[i]) left.push_back(boxes[i]);
        boxes.swap(left);
    }
    boxes.erase(std::remove_if(boxes.begin(), boxes.end(), [](const cv::Rect& b) { return b.height < 5 || b.width < 3; }),
                boxes.end());
    // A group holding another one is either a frame around its label (left out: its contents
    // are read) or a line holding a part of one of its own characters that row linking left
    // out (the top of a CJK character stacked over its lower part, as 宀 over 女 in 按, a
    // letter's hole, an accent): the held group then lies above or below a glyph of the line
    // (their columns overlap by half the narrower one), and is dropped, the line kept. A frame's
    // label lies between its glyphs (a rounded frame's sides), under none of them.
    std::vector<bool> part(boxes.size(), false), container(boxes.size(), false);
    for (size_t i = 0; i < boxes.size(); ++i)
        for (size_t j = 0; j < boxes.size(); ++j) {
            if (i == j || !contains(boxes[i], boxes[j])) continue;
            const cv::Rect &a = boxes[i], &b = boxes[j];
            bool stacked = false;
            for (const cv::Rect& g : glyphs) {
                if (g.x >= a.x + a.width) break;
                if (!contains(a, g) || (g & b).area() * 10 >= g.area() * 8) continue;  // not i's, or j's own
                int cols = std::min(g.x + g.width, b.x + b.width) - std::max(g.x, b.x);
                if (cols * 2 >= std::min(g.width, b.width)) {
                    stacked = true;
                    break;
                }
            }
            (stacked ? part[j] : container[i]) = true;
        }
    for (size_t i = 0; i < boxes.size(); ++i)
        if (!part[i] && !container[i]) out.push_back({boxes[i].x, boxes[i].y, boxes[i].width, boxes[i].height});
    std::sort(out.begin(), out.end(), [](const Rect& a, const Rect& b) { return a.y != b.y ? a.y < b.y : a.x < b.x; });
    return out;
}

namespace {

bool lightOnDark(const cv::Mat& crop) {
    // The background is most of the pixels: their median against the mean, which the text
    // pulls towards its own shade. (The margin alone can be mostly a button's frame.)
    int hist[256] = {0};
    for (int y = 0; y < crop.rows; ++y)
        for (int x = 0; x < crop.cols; ++x) ++hist[crop.at<uchar>(y, x)];
    int half = crop.rows * crop.cols / 2, seen = 0, median = 0;
    while (median < 255 && (seen += hist[median]) <= half) ++median;
    return median < cv::mean(crop)[0];
}

}  // namespace

Rect lineCut(const cv::Mat& grey, const Rect& r) {
    int m = std::max(2, r.h / 4);
    return r.grown(m).intersect(Rect{0, 0, grey.cols, grey.rows});
}

cv::Mat prepareLine(const cv::Mat& grey, const Rect& r, double target_height, double* scale, cv::Point* origin,
                    bool erase_frames) {
    Rect c = lineCut(grey, r);
    cv::Rect cut(c.x, c.y, c.w, c.h);
    cv::Mat crop = grey(cut).clone();
    if (lightOnDark(crop)) cv::bitwise_not(crop, crop);
    cv::normalize(crop, crop, 0, 255, cv::NORM_MINMAX);
    // Frames drawn around the label (Xaw's rounded buttons, focus boxes) are erased: dark
    // shapes that enclose other dark shapes, or taller than 3/4 of the cut (glyphs are at most
    // 2/3 of it). Tesseract reads a framed word as nothing.
    cv::Mat bin, labels, stats, centroids;
    if (erase_frames) cv::threshold(crop, bin, 0, 255, cv::THRESH_BINARY_INV | cv::THRESH_OTSU);
    int n = erase_frames ? cv::connectedComponentsWithStats(bin, labels, stats, centroids, 8, CV_32S) : 0;
    auto box = [&](int i) {
        return cv::Rect(stats.at<int>(i, cv::CC_STAT_LEFT), stats.at<int>(i, cv::CC_STAT_TOP),
                        stats.at<int>(i, cv::CC_STAT_WIDTH), stats.at<int>(i, cv::CC_STAT_HEIGHT));
    };
    for (int i = 1; i < n; ++i) {
        cv::Rect a = box(i);
        // Taller than any glyph of the proposal can be (its box plus the margin), or around others.
        bool frame = a.height * 4 > crop.rows * 3;
        for (int j = 1; j < n && !frame; ++j) {
            cv::Rect b = box(j);
            frame = j != i && b.x > a.x && b.y > a.y && b.x + b.width < a.x + a.width && b.y + b.height < a.y + a.height;
        }
        if (frame) crop.setTo(255, labels == i);
    }
    double f = std::clamp(target_height / std::max(1, r.h), 1.0, 4.0);
    cv::Mat big;
    if (f != 1.0)
        cv::resize(crop, big, cv::Size(), f, f, cv::INTER_CUBIC);
    else
        big = crop;
    cv::Mat padded;
    cv::copyMakeBorder(big, padded, 10, 10, 10, 10, cv::BORDER_CONSTANT, cv::Scalar(255));
    *scale = f;
    *origin = {cut.x, cut.y};
    return padded;
}

}  // namespace eacu
