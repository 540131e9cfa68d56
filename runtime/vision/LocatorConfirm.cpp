// The locator's confirms of a located candidate: the grey correlation at the lower of the two
// resolutions, the colour agreement, the parts score and the text confirm.
#include "vision/LocatorStages.h"

#include <algorithm>
#include <cmath>

#include <opencv2/imgproc.hpp>

#include "vision/ColourAgreement.h"
#include "vision/Correlation.h"
#include "vision/ocr/TextConfirm.h"

namespace eacu::locator {

double partsScore(const cv::Mat& patch, const cv::Mat& tpl) {
    int k = std::clamp(int(std::lround(double(tpl.cols) / std::max(1, tpl.rows))), 2, 8);
    double worst = 2;
    for (int i = 0; i < k; ++i) {
        int x0 = tpl.cols * i / k, x1 = tpl.cols * (i + 1) / k;
        if (x1 - x0 < 2) continue;
        cv::Mat strip = tpl(cv::Rect(x0, 0, x1 - x0, tpl.rows));
        cv::Scalar mean, sd;
        cv::meanStdDev(strip, mean, sd);
        if (sd[0] < 10) continue;
        int a0 = std::max(0, x0 - 1), a1 = std::min(patch.cols, x1 + 1);
        cv::Mat r;
        correlate(patch(cv::Rect(a0, 0, a1 - a0, patch.rows)), strip, r);
        double v;
        cv::minMaxLoc(r, nullptr, &v);
        worst = std::min(worst, v);
    }
    return worst > 1.5 ? 1.0 : worst;
}

void Search::rescore(Match& m) {
    // A box already rescored (a candidate judged for colour, then finished) is not done again.
    const auto key = std::make_tuple(m.box.x, m.box.y, m.box.w, m.box.h);
    {
        std::lock_guard<std::mutex> lock(mutex_);
        if (auto it = rescored_.find(key); it != rescored_.end()) {
            m.score = it->second.score;
            m.color_score = it->second.color_score;
            m.parts_score = it->second.parts_score;
            m.box = it->second.box;
            return;
        }
    }
    const cv::Mat& frame_bgr = pf_.bgr();
    cv::Rect bounds(0, 0, frame_bgr.cols, frame_bgr.rows);
    double s = m.box.w / double(tpl_.bgr.cols);
    bool shrink_frame = s > 1.02, shrink_tpl = s < 0.98;
    cv::Mat tb = tpl_.bgr, tm = tpl_.mask;
    if (shrink_tpl) {
        tb = resizeTo(tpl_.bgr, {m.box.w, m.box.h});
        if (!tm.empty()) tm = resizeTo(tpl_.mask, {m.box.w, m.box.h}, true);
    }
    // At its own size the template's grey and zero-mean copies are the search's (at(1)).
    cv::Mat tg;
    ZeroMeanTemplate tz;
    const Scaled* own = !shrink_tpl && tm.empty() ? at(1.0) : nullptr;
    if (own && own->grey.size() == tb.size()) {
        tg = own->grey;
        tz = own->zm;
    } else {
        cv::cvtColor(tb, tg, cv::COLOR_BGR2GRAY);
        if (tm.empty()) tz = ZeroMeanTemplate(tg);
    }
    double best = -2;
    Rect best_box = m.box;
    cv::Mat best_pg, best_patch;
    // At the template's own size the shifted patches are views of one grey region.
    const bool same_size = !shrink_frame && !shrink_tpl && m.box.w == tb.cols && m.box.h == tb.rows;
    cv::Rect outer = cv::Rect(m.box.x - 1, m.box.y - 1, m.box.w + 2, m.box.h + 2) & bounds;
    if (same_size && outer.width >= tg.cols && outer.height >= tg.rows) {  // one correlation, every shift
        cv::Mat outer_grey = pf_.greyRegion(outer), res;
        if (tm.empty()) correlate(outer_grey, tg, tz, res);
        else cv::matchTemplate(outer_grey, tg, res, cv::TM_CCOEFF_NORMED, tm);
        cv::patchNaNs(res, -1.0);
        double v;
        cv::Point at;
        cv::minMaxLoc(res, nullptr, &v, nullptr, &at);
        cv::Rect r(outer.x + at.x, outer.y + at.y, tg.cols, tg.rows);
        best = std::min(v, 1.0);
        best_box = {r.x, r.y, r.width, r.height};
        best_pg = outer_grey(r - outer.tl());
        best_patch = frame_bgr(r);
    }
    const bool shifted_done = best > -1.5;
    for (int dy = -1; dy <= 1 && !shifted_done; ++dy)
        for (int dx = -1; dx <= 1; ++dx) {
            cv::Rect r(m.box.x + dx, m.box.y + dy, m.box.w, m.box.h);
            if ((r & bounds) != r) continue;
            cv::Mat patch = frame_bgr(r);
            if (shrink_frame) patch = resizeTo(patch, tb.size());
            else if (shrink_tpl) {
                cv::Mat soft;
                cv::GaussianBlur(patch, soft, {0, 0}, 0.5);
                patch = soft;
            } else if (patch.size() != tb.size()) {
                patch = resizeTo(patch, tb.size());
            }
            cv::Mat pg, res;
            cv::cvtColor(patch, pg, cv::COLOR_BGR2GRAY);
            if (tm.empty()) correlate(pg, tg, tz, res);
            else cv::matchTemplate(pg, tg, res, cv::TM_CCOEFF_NORMED, tm);
            double v = res.at<float>(0, 0);
            if (std::isnan(v)) v = -1;
            if (v > best) {
                best = std::min(v, 1.0);
                best_box = {r.x, r.y, r.width, r.height};
                best_pg = pg;
                best_patch = patch;
            }
        }
    if (best > -1.5) {
        m.score = best;
        const cv::Size at = colourSize(tb.size());
        const cv::Mat mask = tm.empty() || at == tm.size() ? tm : resizeTo(tm, at, true);
        m.color_score = chromaAgreementOfPlanes(colourPlanes(best_patch, at), templateChroma(tb, at), mask);
        m.box = best_box;
        m.parts_score = tm.empty() ? partsScore(best_pg, tg) : best;
        std::lock_guard<std::mutex> lock(mutex_);
        rescored_[key] = m;
    }
}

cv::Mat Search::templateChroma(const cv::Mat& sized, cv::Size at) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto key = std::make_tuple(sized.cols, sized.rows, at.width, at.height);
    auto it = chroma_cache_.find(key);
    if (it == chroma_cache_.end()) it = chroma_cache_.emplace(key, colourPlanes(sized, at)).first;
    return it->second;
}

