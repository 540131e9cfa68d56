#include "heal/HealProof.h"

#include "recorder/TargetProof.h"
#include "step/Session.h"
#include "vision/ocr/OcrCache.h"

namespace eacu {

std::optional<A11yElement> healTree(Session& session, const LineReference& ref) {
    if (ref.role.empty() && !ref.tree_kept) return std::nullopt;
    try {
        return session.device().accessibility().snapshot({});
    } catch (const DeviceError&) {
        return std::nullopt;
    }
}

bool acceptHealed(Session& session, const Frame& frame, const A11yElement* tree, Point p, const Rect& box,
                  const LineReference& ref, const std::string& action, int step_idx, const std::string& method,
                  double score, double threshold, HealResult& r, std::string& why) {
    session.cancel().check();
    ProofOptions po;
    po.image_ref = ref.assets_ref;
    po.image_stem = action + "_" + std::to_string(step_idx) + "_healed";
    // What is written at the point, from the frame's whole reading when the healer read it (the
    // band's languages; a lookup, never a recognition), else the proof reads its band.
    po.band = OcrCache::shared().find(frame.bgr, std::nullopt, kPhraseBandLangs);
    std::vector<ProvenTarget> proven = proveTargets(frame, tree, p, session.locator(), po);
    if (proven.empty() || proven.front().kind == ProvenTarget::Kind::Point) {
        why = proven.empty() ? std::string("no proof") : proven.front().why;
        return false;
    }
    r.healed = true;
    r.frame = frame;
    r.match.found = true;
    r.match.method = "heal:" + method;
    r.match.score = score;
    r.match.threshold = threshold;
    r.match.box = box;
    const Rect& pb = proven.front().box;
    r.match.target = (!pb.empty() && box.contains(pb.center())) ? pb.center() : p;
    nlohmann::json news = nlohmann::json::array();
    for (const ProvenTarget& t : proven) {
        r.targets.push_back(t.lua);
        news.push_back(t.lua);
        if (t.kind != ProvenTarget::Kind::Image) continue;
        Frame crop;
        crop.bgr = t.crop;
        crop.scale = t.scale;
        r.crops.push_back({{"file", po.image_ref + "/" + t.image_file}, {"frame_id", session.recordFrame(crop)}, {"scale", t.scale}});
    }
    r.record["healed"] = true;
    r.record["method"] = method;
    r.record["new"] = news;
    r.record["crops"] = r.crops;
    r.record["box"] = {box.x, box.y, box.w, box.h};
    return true;
}

}  // namespace eacu
