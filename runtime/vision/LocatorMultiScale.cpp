// The locator's multi-scale search: coarse candidates at every scale, confirmed on a reduced
// level, the best refined at full resolution, shared out between threads.
#include "vision/LocatorStages.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <mutex>
#include <thread>

#include "vision/Nms.h"

namespace eacu::locator {

Confirmed confirmCandidate(Search& search, const Candidate& c, double log_range) {
    double f = search.confirmLevel(c.scale);
    return {search.confirmAt(c.pos, c.scale, c.margin, log_range, 2, f), std::max(c.margin.x, c.margin.y) + int(std::ceil(f))};
}

std::vector<Match> refineBest(Search& search, std::vector<Confirmed> pool, int keep, double log_range, double sure,
                              double tie, double threshold) {
    std::sort(pool.begin(), pool.end(), [](const Confirmed& a, const Confirmed& b) { return a.match.score > b.match.score; });
    std::vector<Match> out;
    const Confirmed* off_colour = nullptr;
    double floor = -2;  // once one is sure: only candidates that confirmed about as well
    for (int i = 0; i < int(pool.size()) && int(out.size()) < keep && i < 3 * keep; ++i) {
        if (pool[i].match.score < -1.5 || pool[i].match.score < floor) continue;
        // Too far below the threshold for the refine to lift it there: the rest are lower.
        if (pool[i].match.score < threshold - kRefineReach) {
            // The best of them as confirmed, for the diagnostics of a target not found.
            if (out.empty() && !off_colour) out.push_back(pool[i].match);
            break;
        }
        if (!search.colourAgrees(pool[i].match)) {  // judged before the costly refine
            if (!off_colour) off_colour = &pool[i];
            continue;
        }
        Match m = search.refine(pool[i].match, log_range, pool[i].margin);
        if (m.score > -1.5) out.push_back(m);
        if (m.score >= sure && floor < -1.5) floor = pool[i].match.score - tie;
    }
    if (out.empty() && off_colour) {
        Match m = search.refine(off_colour->match, log_range, off_colour->margin);
        if (m.score > -1.5) out.push_back(m);
    }
    return nonMaximumSuppression(std::move(out), 0.3, keep);
}

std::vector<Match> multiScale(Search& search, const std::vector<double>& scales, const LocatorOptions& o,
                              double step_log, double threshold) {
    std::mutex mutex, early_refine;
    std::vector<Confirmed> pool;
    std::vector<Match> early;
    std::vector<Match> refined;  // the best of a scale refined at once, not sure
    std::atomic<size_t> next{0};
    std::atomic<bool> done{false};
    double sure = std::max(o.sure_score, threshold);
    auto worker = [&] {
        for (;;) {
            size_t i = next++;
            if (i >= scales.size() || done) return;
            std::vector<Confirmed> mine;
            for (const Candidate& c : search.coarse(scales[i], o.candidates_per_scale))
                mine.push_back(confirmCandidate(search, c, step_log / 2));
            std::sort(mine.begin(), mine.end(), [](const Confirmed& a, const Confirmed& b) { return a.match.score > b.match.score; });
            // The best of the scale is refined at once when it may be the target (a large
            // template's reduced confirm level blurs its detail: an exact copy can confirm at
            // 0.85 there). Sure and of agreeing colours, it ends the search, with every
            // candidate of the scale that confirmed about as well (identical elements on one
            // screen are then all there for the reading-order tie-break).
            if (!mine.empty() && mine.front().match.score >= threshold - kRefineReach) {
                // One such refine at a time: the likeliest scales come first, and once one is
                // sure the others have nothing left to do (two at once share the memory bus).
                std::lock_guard<std::mutex> one(early_refine);
                if (done) return;
                Match top = search.refine(mine.front().match, step_log / 4, mine.front().margin, &done);
                const bool agrees = top.score > -1.5 && search.colourAgrees(top);
                if (agrees && top.score < sure && !done) {
                    // Not sure, it is kept as refined, not refined again: the confirm scores of
                    // other scales, on other levels, do not rank it as its refined score does.
                    std::lock_guard<std::mutex> lock(mutex);
                    refined.push_back(top);
                    mine.erase(mine.begin());
                } else if (agrees && top.score >= sure) {
                    std::vector<Match> found{top};
                    double floor = mine.front().match.score - o.tie_margin - 0.02;
                    for (size_t j = 1; j < mine.size() && mine[j].match.score >= floor; ++j) {
                        Match m = search.refine(mine[j].match, step_log / 4, mine[j].margin);
                        if (m.score >= sure && search.colourAgrees(m)) found.push_back(m);
                    }
                    std::lock_guard<std::mutex> lock(mutex);
                    early.insert(early.end(), found.begin(), found.end());
                    done = true;
                }
            }
            std::lock_guard<std::mutex> lock(mutex);
            pool.insert(pool.end(), mine.begin(), mine.end());
        }
    };
    int n = std::max(1, std::min<int>(o.threads, int(scales.size())));
    std::vector<std::thread> threads;
    for (int t = 1; t < n; ++t) threads.emplace_back(worker);
    worker();
    for (auto& t : threads) t.join();
    // A sure match ends the search: the other scales' candidates confirmed less well.
    if (!early.empty()) return nonMaximumSuppression(std::move(early), 0.3, o.refine_budget + 1);
    std::vector<Match> out =
        refineBest(search, std::move(pool), o.refine_budget, step_log / 4, sure, o.tie_margin + 0.02, threshold);
    out.insert(out.end(), refined.begin(), refined.end());
    return nonMaximumSuppression(std::move(out), 0.3, o.refine_budget + 1);
}

}  // namespace eacu::locator