bool Search::colourAgrees(Match m) {
    rescore(m);
    return m.color_score >= tpl_.threshold;
}

Match finish(Search& s, Match m, const std::string& method, double required) {
    const Template& t = s.tpl();
    m.method = method;
    m.threshold = required;
    if (m.score < -1.5) {  // nothing was confirmed
        m.score = 0;
        m.found = false;
        return m;
    }
    s.rescore(m);
    m.found = m.score >= required && m.color_score >= required &&
              m.parts_score >= required - s.options().parts_slack;
    Point c = m.box.center();
    double k = m.box.w / double(std::max(1, t.bgr.cols));
    m.target = {c.x + int(std::lround(t.offset.x * k)), c.y + int(std::lround(t.offset.y * k))};
    return m;
}

TextVerdict Search::textVerdict(const Rect& box) {
    auto key = std::make_tuple(box.x, box.y, box.w, box.h);
    {
        std::lock_guard lock(mutex_);
        if (auto it = verdicts_.find(key); it != verdicts_.end()) return it->second;
    }
    TextVerdict v = confirmText(pf_.bgr(), tpl_, box);
    std::lock_guard lock(mutex_);
    verdicts_[key] = v;
    return v;
}

void confirmWords(Search& search, Match& m) {
    const LocatorOptions& o = search.options();
    if (!m.found || !o.text_confirm || m.score >= o.text_confirm_below) return;
    try {
        TextVerdict v = search.textVerdict(m.box);
        if (v.judged && !v.agrees) {
            m.found = false;
            m.veto = "reads \"" + v.frame_text + "\" where the template reads \"" + v.template_text + "\"";
            search.lookalike_rejected = true;
        } else if (!v.judged && v.template_legible && search.lookalike_rejected) {
            m.found = false;
            m.veto = "shows no legible \"" + v.template_text + "\" (read \"" + v.frame_text +
                     "\"), and a look-alike of it was rejected on this screen";
        }
    } catch (const std::exception&) {
    }
}

}  // namespace eacu::locator
