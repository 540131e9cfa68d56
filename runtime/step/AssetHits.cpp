#include "step/AssetHits.h"

#include <cmath>
#include <optional>

#include <opencv2/imgproc.hpp>

namespace eacu {

std::vector<SomAssetHit> findAssetHits(const AssetLibrary& lib, const std::string& script_dir, const Frame& frame,
                                       const std::vector<std::string>& apps, const Matcher& matcher,
                                       CancelToken& cancel) {
    // Screening at half resolution: a template whose best half-scale score is far below its
    // threshold is absent; otherwise it is confirmed by the full matcher around the candidate.
    cv::Mat grey, half;
    cv::cvtColor(frame.bgr, grey, cv::COLOR_BGR2GRAY);
    cv::resize(grey, half, {}, 0.5, 0.5, cv::INTER_AREA);
    std::vector<SomAssetHit> hits;
    for (const std::string& name : lib.names()) {
        cancel.check();
        const Asset* a = lib.find(name);
        if (!a) continue;
        if (!apps.empty()) {
            bool want = false;
            for (const auto& app : apps) want |= app == a->app;
            if (!want) continue;
        }
        Template tpl;
        try {
            tpl = lib.resolve(name, script_dir);
        } catch (const std::exception&) {
            continue;  // an unreadable image is not an element
        }
        double ratio = frame.scale / tpl.scale;
        if (std::abs(ratio - 1.0) > 1e-3) {
            cv::Mat r;
            cv::resize(tpl.bgr, r, {}, ratio, ratio, ratio < 1 ? cv::INTER_AREA : cv::INTER_LINEAR);
            tpl.bgr = r;
            if (!tpl.mask.empty()) {
                cv::resize(tpl.mask, r, tpl.bgr.size(), 0, 0, cv::INTER_NEAREST);
                tpl.mask = r;
            }
        }
        if (tpl.bgr.cols > frame.bgr.cols || tpl.bgr.rows > frame.bgr.rows) continue;
        std::optional<Rect> region;
        if (tpl.mask.empty() && tpl.bgr.cols >= 12 && tpl.bgr.rows >= 12) {
            cv::Mat tg, th, res;
            cv::cvtColor(tpl.bgr, tg, cv::COLOR_BGR2GRAY);
            cv::resize(tg, th, {}, 0.5, 0.5, cv::INTER_AREA);
            cv::Scalar mean, sd;
            cv::meanStdDev(th, mean, sd);
            if (sd[0] > 2.0 && th.cols <= half.cols && th.rows <= half.rows) {
                cv::matchTemplate(half, th, res, cv::TM_CCOEFF_NORMED);
                double best;
                cv::Point at;
                cv::minMaxLoc(res, nullptr, &best, nullptr, &at);
                if (std::isfinite(best)) {
                    if (best < tpl.threshold - 0.25) continue;
                    Rect r = Rect{at.x * 2, at.y * 2, tpl.bgr.cols, tpl.bgr.rows}.grown(6).intersect(
                        {0, 0, frame.bgr.cols, frame.bgr.rows});
                    if (r.w >= tpl.bgr.cols && r.h >= tpl.bgr.rows) region = r;
                }
            }
        }
        Match m = matcher.locate(frame.bgr, tpl, region);
        if (!m.found) continue;
        hits.push_back({a->aliases.empty() ? a->qualifiedName() : a->aliases.front(), m.box, m.score});
    }
    // An asset found inside a larger asset's box (a digit glyph on a key) is part of it.
    std::vector<SomAssetHit> kept;
    for (size_t i = 0; i < hits.size(); ++i) {
        bool inside = false;
        const Rect& b = hits[i].box;
        for (size_t j = 0; j < hits.size() && !inside; ++j) {
            const Rect& c = hits[j].box;
            if (i == j || c.area() <= b.area()) continue;
            inside = b.intersect(c).area() >= 0.8 * b.area();
        }
        if (!inside) kept.push_back(hits[i]);
    }
    return kept;
}

}  // namespace eacu
