// Session: looking for targets (images, text; blockers dismissed meanwhile), locate, ocr, wait.
#include "step/Session.h"

#include <nlohmann/json.hpp>

#include "base/Format.h"
#include "device/DeviceWait.h"
#include "geometry/Coords.h"
#include "step/AssetHits.h"
#include "step/TreeNodes.h"
#include "vision/TemplateMatcher.h"
#include "vision/ocr/OcrCache.h"
#include "vision/ocr/OcrEngine.h"
#include "vision/ocr/TextFinder.h"
#include "vision/som/Som.h"

namespace eacu {

namespace {

double msBetween(double t0, double t1) { return (t1 - t0) * 1000.0; }

}  // namespace

std::vector<Template> Session::templatesFor(const TargetSpec& t) const {
    std::vector<Template> variants = assets_.resolveVariants(*t.image, options_.script_dir);
    for (Template& tpl : variants) {
        if (t.threshold) tpl.threshold = *t.threshold;
        if (t.offset) tpl.offset = *t.offset;
    }
    return variants;
}

std::optional<Rect> Session::regionFor(const TargetSpec& t) const {
    if (!t.region) return std::nullopt;
    const auto& r = *t.region;
    return resolveRegion(r[0], r[1], r[2], r[3], device_.screenSize());
}

Point Session::pointFor(const TargetSpec& t) const {
    Point p = resolvePoint((*t.point)[0], (*t.point)[1], device_.screenSize());
    if (t.offset) p = {p.x + t.offset->x, p.y + t.offset->y};
    return p;
}

// The key under which a target's last-seen place is kept: its image and search region.
static std::string seenKey(const TargetSpec& t) {
    std::string k = t.image ? *t.image : "";
    if (t.window) k += "|window " + std::to_string(*t.window);
    if (t.region)
        for (double v : *t.region) k += "|" + std::to_string(v);
    return k;
}

// One look for a text target on frame `f`: OCR (cached per frame), then the best reading of
// the phrase whatever its similarity, so that a miss can report how close it came.
Session::Located Session::lookForText(const TargetSpec& t, Frame f) const {
    std::string langs = t.lang.value_or(OcrEngine::langsFor(*t.text));
    TextFindOptions any;
    any.threshold = 0;
    any.max_results = 1;
    double required = t.threshold.value_or(TextFindOptions{}.threshold);
    double t0 = monotonicSeconds();
    std::shared_ptr<const OcrResult> ocr = OcrCache::shared().get(f.bgr, regionFor(t), langs);
    std::vector<TextMatch> hits = findText(*ocr, *t.text, any);
    Match m;
    m.method = "ocr";
    m.threshold = required;
    if (!hits.empty()) {
        const TextMatch& h = hits.front();
        m.box = h.box;
        m.score = m.color_score = h.score;
        m.found = h.score >= required;
        Point c = h.box.center();
        m.target = {c.x + (t.offset ? t.offset->x : 0), c.y + (t.offset ? t.offset->y : 0)};
    }
    m.ms = msBetween(t0, monotonicSeconds());
    return {m, std::move(f), {}};
}

// One look for an image target (its variants) on frame `f`, with the session's hints: the
// expected scale (learned device scale, else the frame's over the template's) and where the
// target was last seen. A match found updates both.
Session::Located Session::lookForImage(const TargetSpec& t, const std::vector<Template>& variants, Frame f) {
    LocateHints hints;
    hints.region = regionFor(t);
    double recorded = variants.front().scale;
    hints.expected_scale = scales_.expectedScale(recorded).value_or(f.scale / recorded);
    std::string key = seenKey(t);
    if (auto it = last_seen_.find(key); it != last_seen_.end()) {
        hints.last_seen = it->second.box;
        hints.last_scale = it->second.scale;
        hints.last_score = it->second.score;
    }
    PreparedFrame pf(f.bgr);
    LocateReport r = locator_.locate(pf, variants, hints);
    if (r.match.found) {
        scales_.observe(r.match, recorded);
        last_seen_[key] = r.match;
    }
    return {r.match, std::move(f), r.stages};
}

Frame Session::captureFor(const TargetSpec& t, Point& origin) {
    origin = {0, 0};
    if (!t.window) return device_.capture();
    WindowCapture wc = device_.windows().capture(*t.window);
    origin = wc.origin;
    return std::move(wc.frame);
}

// What one look for a target gave, for the message of a miss: its best score, or what the
// tree or the relative search saw.
static std::string missText(const TargetSpec& t, const Match& m, const std::string& note) {
    if (t.a11y || t.anchor) return note;
    return "best score " + fixed(m.score) + " at " + m.box.str() + ", threshold " + fixed(m.threshold);
}

Session::Located Session::findAny(const TargetSpec& t, double timeout, bool want_present) {
    TargetSpec first = t;
    first.alternatives.clear();
    std::vector<const TargetSpec*> all = {&first};
    for (const TargetSpec& a : t.alternatives) all.push_back(&a);
    const double deadline = monotonicSeconds() + std::max(0.0, timeout);
    for (;;) {
        Located primary, seen;
        std::string tried;
        bool any = false;
        for (size_t i = 0; i < all.size(); ++i) {
            Located l = find(*all[i], 0, true);
            if (l.match.found) {
                any = true;
                if (i > 0) l.match.method = std::string("alt:") + all[i]->kindName();
                if (want_present) return l;
                seen = std::move(l);
                break;
            }
            tried += (tried.empty() ? "" : "; ") + std::string(i ? "alt " : "") + describeTarget(*all[i]) + ": " +
                     missText(*all[i], l.match, l.note);
            if (i == 0) primary = std::move(l);
        }
        if (!want_present && !any) return primary;
        if (monotonicSeconds() + options_.poll_interval > deadline) {
            if (!want_present) return seen;  // still there: what was found
            primary.note = "none of its " + std::to_string(all.size()) + " targets found (" + tried + ")";
            return primary;
        }
        cancel().sleep(options_.poll_interval);
    }
}

Session::Located Session::find(const TargetSpec& t, double timeout, bool want_present) {
    auto io = ioBound(std::max(0.0, timeout));
    if (!t.alternatives.empty()) return findAny(t, timeout, want_present);
    if (t.anchor) return findRelative(t, timeout);
    if (!t.text && !t.image && !t.a11y)
        throw std::invalid_argument("expected an image, text or a11y target, got " + describeTarget(t));
    std::vector<Template> variants;
    if (t.image) variants = templatesFor(t);
    double deadline = monotonicSeconds() + std::max(0.0, timeout);
    Located best;
    bool have_best = false;
    for (;;) {
        cancel().check();
        if (t.a11y) {  // the tree, not pixels; its bounds are on the screen already
            Located l;
            try {
                l = lookForA11y(t, deadline);
            } catch (const DeviceStalled& e) {
                throw DeviceStalled(describeTarget(t) + ": " + e.what());  // stays a stall for the step engine
            } catch (const DeviceError& e) {
                throw StepError(failure::kDevice, describeTarget(t) + ": " + e.what(), 0, 0, describeTarget(t));
            }
            if (!have_best || l.match.found == want_present) {
                best = std::move(l);
                have_best = true;
            }
            if (best.match.found == want_present) return best;
            if (monotonicSeconds() + options_.poll_interval > deadline) return best;
            cancel().sleep(options_.poll_interval);
            continue;
        }
        Point origin{0, 0};
        Frame f;
        try {
            f = captureFor(t, origin);
        } catch (const DeviceStalled&) {
            throw;  // a display that stopped answering, not a window that went away
        } catch (const DeviceError&) {
            // A window gone (or minimized) while waiting for its target to vanish: it has.
            if (!t.window || want_present) throw;
            Located gone;
            gone.match.method = "window_gone";
            return gone;
        }
        Located l = t.text ? lookForText(t, std::move(f)) : lookForImage(t, variants, std::move(f));
        if (t.window) {  // window pixels -> screen
            l.match.box.x += origin.x;
            l.match.box.y += origin.y;
            l.match.target.x += origin.x;
            l.match.target.y += origin.y;
        }
        if (!have_best || l.match.found == want_present || l.match.score > best.match.score) {
            best = std::move(l);
            have_best = true;
        }
        if (best.match.found == want_present) return best;
        if (monotonicSeconds() + options_.poll_interval > deadline) return best;
        cancel().sleep(options_.poll_interval);
    }
}

// The kind a relative target asks for ("field", "button", ...) of a Set-of-Marks element: a
// control box without text is taken for a field, with text for a button; an element of the
// accessibility tree by its role.
static std::string relKind(const SomElement& e) {
    if (e.kind == "text_field" || e.kind == "combo box") return "field";
    if (e.kind == "button" || e.kind == "menu item" || e.kind == "page tab" || e.kind == "menu button") return "button";
    if (e.kind == "checkbox" || e.kind == "check box" || e.kind == "radio button" || e.kind == "check menu item" ||
        e.kind == "radio menu item")
        return "checkbox";
    if (e.kind == "label") return "text";
    if (e.kind == "icon" || e.kind == "asset") return "image";
    if (e.kind == "control") return e.content.empty() ? "field" : "button";
    return e.kind;
}

// A relative target: its anchor found (within the timeout), then the candidates of the frame
// the anchor was found on (Set-of-Marks proposals and OCR lines, the elements of the
// accessibility tree of the program under the anchor, and for kind "image" the asset
// library's images) picked by pickRelative. A miss carries describeMiss's text in `note`; a
// hit says where its candidate came from in `source`.
Session::Located Session::findRelative(const TargetSpec& t, double timeout) {
    const double deadline = monotonicSeconds() + std::max(0.0, timeout);
    for (;;) {
        Located a = find(*t.anchor, std::max(0.0, deadline - monotonicSeconds()), true);
        double t0 = monotonicSeconds();
        Located l;
        l.match.method = "relative";
        l.match.threshold = a.match.threshold;
        if (!a.match.found) {
            l.frame = std::move(a.frame);
            l.note = "anchor " + describeTarget(*t.anchor) + " not found (best score " + fixed(a.match.score) + ")";
            return l;
        }
        // Window or tree anchors are in screen coordinates: look at the screen.
        l.frame = (t.anchor->window || t.anchor->a11y || a.frame.empty()) ? device_.capture() : std::move(a.frame);
        std::vector<SomOcrLine> lines;
        for (const OcrLine& ln : OcrCache::shared().get(l.frame.bgr, std::nullopt, "eng")->lines)
            lines.push_back({ln.text, ln.box, ln.confidence});
        SomOptions so;
        so.scale = l.frame.scale;
        so.max_elements = 200;
        // The accessibility tree of the program under the anchor, where it exports one: its
        // elements come first in the marks and take the place of the proposals they cover.
        std::vector<SomA11yNode> tree;
        try {
            std::optional<WindowInfo> w = device_.windows().windowAt(a.match.box.center());
            if (w && w->pid > 0) tree = treeNodesOnScreen(device_, {0, 0, l.frame.bgr.cols, l.frame.bgr.rows}, w->pid);
        } catch (const DeviceError&) {
            // no windows on this device: the image's candidates alone
        }
        // For an image: the asset library's images found on the frame (a locate each).
        std::vector<SomAssetHit> hits;
        if (t.relative.kind == "image")
            hits = findAssetHits(assets_, options_.script_dir, l.frame, {}, TemplateMatcher(), cancel());
        SomResult som = buildSom(l.frame.bgr, lines, hits, so, tree);
        std::vector<RelCandidate> cs;
        for (const SomElement& e : som.elements) cs.push_back({e.box, relKind(e), e.content, e.source});
        RelPick p = pickRelative(a.match.box, cs, t.relative);
        l.match.ms = msBetween(t0, monotonicSeconds());
        l.anchor = a.match.box;
        if (p.chosen >= 0) {
            const Rect& b = cs[p.chosen].box;
            l.source = cs[p.chosen].source;
            l.match.found = true;
            l.match.box = b;
            l.match.score = l.match.color_score = a.match.score;
            Point c = b.center();
            l.match.target = {c.x + (t.offset ? t.offset->x : 0), c.y + (t.offset ? t.offset->y : 0)};
            return l;
        }
        l.note = describeMiss(describeTarget(*t.anchor), a.match.box, t.relative, cs, p);
        if (monotonicSeconds() + options_.poll_interval > deadline) return l;
        cancel().sleep(options_.poll_interval);
    }
}

// find(), with the registered blockers looked for whenever the target is missing: one look
// first, then blockers, then looks in slices of blocker_interval until the deadline.
Session::Located Session::findOrDismiss(const TargetSpec& t, double timeout) {
    if (blockers_.empty() || in_blocker_) return find(t, timeout, true);
    const double deadline = monotonicSeconds() + std::max(0.0, timeout);
    Located l = find(t, 0, true);
    int handled = 0;
    while (!l.match.found) {
        if (handled < 10) {
            Located appeared;
            if (!handleBlockersFor(describeTarget(t), &t, &appeared).empty()) {
                ++handled;
                l = find(t, 0, true);
                continue;
            }
            if (appeared.match.found) return appeared;
        }
        double remaining = deadline - monotonicSeconds();
        if (remaining <= 0) break;
        l = find(t, std::min(remaining, options_.blocker_interval), true);
    }
    return l;
}

// Before a click: a frame older than the settle interval may no longer show where the target
// is (it may have moved): look again, once, and use the new place when it is found.
Session::Located Session::relocateIfStale(const TargetSpec& t, Located l, bool& relocated) {
    relocated = false;
    if (l.frame.monotonic <= 0 || monotonicSeconds() - l.frame.monotonic <= options_.settle_interval) return l;
    Located again = find(t, 0, true);
    if (!again.match.found) return l;
    relocated = !(again.match.box == l.match.box);
    return again;
}

// The best candidate of each locate stage, as text for errors ("multi_scale 0.62 at (..)
// x1.48") and as JSON for the run log.
static std::string stagesText(const std::vector<StageResult>& stages) {
    std::string out;
    for (const auto& st : stages)
        out += (out.empty() ? "" : "; ") + st.stage + " " + fixed(st.best.score) + " at " +
               st.best.box.str() + " x" + fixed(st.best.scale);
    return out;
}

static nlohmann::json stagesJson(const std::vector<StageResult>& stages) {
    nlohmann::json arr = nlohmann::json::array();
    for (const auto& st : stages)
        arr.push_back({{"stage", st.stage},
                       {"score", st.best.score},
                       {"color_score", st.best.color_score},
                       {"threshold", st.best.threshold},
                       {"box", {st.best.box.x, st.best.box.y, st.best.box.w, st.best.box.h}},
                       {"scale", st.best.scale},
                       {"found", st.best.found},
                       {"veto", st.best.veto},
                       {"ms", st.ms}});
    return arr;
}

void Session::failLocate(StepRecord& s, const TargetSpec& t, const Located& l, double timeout,
                         const char* verb, const std::string& extra) {
    // An a11y target is looked for in the tree: the screen is captured for the log here.
    int64_t frame = saveFrame(l.frame.empty() && t.a11y ? device_.capture() : l.frame);
    s.frame_before = frame ? std::optional<int64_t>(frame) : std::nullopt;
    const Match& m = l.match;
    std::string msg = s.action + " " + describeTarget(t) + ": " + verb;
    if (timeout > 0) msg += " within " + fixed(timeout, 1) + " s";
    if (t.a11y || t.anchor || !t.alternatives.empty()) msg += ": " + l.note;
    else msg += ": best score " + fixed(m.score) + " (colour " + fixed(m.color_score) + ") at " +
           m.box.str() + ", threshold " + fixed(m.threshold);
    if (!m.veto.empty()) msg += " (rejected: it " + m.veto + ")";
    if (!l.stages.empty()) msg += " [" + stagesText(l.stages) + "]";
    if (!extra.empty()) msg += "; " + extra;
    if (std::string note = device_.captureNote(); !note.empty()) msg += " (" + note + ")";
    nlohmann::json params = nlohmann::json::parse(s.params_json.empty() ? "{}" : s.params_json);
    params["stages"] = stagesJson(l.stages);
    if (l.anchor) params["anchor"] = {l.anchor->x, l.anchor->y, l.anchor->w, l.anchor->h};
    s.params_json = params.dump();
    if (frame) msg += "; frame " + std::to_string(frame) + " of run " + std::to_string(run_id_);
    if (log_) msg += " in " + log_->path();
    s.status = "failed";
    s.error = msg;
    s.method = m.method;
    s.score = m.score;
    s.threshold = m.threshold;
    s.box = m.box;
    int64_t id = commit(s);
    throw StepError(std::string(verb) == "still present" ? failure::kFailed : failure::kNotFound, msg, id, frame,
                    describeTarget(t), m);
}

Match Session::locate(const TargetSpec& t, double timeout) {
    // From the step's record on (its window's tag is read from the display): find's own bound.
    auto io = ioBound(std::max(0.0, timeout < 0 ? options_.find_timeout : timeout));
    StepRecord s = newStep("locate", &t);
    Located l = find(t, timeout, true);
    s.method = l.match.method;
    s.score = l.match.score;
    s.threshold = l.match.threshold;
    s.box = l.match.box;
    s.locate_ms = l.match.ms;
    mergeParams(s, {{"stages", stagesJson(l.stages)}, {"scale", l.match.scale}});
    if (l.anchor) mergeParams(s, {{"anchor", {l.anchor->x, l.anchor->y, l.anchor->w, l.anchor->h}}});
    s.status = l.match.found ? "ok" : "not_found";
    commit(s);
    return l.match;
}

std::shared_ptr<const OcrResult> Session::ocr(const std::optional<std::array<double, 4>>& region,
                                              const std::string& langs) {
    TargetSpec area;
    area.region = region;
    StepRecord s = newStep("ocr", nullptr);
    s.method = "ocr";
    Frame f = device_.capture();
    std::optional<Rect> r = regionFor(area);
    double t0 = monotonicSeconds();
    std::shared_ptr<const OcrResult> result = OcrCache::shared().get(f.bgr, r, langs);
    s.locate_ms = msBetween(t0, monotonicSeconds());
    if (r) s.box = *r;
    s.target = langs;
    s.params_json = nlohmann::json{{"lines", result->lines.size()}, {"langs", langs}}.dump();
    if (auto id = saveFrame(f)) s.frame_before = id;
    commit(s);
    return result;
}

std::vector<Match> Session::findAll(const TargetSpec& t, int max_results) {
    if (!t.image) throw std::invalid_argument("find_all: expected an image target, got " + describeTarget(t));
    StepRecord s = newStep("find_all", &t);
    Point origin{0, 0};
    Frame f = captureFor(t, origin);
    Template tpl = templatesFor(t).front();
    auto t0 = monotonicSeconds();
    std::vector<Match> all = locator_.findAll(f.bgr, tpl, regionFor(t), max_results);
    s.locate_ms = msBetween(t0, monotonicSeconds());
    s.method = "template";
    s.threshold = tpl.threshold;
    for (Match& m : all) {  // window pixels -> screen
        m.box.x += origin.x;
        m.box.y += origin.y;
        m.target.x += origin.x;
        m.target.y += origin.y;
    }
    mergeParams(s, {{"count", all.size()}});
    if (!all.empty()) {
        s.score = all.front().score;
        s.box = all.front().box;
    }
    commit(s);
    return all;
}

Session::Located Session::healOrFail(StepRecord& s, const TargetSpec& t, Located l, double timeout,
                                     nlohmann::json* params) {
    if (!options_.heal || !healer_ || !t.searched() || t.window) failLocate(s, t, l, timeout, "not found");
    HealResult r = healer_->heal(*this, t, s.action, s.idx);
    if (!r.healed) {
        mergeParams(s, {{"heal", r.record}});
        if (!r.frame.empty()) l.frame = std::move(r.frame);  // the screen healing looked at
        failLocate(s, t, l, timeout, "not found", "healing found no element it could prove: " + r.tried);
    }
    if (params) (*params)["heal"] = r.record;
    else mergeParams(s, {{"heal", r.record}});
    Located h;
    h.match = r.match;
    h.frame = std::move(r.frame);
    return h;
}

Match Session::wait(const TargetSpec& t, double timeout, const std::string& action) {
    if (timeout < 0) timeout = options_.find_timeout;
    auto io = ioBound(timeout);  // from the step's record on (its window's tag is read from the display)
    StepRecord s = newStep(action, &t);
    Located l = findOrDismiss(t, timeout);
    if (!l.match.found) l = healOrFail(s, t, std::move(l), timeout, nullptr);
    s.method = l.match.method;
    s.score = l.match.score;
    s.threshold = l.match.threshold;
    s.box = l.match.box;
    s.locate_ms = l.match.ms;
    if (auto id = saveFrame(l.frame)) s.frame_before = id;
    commit(s);
    return l.match;
}

void Session::waitVanish(const TargetSpec& t, double timeout) {
    if (timeout < 0) timeout = options_.find_timeout;
    auto io = ioBound(timeout);  // from the step's record on (its window's tag is read from the display)
    StepRecord s = newStep("wait_vanish", &t);
    Located l = find(t, timeout, false);
    if (l.match.found) failLocate(s, t, l, timeout, "still present");
    s.method = l.match.method;
    s.score = l.match.score;
    s.threshold = l.match.threshold;
    commit(s);
}

std::string Session::handleBlockers(const std::string& context) { return handleBlockersFor(context, nullptr, nullptr); }

std::string Session::handleBlockersFor(const std::string& context, const TargetSpec* sought, Located* found) {
    if (blockers_.empty() || in_blocker_) return "";
    for (Blocker& b : blockers_.list()) {
        if (b.max_handled > 0 && b.handled >= b.max_handled) continue;
        Located l = find(b.target, 0, true);
        if (!l.match.found) continue;
        // The sought target may have appeared since it was last looked for (a dialog that is
        // both the awaited screen and a registered blocker): then there is nothing to dismiss.
        if (sought && found) {
            *found = find(*sought, 0, true);
            if (found->match.found) return "";
        }
        // Found: handle it with the other blockers switched off (a handler's own taps must not
        // recurse into blocker handling).
        in_blocker_ = true;
        StepRecord s = newStep("blocker", &b.target);
        s.target = b.name;
        s.method = l.match.method;
        s.score = l.match.score;
        s.threshold = l.match.threshold;
        s.box = l.match.box;
        s.locate_ms = l.match.ms;
        std::string how = b.handler ? "handler" : b.dismiss ? "tap " + describeTarget(*b.dismiss)
                                                           : "key " + (b.key.empty() ? std::string("Escape") : b.key);
        s.params_json = nlohmann::json{{"kind", b.kind}, {"while_looking_for", context}, {"dismiss", how},
                                       {"handled_before", b.handled}}.dump();
        if (auto id = saveFrame(l.frame)) s.frame_before = id;
        commit(s);
        try {
            if (b.handler) b.handler(l.match);
            else if (b.dismiss) tap(*b.dismiss);
            else key(b.key.empty() ? "Escape" : b.key);
        } catch (...) {
            in_blocker_ = false;
            throw;
        }
        in_blocker_ = false;
        ++b.handled;
        return b.name;
    }
    return "";
}

}  // namespace eacu
