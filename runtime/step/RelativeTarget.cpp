#include "step/RelativeTarget.h"

#include <algorithm>
#include <cmath>

namespace eacu {
namespace {

const char* const kNames[] = {"right_of", "left_of", "above", "below", "near", "inside"};

int overlap(int a0, int a1, int b0, int b1) { return std::max(0, std::min(a1, b1) - std::max(a0, b0)); }

double iou(const Rect& a, const Rect& b) {
    int i = overlap(a.x, a.x + a.w, b.x, b.x + b.w) * overlap(a.y, a.y + a.h, b.y, b.y + b.h);
    int u = a.area() + b.area() - i;
    return u > 0 ? double(i) / u : 0;
}

std::string boxText(const Rect& r) {
    return "(" + std::to_string(r.x) + "," + std::to_string(r.y) + " " + std::to_string(r.w) + "x" +
           std::to_string(r.h) + ")";
}

}  // namespace

std::optional<Relation> relationFromName(const std::string& name) {
    for (int i = 0; i < 6; ++i)
        if (name == kNames[i]) return Relation(i);
    return std::nullopt;
}

const char* relationName(Relation r) { return kNames[int(r)]; }

RelPick pickRelative(const Rect& a, const std::vector<RelCandidate>& cs, const RelQuery& q) {
    RelPick p;
    std::vector<std::pair<double, int>> ok;
    const double acx = a.x + a.w / 2.0, acy = a.y + a.h / 2.0;
    for (int i = 0; i < int(cs.size()); ++i) {
        const Rect& b = cs[i].box;
        auto reject = [&](std::string why) { p.rejected.push_back({cs[i], std::move(why)}); };
        if (q.kind != "any" && cs[i].kind != q.kind) {
            reject("other kind: " + cs[i].kind);
            continue;
        }
        if (q.relation != Relation::Inside && iou(a, b) >= 0.5) {
            reject("the anchor itself");
            continue;
        }
        const int vo = overlap(a.y, a.y + a.h, b.y, b.y + b.h);
        const int ho = overlap(a.x, a.x + a.w, b.x, b.x + b.w);
        const bool same_row = vo * 2 >= std::min(a.h, b.h) && vo > 0;
        double d = 0;
        switch (q.relation) {
        case Relation::RightOf:
        case Relation::LeftOf: {
            bool beyond = q.relation == Relation::RightOf ? b.x >= a.x + a.w - 2 : b.x + b.w <= a.x + 2;
            if (!beyond) { reject(std::string("not ") + (q.relation == Relation::RightOf ? "right" : "left") + " of the anchor"); continue; }
            if (!same_row) { reject("not on the anchor's row"); continue; }
            d = q.relation == Relation::RightOf ? b.x - (a.x + a.w) : a.x - (b.x + b.w);
            break;
        }
        case Relation::Above:
        case Relation::Below: {
            bool beyond = q.relation == Relation::Below ? b.y >= a.y + a.h - 2 : b.y + b.h <= a.y + 2;
            if (!beyond) { reject(std::string("not ") + (q.relation == Relation::Below ? "below" : "above") + " the anchor"); continue; }
            if (ho <= 0) { reject("not in the anchor's column"); continue; }
            d = q.relation == Relation::Below ? b.y - (a.y + a.h) : a.y - (b.y + b.h);
            break;
        }
        case Relation::Near:
            if (ho > 0 && vo > 0) { reject("overlaps the anchor"); continue; }
            d = std::hypot(b.x + b.w / 2.0 - acx, b.y + b.h / 2.0 - acy);
            break;
        case Relation::Inside: {
            double cx = b.x + b.w / 2.0, cy = b.y + b.h / 2.0;
            if (cx < a.x || cx >= a.x + a.w || cy < a.y || cy >= a.y + a.h || iou(a, b) >= 0.9) {
                reject("not inside the anchor");
                continue;
            }
            d = double(b.y) * 1e5 + b.x;  // reading order
            break;
        }
        }
        ok.push_back({std::max(0.0, d), i});
    }
    std::stable_sort(ok.begin(), ok.end(), [](auto& l, auto& r) { return l.first < r.first; });
    for (auto& [d, i] : ok) p.ranked.push_back(i);
    if (q.nth >= 1 && q.nth <= int(p.ranked.size())) p.chosen = p.ranked[q.nth - 1];
    return p;
}

std::string describeMiss(const std::string& label, const Rect& anchor, const RelQuery& q,
                         const std::vector<RelCandidate>& cs, const RelPick& p, int max_listed) {
    std::string s = "no " + (q.kind == "any" ? std::string("element") : q.kind) + " " + relationName(q.relation) +
                    " " + label + " (anchor found at " + boxText(anchor) + ")";
    if (!p.ranked.empty())
        s += ": " + std::to_string(p.ranked.size()) + " matched, nth = " + std::to_string(q.nth) + " asked";
    if (cs.empty()) return s + ": no candidates on the frame";
    s += "; rejected:";
    int n = 0;
    for (const auto& r : p.rejected) {
        if (n == max_listed) {
            s += ", ... (" + std::to_string(p.rejected.size() - max_listed) + " more)";
            break;
        }
        s += std::string(n++ ? ", " : " ") + r.candidate.kind +
             (r.candidate.content.empty() ? "" : " \"" + r.candidate.content + "\"") + " " +
             boxText(r.candidate.box) + " " + r.reason;
    }
    return s;
}

}  // namespace eacu
