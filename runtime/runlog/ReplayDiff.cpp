#include "runlog/ReplayDiff.h"

#include <cmath>
#include <cstdio>
#include <map>

namespace eacu {
namespace {

std::string pt(const Point& p) { return "(" + std::to_string(p.x) + "," + std::to_string(p.y) + ")"; }

bool far(const Point& a, const Point& b, int tol) {
    return std::abs(a.x - b.x) > tol || std::abs(a.y - b.y) > tol;
}

}  // namespace

std::vector<StepDiff> diffSteps(const std::vector<StepRecord>& original,
                                const std::vector<StepRecord>& replay, int tolerance_px) {
    std::map<int, const StepRecord*> a, b;
    for (const auto& s : original) a[s.idx] = &s;
    for (const auto& s : replay) b[s.idx] = &s;
    std::vector<StepDiff> out;
    auto add = [&](int idx, std::string what) { out.push_back({idx, std::move(what)}); };
    for (const auto& [idx, o] : a) {
        auto it = b.find(idx);
        if (it == b.end()) {
            add(idx, "missing in the replay (" + o->action + " " + o->target + ")");
            continue;
        }
        const StepRecord* r = it->second;
        if (o->action != r->action) add(idx, "action " + o->action + " -> " + r->action);
        if (o->target != r->target) add(idx, "target " + o->target + " -> " + r->target);
        // An observation the replay skipped (method "skipped") did not look again: its status
        // says nothing about the screen, so it is not compared.
        if (o->status != r->status && r->method != "skipped") add(idx, "status " + o->status + " -> " + r->status);
        if (o->input && r->input && far(*o->input, *r->input, tolerance_px))
            add(idx, "input " + pt(*o->input) + " -> " + pt(*r->input));
        else if (o->box && r->box && far({o->box->x, o->box->y}, {r->box->x, r->box->y}, tolerance_px))
            add(idx, "box " + o->box->str() + " -> " + r->box->str());
        if (o->score && r->score && *r->score < *o->score - 0.05) {
            char buf[64];
            std::snprintf(buf, sizeof buf, "score %.3f -> %.3f", *o->score, *r->score);
            add(idx, buf);
        }
    }
    for (const auto& [idx, r] : b)
        if (!a.count(idx)) add(idx, "only in the replay (" + r->action + " " + r->target + ")");
    return out;
}

}  // namespace eacu
