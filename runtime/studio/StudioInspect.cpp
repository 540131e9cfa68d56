// eacu studio's inspect mode: the element and the words at a point, the targets proven
// there, a verify line on the best of them, and the whole tree.
#include "studio/Studio.h"

#include <algorithm>
#include <filesystem>

#include "recorder/ScaledPng.h"
#include "step/A11yTarget.h"
#include "server/ApiError.h"
#include "studio/Thumbnail.h"
#include "vision/ocr/OcrCache.h"

namespace fs = std::filesystem;
using nlohmann::json;

namespace eacu::studio {
namespace {

json rectJson(const Rect& r) { return {{"x", r.x}, {"y", r.y}, {"w", r.w}, {"h", r.h}}; }

// The smallest element showing on the screen whose bounds hold `p`, an interactive one first.
const A11yElement* elementUnder(const A11yElement& root, Point p) {
    const A11yElement* best = nullptr;
    bool best_interactive = false;
    for (const A11yElement* e : flatten(root)) {
        if (e->bounds.empty() || !e->bounds.contains(p) || e->role == "desktop frame" || e->role == "application") continue;
        const bool inter = isInteractive(*e);
        if (!best || (inter && !best_interactive) ||
            (inter == best_interactive && e->bounds.area() < best->bounds.area())) {
            best = e;
            best_interactive = inter;
        }
    }
    return best;
}

std::string pathText(const std::vector<int>& path) {
    std::string s;
    for (int i : path) s += (s.empty() ? "" : ".") + std::to_string(i);
    return s;
}

json elementJson(const A11yElement& e, const std::string& source) {
    return {{"role", e.role},     {"name", e.name},   {"id", e.id},          {"description", e.description}, {"value", e.value},
            {"states", e.states}, {"app", e.app},     {"bounds", rectJson(e.bounds)}, {"path", pathText(e.path)},
            {"source", source}};
}

json treeJson(const A11yElement& e, int depth) {
    json j{{"role", e.role}, {"name", e.name}, {"id", e.id}, {"bounds", rectJson(e.bounds)}, {"path", pathText(e.path)}};
    json kids = json::array();
    if (depth < 60)
        for (const A11yElement& c : e.children) kids.push_back(treeJson(c, depth + 1));
    j["children"] = std::move(kids);
    return j;
}

}  // namespace

using server::ApiError;

json Studio::elementAt(Point p) const {
    std::shared_ptr<const ScreenState> s = history_.latest();
    json out{{"point", {{"x", p.x}, {"y", p.y}}}, {"element", nullptr}, {"source", o_.tree_source}};
    if (!s) return out;
    if (s->tree)
        if (const A11yElement* e = elementUnder(*s->tree, p)) out["element"] = elementJson(*e, o_.tree_source);
    return out;
}

json Studio::proveAt(Point p) {
    std::shared_ptr<const ScreenState> s = history_.latest();
    if (!s) throw ApiError(409, "no screen yet");
    if (p.x < 0 || p.y < 0 || p.x >= s->frame.width() || p.y >= s->frame.height())
        throw ApiError(400, "expected a point on the " + std::to_string(s->frame.width()) + "x" +
                                std::to_string(s->frame.height()) + " screen, got (" + std::to_string(p.x) + "," +
                                std::to_string(p.y) + ")");
    ProofOptions po;
    po.image_ref = o_.assets_ref;
    po.image_stem = "inspect";
    std::vector<ProvenTarget> ts = proveTargets(s->frame, s->tree ? &*s->tree : nullptr, p, locator_, po);
    json words = json::array();
    std::shared_ptr<const OcrResult> band = OcrCache::shared().get(s->frame.bgr, phraseBand(s->frame, p), kPhraseBandLangs);
    for (const OcrLine& line : band->lines)
        for (const OcrWord& w : line.words)
            if (w.box.grown(std::max(4, w.box.h)).contains(p))
                words.push_back({{"text", w.text}, {"confidence", w.confidence}, {"box", rectJson(w.box)}});
    json targets = json::array();
    for (const ProvenTarget& t : ts)
        targets.push_back({{"kind", t.kindName()}, {"lua", t.lua}, {"why", t.why}, {"box", rectJson(t.box)}});
    return {{"lua", ts.front().lua}, {"why", ts.front().why}, {"kind", ts.front().kindName()},
            {"box", rectJson(ts.front().box)}, {"ms", ts.front().ms}, {"targets", targets}, {"ocr", words}};
}

json Studio::addVerify(Point p) {
    std::shared_ptr<const ScreenState> s = history_.latest();
    if (!s) throw ApiError(409, "no screen yet");
    int id;
    {
        std::lock_guard<std::mutex> lock(mu_);
        id = next_id_++;
    }
    ProofOptions po;
    po.image_ref = o_.assets_ref;
    po.image_stem = "verify_" + std::to_string(id);
    po.field_value = true;  // in a filled field, its value is what a person reads and checks
    std::vector<ProvenTarget> ts = proveTargets(s->frame, s->tree ? &*s->tree : nullptr, p, locator_, po);
    const ProvenTarget* best = &ts.front();
    for (const ProvenTarget& t : ts)
        if (t.kind == ProvenTarget::Kind::Text) best = &t;  // a text first: what the person reads
    if (best->kind == ProvenTarget::Kind::Point)
        throw ApiError(409, "nothing there can be verified: " + best->why);
    StudioLine l;
    if (best->kind == ProvenTarget::Kind::Image) {
        fs::create_directories(o_.assets_dir);
        const std::string file = (fs::path(o_.assets_dir) / best->image_file).string();
        writeScaledPng(file, best->crop, best->scale);
        l.files.push_back(file);
    }
    l.id = id;
    l.verify = true;
    l.action.kind = UserAction::Kind::Tap;
    l.action.at = p;
    l.lua = "verify(" + best->lua + ")   -- " + best->why;
    l.state = "proven";
    l.thumb = thumbnailOf(s->frame, p);
    std::lock_guard<std::mutex> lock(mu_);
    lines_.push_back(l);
    bump();
    return {{"line", id}, {"lua", l.lua}};
}

json Studio::tree() const {
    std::shared_ptr<const ScreenState> s = history_.latest();
    json out{{"source", o_.tree_source}, {"root", nullptr}, {"seq", 0}, {"on_frame", false}};
    if (s && s->tree) {
        out["root"] = treeJson(*s->tree, 0);
        out["on_frame"] = s->tree_on_frame;
    }
    std::lock_guard<std::mutex> lock(mu_);
    // The live frames are made of the newest screen a moment after it is kept: its first seq,
    // or 0 while none was sent yet. (A tree re-read on a screen that stayed is a new state of
    // the same frame: the frame's first seq.)
    for (auto it = shown_.rbegin(); s && it != shown_.rend(); ++it)
        if (it->state == s || it->state->frame.bgr.data == s->frame.bgr.data) out["seq"] = it->first;
    return out;
}

}  // namespace eacu::studio
