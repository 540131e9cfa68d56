// The locator's feature stage: ORB keypoints and a RANSAC homography for textured templates.
#include "vision/LocatorStages.h"

#include <algorithm>
#include <cmath>

#include <opencv2/calib3d.hpp>
#include <opencv2/features2d.hpp>
#include <opencv2/imgproc.hpp>

namespace eacu::locator {

Match featureStage(Search& search, const PreparedFrame& pf, const LocatorOptions& o, bool* ran) {
    Match none;
    none.score = -2;
    *ran = false;
    const cv::Mat& tg = search.tgrey();
    // Features are for textured images (icons, pictures) of some size; a line of text has few
    // stable keypoints and is left to the template stages. Very small images are upscaled so
    // that ORB's patches fit.
    double up = std::max(1.0, 24.0 / std::min(tg.cols, tg.rows));
    cv::Mat t = up > 1 ? resizeTo(tg, {int(tg.cols * up), int(tg.rows * up)}) : tg;
    auto orb = cv::ORB::create(500, 1.2f, 8, 15, 0, 2, cv::ORB::HARRIS_SCORE, 15);
    std::vector<cv::KeyPoint> tk, fk;
    cv::Mat td, fd;
    orb->detectAndCompute(t, cv::noArray(), tk, td);
    if (tk.size() < 25) return none;  // too little texture for features: not attempted
    *ran = true;
    const Rect& a = search.area();
    cv::Mat fg = pf.grey()(cv::Rect(a.x, a.y, a.w, a.h));
    auto forb = cv::ORB::create(8000, 1.2f, 8, 15, 0, 2, cv::ORB::HARRIS_SCORE, 15);
    forb->detectAndCompute(fg, cv::noArray(), fk, fd);
    if (fk.size() < 4 || fd.empty()) return none;
    cv::BFMatcher matcher(cv::NORM_HAMMING);
    std::vector<std::vector<cv::DMatch>> knn;
    matcher.knnMatch(td, fd, knn, 2);
    std::vector<cv::Point2f> src, dst;
    for (const auto& m : knn)
        if (m.size() == 2 && m[0].distance < 0.75f * m[1].distance) {
            src.push_back(tk[m[0].queryIdx].pt);
            dst.push_back(fk[m[0].trainIdx].pt);
        }
    if (src.size() < 6) return none;
    cv::Mat h = cv::findHomography(src, dst, cv::RANSAC, 5.0);
    if (h.empty()) return none;
    std::vector<cv::Point2f> corners = {{0, 0}, {float(t.cols), 0}, {float(t.cols), float(t.rows)}, {0, float(t.rows)}}, proj;
    cv::perspectiveTransform(corners, proj, h);
    cv::Rect2f bb = cv::boundingRect(proj);
    double scale = std::sqrt(std::max(0.0f, bb.area()) / (double(tg.cols) * tg.rows));
    if (!(scale >= o.min_scale && scale <= o.max_scale)) return none;
    Point approx{a.x + int(bb.x), a.y + int(bb.y)};
    Match m = search.confirmAt(approx, scale, int(4 + 0.1 * std::max(bb.width, bb.height)), std::log(1.1), 3);
    return search.refine(m, std::log(1.03), 4);
}

}  // namespace eacu::locator
