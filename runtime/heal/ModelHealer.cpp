#include "heal/ModelHealer.h"

#include <cmath>

#include "base/Clock.h"
#include "heal/HealProof.h"
#include "model/ModelClient.h"
#include "planner/Grounding.h"
#include "recorder/TargetProof.h"
#include "step/Session.h"
#include "vision/ocr/OcrCache.h"

namespace eacu {

std::string healDescription(const LineReference& ref) {
    std::string d = "the element the script recorded";
    if (!ref.words.empty()) {
        d += " as";
        for (size_t i = 0; i < ref.words.size(); ++i) d += (i ? " / \"" : " \"") + ref.words[i] + "\"";
    }
    if (!ref.role.empty()) d += " (a " + ref.role + ")";
    if (!ref.neighbours.empty()) {
        d += ", beside";
        for (size_t i = 0; i < ref.neighbours.size() && i < 6; ++i) d += (i ? ", \"" : " \"") + ref.neighbours[i].text + "\"";
    }
    if (ref.box && ref.frame_size.w > 0 && ref.frame_size.h > 0) {
        const Point c = ref.box->center();
        d += "; it was at (" + std::to_string(int(std::lround(1000.0 * c.x / ref.frame_size.w))) + ", " +
             std::to_string(int(std::lround(1000.0 * c.y / ref.frame_size.h))) + ") of 1000 on the recorded screen";
    }
    d += "; it may since have been renamed, restyled or moved. If no element on the screen is that element, answer "
         "{\"found\": false}.";
    return d;
}

HealResult ModelHealer::heal(Session& session, const TargetSpec& target, const std::string& action, int step_idx) {
    HealResult r = similar_.heal(session, target, action, step_idx);
    if (r.healed || !ctx_ || !ctx_->client()) return r;
    const double t0 = monotonicSeconds();
    LineReference ref = lineReference(target, session.assets(), session.options().script_dir, kPhraseBandLangs);
    const std::string desc = healDescription(ref);
    nlohmann::json m = {{"description", desc}};
    std::string tried;
    try {
        Grounding g = ground(*ctx_, desc, 0, "", false, ref.crop);
        m["model_call"] = g.call_id;
        m["reason"] = g.reason;
        if (!g.found) {
            tried = "the model did not find it" + (g.reason.empty() ? "" : ": " + g.reason);
        } else {
            m["box"] = {g.box.x, g.box.y, g.box.w, g.box.h};
            Frame f = session.device().captureCurrent();  // not a stream picture older than the tree read next
            std::optional<A11yElement> tree = healTree(session, ref);
            std::string why;
            HealResult h;
            h.record = r.record;
            if (acceptHealed(session, f, tree ? &*tree : nullptr, g.point, g.box, ref, action, step_idx, "model", 1.0, 1.0, h, why)) {
                h.candidates = r.candidates;
                h.record["model"] = m;
                h.record["similar_rejected"] = r.record.value("rejected", "");
                h.record["ms"] = r.record.value("ms", 0.0) + (monotonicSeconds() - t0) * 1000.0;
                h.tried = r.tried + "; the model named " + g.box.str();
                return h;
            }
            tried = "the model named " + g.box.str() + ", which could not be proven unique there: " + why;
        }
    } catch (const std::exception& e) {  // a model that fails: the line fails as it would have
        tried = std::string("the model failed: ") + e.what();
    }
    session.cancel().check();
    m["rejected"] = tried;
    r.record["model"] = m;
    r.record["ms"] = r.record.value("ms", 0.0) + (monotonicSeconds() - t0) * 1000.0;
    r.tried += "; then " + tried;
    return r;
}

}  // namespace eacu
