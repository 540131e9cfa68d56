// OcrEngine: the page image made ready for Tesseract's layout analysis (grey, dark bands
// inverted, enlarged, cut into bands) and its text height.
#include "vision/ocr/OcrEngineImpl.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include <opencv2/imgproc.hpp>

namespace eacu {

namespace ocr_detail {

cv::Mat toGrey(const cv::Mat& img) {
    if (img.depth() != CV_8U)
        throw std::invalid_argument("OCR: expected an 8-bit image, got depth " + std::to_string(img.depth()));
    cv::Mat grey;
    switch (img.channels()) {
        case 1: grey = img; break;
        case 3: cv::cvtColor(img, grey, cv::COLOR_BGR2GRAY); break;
        case 4: cv::cvtColor(img, grey, cv::COLOR_BGRA2GRAY); break;
        default:
            throw std::invalid_argument("OCR: expected a grey, BGR or BGRA image, got " +
                                        std::to_string(img.channels()) + " channels");
    }
    return grey;
}

std::vector<int> bandCuts(const cv::Mat& grey, int bands) {
    std::vector<int> cuts{0};
    if (bands <= 1) {
        cuts.push_back(grey.rows);
        return cuts;
    }
    std::vector<double> detail(grey.rows, 0.0);
    for (int y = 0; y < grey.rows; ++y) {
        const uchar* p = grey.ptr<uchar>(y);
        long s = 0;
        for (int x = 1; x < grey.cols; ++x) s += std::abs(int(p[x]) - int(p[x - 1]));
        detail[y] = double(s);
    }
    const int window = grey.rows / (bands * 4);
    for (int k = 1; k < bands; ++k) {
        int want = int(std::lround(double(grey.rows) * k / bands));
        int best = want;
        for (int y = std::max(cuts.back() + 1, want - window); y <= std::min(grey.rows - 1, want + window); ++y)
            if (detail[y] < detail[best] || (detail[y] == detail[best] && std::abs(y - want) < std::abs(best - want)))
                best = y;
        cuts.push_back(best);
    }
    cuts.push_back(grey.rows);
    return cuts;
}

cv::Mat darkBackgroundInverted(const cv::Mat& grey, double text_height) {
    if (grey.rows < 8 || grey.cols < 8) return grey;
    cv::Mat small, bg, mask, labels, stats, centroids;
    cv::resize(grey, small, cv::Size((grey.cols + 3) / 4, (grey.rows + 3) / 4), 0, 0, cv::INTER_AREA);
    cv::medianBlur(small, bg, 5);
    cv::threshold(bg, mask, 99, 255, cv::THRESH_BINARY_INV);
    int n = cv::connectedComponentsWithStats(mask, labels, stats, centroids, 8, CV_32S);
    if (n <= 1) return grey;
    cv::Mat out;
    const Rect image{0, 0, grey.cols, grey.rows};
    const int max_h = std::max(48, int(std::lround(3 * text_height)));
    for (int i = 1; i < n; ++i) {
        if (stats.at<int>(i, cv::CC_STAT_AREA) < 4 || stats.at<int>(i, cv::CC_STAT_HEIGHT) * 4 > max_h + 8) continue;
        Rect r = Rect{stats.at<int>(i, cv::CC_STAT_LEFT) * 4, stats.at<int>(i, cv::CC_STAT_TOP) * 4,
                      stats.at<int>(i, cv::CC_STAT_WIDTH) * 4, stats.at<int>(i, cv::CC_STAT_HEIGHT) * 4}
                     .grown(4)
                     .intersect(image);
        cv::Mat dark = grey(cv::Rect(r.x, r.y, r.w, r.h)) < 100;
        int y0 = -1, y1 = -1, x0 = -1, x1 = -1;
        for (int y = 0; y < dark.rows; ++y)
            if (cv::countNonZero(dark.row(y)) * 2 >= dark.cols) y0 = y0 < 0 ? y : y0, y1 = y;
        for (int x = 0; x < dark.cols; ++x)
            if (cv::countNonZero(dark.col(x)) * 2 >= dark.rows) x0 = x0 < 0 ? x : x0, x1 = x;
        if (y0 < 0 || x0 < 0) continue;
        if (out.empty()) out = grey.clone();
        cv::Mat box = out(cv::Rect(r.x + x0, r.y + y0, x1 - x0 + 1, y1 - y0 + 1));
        cv::bitwise_not(box, box);
    }
    return out.empty() ? grey : out;
}

cv::Mat enlarge(const cv::Mat& grey, double f) {
    cv::Mat big;
    if (f != 1.0)
        cv::resize(grey, big, cv::Size(), f, f, cv::INTER_CUBIC);
    else
        big = grey.isContinuous() ? grey : grey.clone();
    return big;
}

Rect unscale(const Rect& r, double f, Point offset) {
    int x0 = int(std::floor(r.x / f)), y0 = int(std::floor(r.y / f));
    int x1 = int(std::ceil((r.x + r.w) / f)), y1 = int(std::ceil((r.y + r.h) / f));
    return {x0 + offset.x, y0 + offset.y, x1 - x0, y1 - y0};
}

}  // namespace ocr_detail

double OcrEngine::estimateTextHeight(const cv::Mat& grey) {
    if (grey.empty()) return 0;
    cv::Mat edges;
    cv::Canny(grey, edges, 60, 160);
    cv::Mat labels, stats, centroids;
    int n = cv::connectedComponentsWithStats(edges, labels, stats, centroids, 8, CV_32S);
    std::vector<int> heights;
    heights.reserve(n);
    for (int i = 1; i < n; ++i) {
        int w = stats.at<int>(i, cv::CC_STAT_WIDTH), h = stats.at<int>(i, cv::CC_STAT_HEIGHT);
        // Glyph-like: not a speck, not a rule or a frame, not a big picture.
        if (h < 4 || h > 200 || w > 3 * h || w < 2) continue;
        heights.push_back(h);
    }
    if (heights.size() < 5) return 0;
    std::nth_element(heights.begin(), heights.begin() + heights.size() / 2, heights.end());
    return heights[heights.size() / 2];
}

}  // namespace eacu
