// The locator's choice among confirmed candidates: found before not found, then score, ties
// in reading order, the chosen one text-confirmed.
#include "vision/LocatorStages.h"

#include <algorithm>
#include <cmath>

namespace eacu::locator {

bool better(const Match& a, const Match& b) {
    if (a.found != b.found) return a.found;
    return a.score > b.score;
}

Match pick(Search& search, const std::vector<Match>& cands, const std::string& method,
           const std::function<double(double)>& required) {
    std::vector<Match> done;
    for (const Match& c : cands) done.push_back(finish(search, c, method, required(c.scale)));
    if (done.empty()) {
        Match none;
        none.score = -2;
        return finish(search, none, method, search.tpl().threshold);
    }
    std::vector<bool> checked(done.size(), false);
    for (;;) {
        std::vector<size_t> order(done.size());
        for (size_t i = 0; i < order.size(); ++i) order[i] = i;
        std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return better(done[a], done[b]); });
        const Match& top = done[order.front()];
        size_t chosen = order.front();
        for (size_t i : order) {
            const Match& m = done[i];
            const Match& c = done[chosen];
            if (m.found == top.found && top.score - m.score <= search.options().tie_margin &&
                (m.box.y < c.box.y - c.box.h / 2 || (std::abs(m.box.y - c.box.y) <= c.box.h / 2 && m.box.x < c.box.x)))
                chosen = i;
        }
        if (checked[chosen] || !done[chosen].found) return done[chosen];
        checked[chosen] = true;
        confirmWords(search, done[chosen]);
        if (done[chosen].found) return done[chosen];
    }
}

}  // namespace eacu::locator
