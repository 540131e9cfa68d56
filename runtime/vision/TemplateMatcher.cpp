#include "vision/TemplateMatcher.h"

#include <chrono>
#include <cmath>
#include <stdexcept>

#include <opencv2/imgproc.hpp>

#include "vision/ColourAgreement.h"
#include "vision/Nms.h"

namespace eacu {
namespace {

// Standard deviation below which a template counts as plain (one colour): correlation is
// undefined for it.
constexpr double kPlainStdDev = 1.0;

bool isPlain(const cv::Mat& img, const cv::Mat& mask) {
    cv::Scalar mean, stddev;
    cv::meanStdDev(img, mean, stddev, mask);
    return stddev[0] + stddev[1] + stddev[2] < kPlainStdDev;
}

Rect searchArea(const cv::Mat& frame, const Template& tpl, std::optional<Rect> region) {
    Rect full{0, 0, frame.cols, frame.rows};
    Rect area = region ? region->intersect(full) : full;
    if (area.w < tpl.bgr.cols || area.h < tpl.bgr.rows)
        throw std::invalid_argument(
            "template \"" + tpl.name + "\" (" + std::to_string(tpl.bgr.cols) + "x" +
            std::to_string(tpl.bgr.rows) + ") is larger than the searched area " + area.str());
    return area;
}

// Score map of the template over `area`: scores in [-1, 1], NaN/inf (flat windows) set to -1.
cv::Mat scoreMap(const cv::Mat& frame, const Template& tpl, const Rect& area) {
    cv::Mat roi = frame(cv::Rect(area.x, area.y, area.w, area.h));
    cv::Mat result;
    if (isPlain(tpl.bgr, tpl.mask)) {
        cv::matchTemplate(roi, tpl.bgr, result, cv::TM_SQDIFF_NORMED, tpl.mask);
        result = 1.0 - result;
    } else {
        cv::Mat grey, tgrey;
        cv::cvtColor(roi, grey, cv::COLOR_BGR2GRAY);
        cv::cvtColor(tpl.bgr, tgrey, cv::COLOR_BGR2GRAY);
        cv::matchTemplate(grey, tgrey, result, cv::TM_CCOEFF_NORMED, tpl.mask);
    }
    cv::patchNaNs(result, -1.0);
    cv::threshold(result, result, 1.0, 1.0, cv::THRESH_TRUNC);  // inf from flat masked windows
    return result;
}

Match makeMatch(const Template& tpl, const Rect& area, cv::Point loc, double score) {
    Match m;
    m.box = {area.x + loc.x, area.y + loc.y, tpl.bgr.cols, tpl.bgr.rows};
    m.score = score;
    m.threshold = tpl.threshold;
    m.scale = 1.0;
    m.method = "template";
    Point c = m.box.center();
    m.target = {c.x + tpl.offset.x, c.y + tpl.offset.y};
    return m;
}

double millisSince(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

double TemplateMatcher::colorScore(const cv::Mat& frame, const Template& tpl, const Rect& box) {
    cv::Mat crop = frame(cv::Rect(box.x, box.y, box.w, box.h));
    if (!isPlain(tpl.bgr, tpl.mask)) return chromaAgreement(crop, tpl.bgr, tpl.mask);
    cv::Mat r;
    cv::matchTemplate(crop, tpl.bgr, r, cv::TM_SQDIFF_NORMED, tpl.mask);
    double v = r.at<float>(0, 0);
    return std::isnan(v) ? 0.0 : 1.0 - v;
}

Match TemplateMatcher::locate(const cv::Mat& frame, const Template& tpl,
                              std::optional<Rect> region) const {
    auto t0 = std::chrono::steady_clock::now();
    Rect area = searchArea(frame, tpl, region);
    cv::Mat result = scoreMap(frame, tpl, area);
    double maxVal = 0;
    cv::Point maxLoc;
    cv::minMaxLoc(result, nullptr, &maxVal, nullptr, &maxLoc);
    Match m = makeMatch(tpl, area, maxLoc, maxVal);
    m.color_score = colorScore(frame, tpl, m.box);
    m.found = m.score >= tpl.threshold && m.color_score >= tpl.threshold;
    m.ms = millisSince(t0);
    return m;
}

std::vector<Match> TemplateMatcher::findAll(const cv::Mat& frame, const Template& tpl,
                                            std::optional<Rect> region, int max_results) const {
    auto t0 = std::chrono::steady_clock::now();
    Rect area = searchArea(frame, tpl, region);
    cv::Mat result = scoreMap(frame, tpl, area);
    // Local maxima above the threshold: a pixel equal to the max of its neighbourhood
    // (half a template wide) is a peak.
    cv::Mat dilated;
    cv::Mat kernel = cv::getStructuringElement(
        cv::MORPH_RECT, {std::max(3, tpl.bgr.cols / 2 | 1), std::max(3, tpl.bgr.rows / 2 | 1)});
    cv::dilate(result, dilated, kernel);
    cv::Mat peaks = (result >= dilated) & (result >= tpl.threshold);
    std::vector<cv::Point> locs;
    cv::findNonZero(peaks, locs);
    std::vector<Match> candidates;
    candidates.reserve(locs.size());
    for (const cv::Point& p : locs) candidates.push_back(makeMatch(tpl, area, p, result.at<float>(p)));
    std::vector<Match> kept;
    for (Match& m : nonMaximumSuppression(std::move(candidates), nms_iou_, 4 * max_results)) {
        m.color_score = colorScore(frame, tpl, m.box);
        m.found = m.color_score >= tpl.threshold;
        if (m.found) kept.push_back(m);
        if (int(kept.size()) >= max_results) break;
    }
    double ms = millisSince(t0);
    for (Match& m : kept) m.ms = ms;
    return kept;
}

}  // namespace eacu
