#include "vision/Nms.h"

#include <algorithm>

namespace eacu {

std::vector<Match> nonMaximumSuppression(std::vector<Match> candidates, double iou_threshold,
                                         int max_results) {
    std::stable_sort(candidates.begin(), candidates.end(),
                     [](const Match& a, const Match& b) { return a.score > b.score; });
    std::vector<Match> kept;
    for (const Match& c : candidates) {
        if (int(kept.size()) >= max_results) break;
        bool suppressed = std::any_of(kept.begin(), kept.end(), [&](const Match& k) {
            return k.box.iou(c.box) > iou_threshold;
        });
        if (!suppressed) kept.push_back(c);
    }
    return kept;
}

}  // namespace eacu
