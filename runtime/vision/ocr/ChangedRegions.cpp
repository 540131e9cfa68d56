#include "vision/ocr/ChangedRegions.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>

namespace eacu {

namespace {

bool touches(const Rect& a, const Rect& b) { return a.intersect(b).area() > 0; }

}  // namespace

std::vector<Rect> changedRegions(const cv::Mat& grey, const cv::Mat& prev, const std::vector<Rect>& lines, int margin) {
    if (grey.size() != prev.size() || grey.type() != prev.type() || grey.type() != CV_8UC1)
        throw std::invalid_argument("changedRegions: expected two 8-bit grey images of one size");
    const Rect image{0, 0, grey.cols, grey.rows};
    margin = std::max(0, margin);
    // Runs of changed rows (a row compared as bytes: screen captures repeat exactly), each with
    // the columns that changed in it.
    std::vector<Rect> boxes;
    int run0 = -1, last = -1, x0 = grey.cols, x1 = -1;
    auto close = [&]() {
        if (run0 >= 0) boxes.push_back(Rect{x0, run0, x1 - x0 + 1, last - run0 + 1}.grown(margin).intersect(image));
        run0 = -1, x0 = grey.cols, x1 = -1;
    };
    for (int y = 0; y < grey.rows; ++y) {
        const uchar* a = grey.ptr<uchar>(y);
        const uchar* b = prev.ptr<uchar>(y);
        if (std::memcmp(a, b, size_t(grey.cols)) == 0) continue;
        int l = 0, r = grey.cols - 1;
        while (a[l] == b[l]) ++l;
        while (a[r] == b[r]) --r;
        if (run0 >= 0 && y - last > margin) close();
        if (run0 < 0) run0 = y;
        last = y;
        x0 = std::min(x0, l);
        x1 = std::max(x1, r);
    }
    close();
    // Each grown by the lines it touches (each line whole, 2 px around it: not by the margin
    // again, which would run on through a paragraph line by line), then merged until none
    // overlap.
    for (Rect& b : boxes) {
        Rect grown = b;
        for (const Rect& l : lines)
            if (touches(b, l)) grown = grown.united(l.grown(2).intersect(image));
        b = grown;
    }
    for (bool merged = true; merged;) {
        merged = false;
        for (size_t i = 0; i < boxes.size(); ++i)
            for (size_t j = i + 1; j < boxes.size();)
                if (touches(boxes[i], boxes[j])) {
                    boxes[i] = boxes[i].united(boxes[j]);
                    boxes.erase(boxes.begin() + long(j));
                    merged = true;
                } else {
                    ++j;
                }
    }
    return boxes;
}

bool samePixels(const cv::Mat& grey, const cv::Mat& prev, const Rect& box) {
    Rect r = box.intersect(Rect{0, 0, std::min(grey.cols, prev.cols), std::min(grey.rows, prev.rows)});
    if (r.empty()) return true;
    const size_t bytes = size_t(r.w) * grey.elemSize();
    for (int y = r.y; y < r.y + r.h; ++y)
        if (std::memcmp(grey.ptr<uchar>(y) + r.x * grey.elemSize(), prev.ptr<uchar>(y) + r.x * prev.elemSize(), bytes) != 0)
            return false;
    return true;
}

bool overlapsAny(const Rect& box, const std::vector<Rect>& others) {
    for (const Rect& o : others)
        if (box.intersect(o).area() * 4 >= std::min(box.area(), o.area())) return true;
    return false;
}

}  // namespace eacu
