#include "bench/BenchLocateSweep.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <stdexcept>

#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include "base/Clock.h"
#include "bench/Corpus.h"
#include "vision/Locator.h"
#include "vision/PreparedFrame.h"

namespace eacu {

namespace {

namespace fs = std::filesystem;

// Up to three places for a w x h crop on `frame`, on a grid, where the crop has detail (grey
// standard deviation >= 20) and nothing else on the frame correlates >= 0.95 with it.
std::vector<cv::Rect> cropPlaces(const cv::Mat& frame, int w, int h) {
    std::vector<cv::Rect> out;
    if (w > frame.cols || h > frame.rows) return out;
    cv::Mat grey;
    cv::cvtColor(frame, grey, cv::COLOR_BGR2GRAY);
    const double fys[] = {0.15, 0.35, 0.55, 0.75, 0.05, 0.95};
    const double fxs[] = {0.1, 0.45, 0.8};
    for (double fy : fys)
        for (double fx : fxs) {
            if (out.size() >= 3) return out;
            cv::Rect r(int(fx * (frame.cols - w)), int(fy * (frame.rows - h)), w, h);
            bool overlaps = false;
            for (const cv::Rect& o : out) overlaps = overlaps || (o & r).area() > 0;
            if (overlaps) continue;
            cv::Scalar mean, sd;
            cv::meanStdDev(grey(r), mean, sd);
            if (sd[0] < 20) continue;
            cv::Mat corr;
            cv::matchTemplate(grey, grey(r), corr, cv::TM_CCOEFF_NORMED);
            cv::patchNaNs(corr, -1.0);
            // The crop's own place (and a few pixels round it) does not count.
            cv::Rect own(std::max(0, r.x - 4), std::max(0, r.y - 4), 9, 9);
            own &= cv::Rect(0, 0, corr.cols, corr.rows);
            corr(own).setTo(-1.0);
            double mx = 0;
            cv::minMaxLoc(corr, nullptr, &mx);
            if (mx < 0.95) out.push_back(r);
        }
    return out;
}

SweepRow sweepOne(const std::string& kind, const cv::Mat& frame, const cv::Mat& source, int w, int h) {
    SweepRow row;
    row.frame = kind + " " + std::to_string(frame.cols) + "x" + std::to_string(frame.rows);
    row.w = w;
    row.h = h;
    Locator locator;
    std::vector<double> ms;
    for (const cv::Rect& r : cropPlaces(source, w, h)) {
        Template tpl;
        tpl.name = "crop " + std::to_string(w) + "x" + std::to_string(h);
        tpl.bgr = source(r).clone();
        double t0 = monotonicSeconds();
        PreparedFrame pf(frame);
        Match m = locator.locate(pf, {tpl}, LocateHints{}).match;
        ms.push_back((monotonicSeconds() - t0) * 1000);
        ++row.located;
        Point c = m.box.center();
        bool at_place = c.x >= r.x && c.x < r.x + r.width && c.y >= r.y && c.y < r.y + r.height;
        bool same_size = std::abs(m.box.w - w) <= std::max(2, w / 50) && std::abs(m.box.h - h) <= std::max(2, h / 50);
        if (m.found && at_place && same_size) ++row.hits;
    }
    Percentiles p = percentiles(ms);
    row.median_ms = p.median;
    row.max_ms = ms.empty() ? 0 : *std::max_element(ms.begin(), ms.end());
    return row;
}

}  // namespace

std::vector<SweepRow> templateSizeSweep(const std::vector<std::string>& shots) {
    std::vector<std::pair<std::string, cv::Mat>> frames;
    for (const std::string& s : shots) {
        cv::Mat img = cv::imread(s, cv::IMREAD_COLOR);
        if (!img.empty() && img.cols >= 1080) frames.emplace_back(s, img);
    }
    if (frames.empty()) throw std::runtime_error("template-size sweep: no screenshot of 1080 pixels' width or more");
    auto landscape = std::max_element(frames.begin(), frames.end(), [](const auto& a, const auto& b) {
        return a.second.total() < b.second.total();
    });
    for (auto it = frames.begin(); it != frames.end(); ++it)
        if (fs::path(it->first).filename() == "glossary@1440x900x1.5.png") landscape = it;
    const cv::Mat& land = landscape->second;

    // Portrait: the landscape shot's left 1080 columns, then another shot's, to 1920 rows.
    cv::Mat portrait;
    const int top = std::min(land.rows, 1920);
    for (const auto& [path, img] : frames) {
        if (path == landscape->first || img.rows < 1920 - top) continue;
        cv::vconcat(land(cv::Rect(0, 0, 1080, top)), img(cv::Rect(0, 0, 1080, 1920 - top)), portrait);
        break;
    }
    // The landscape shot as a JPEG (quality 85), searched for crops of the lossless original.
    std::vector<unsigned char> jpg;
    cv::imencode(".jpg", land, jpg, {cv::IMWRITE_JPEG_QUALITY, 85});
    cv::Mat jpeg = cv::imdecode(jpg, cv::IMREAD_COLOR);

    const int sizes[][2] = {{100, 60}, {300, 150}, {600, 300}, {900, 500}};
    std::vector<SweepRow> rows;
    for (const auto& s : sizes) rows.push_back(sweepOne("landscape", land, land, s[0], s[1]));
    if (!portrait.empty())
        for (const auto& s : sizes) rows.push_back(sweepOne("portrait", portrait, portrait, s[0], s[1]));
    for (const auto& s : sizes) rows.push_back(sweepOne("jpeg", jpeg, land, s[0], s[1]));
    return rows;
}

}  // namespace eacu
