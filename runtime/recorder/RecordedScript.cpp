#include "recorder/RecordedScript.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include <opencv2/imgcodecs.hpp>

#include "base/Clock.h"
#include "base/Utf8.h"
#include "recorder/Neighbours.h"
#include "recorder/ScaledPng.h"
#include "vision/ocr/OcrCache.h"
#include "vision/PreparedFrame.h"

namespace fs = std::filesystem;

namespace eacu {

namespace {

std::string seconds(double s) {
    char b[32];
    std::snprintf(b, sizeof b, "%.1f", s);
    return b;
}

// What is kept beside the proof frame for healing (recorder/FrameEvidence, docs/healing.md "What
// is kept per line"): the tree's labels around the element at the first target's box and its
// siblings' (the 8 nearest), and what OCR reads in and around the line's image crop on the
// frame (a whole-frame reading, from OcrCache when the proof read it already). Written when
// there is either; `path` is `<stem>_frame.json`.
void writeEvidence(const std::string& path, const Frame& frame, const A11yElement* tree, const std::vector<ProvenTarget>& ts) {
    FrameEvidence ev;
    const Rect& box = ts.front().box;
    if (tree && !box.empty()) ev.tree_neighbours = neighboursOf(treeLabels(*tree), box, frame.scale, treeSiblings(*tree, box), 8);
    for (const ProvenTarget& t : ts)
        if (t.kind == ProvenTarget::Kind::Image && !t.box.empty()) {
            readEvidence(ev, *OcrCache::shared().get(frame.bgr, std::nullopt, kPhraseBandLangs), frame.bgr, t.box,
                         {frame.width(), frame.height()}, t.scale);
            break;
        }
    if (ev.box || !ev.tree_neighbours.empty()) writeFrameEvidence(path, ev);
}

bool isPointer(UserAction::Kind k) { return k != UserAction::Kind::Input && k != UserAction::Kind::Key; }

// The targets proven for one point as a line's target: the first alone, or with the others as
// its alternatives.
std::string lineTarget(const std::vector<ProvenTarget>& ts) {
    if (ts.size() == 1) return ts.front().lua;
    std::string alts;
    for (size_t i = 1; i < ts.size(); ++i) alts += (i > 1 ? ", " : "") + ts[i].lua;
    return "{ " + ts.front().lua + ", alt = { " + alts + " } }";
}

// Why each was kept: the first's reason, then each alternative's.
std::string lineWhy(const std::vector<ProvenTarget>& ts) {
    std::string why = ts.front().why;
    for (size_t i = 1; i < ts.size(); ++i) why += "; alt " + std::string(ts[i].kindName()) + ": " + ts[i].why;
    return why;
}

struct Writer {
    const Locator& locator;
    const ScriptOptions& o;
    WrittenScript out;
    std::vector<std::pair<cv::Mat, std::string>> saved;  // crops written, and their paths as the script names them

    // Every target proven for `p` on the item's screen, crops saved (the same pixels tapped
    // again: one file), and the screen they were proven on saved once per item (`frame_ref`).
    std::vector<ProvenTarget> prove(const ScriptItem& it, Point p, const std::string& stem, std::string& frame_ref) {
        ProofOptions po;
        if (p == it.action.at) po.band = it.band;
        po.image_ref = o.assets_ref;
        po.image_stem = stem;
        if (it.approach) po.approach = &it.approach->frame;
        po.text = po.image = it.pixels;
        const A11yElement* tree = it.before && it.before->tree ? &*it.before->tree : nullptr;
        if (!it.tree_targets) {
            po.name_tree = tree;
            tree = nullptr;
        }
        std::vector<ProvenTarget> ts;
        if (it.proven && p == it.action.at && !it.proven->empty()) {
            ts = *it.proven;
            for (ProvenTarget& t : ts)  // named after this line, as proven now
                if (t.kind == ProvenTarget::Kind::Image) {
                    const std::string was = luaQuote(o.assets_ref + "/" + t.image_file);
                    t.image_file = stem + ".png";
                    if (size_t at = t.lua.find(was); at != std::string::npos)
                        t.lua.replace(at, was.size(), luaQuote(o.assets_ref + "/" + t.image_file));
                }
        } else {
            ts = proveTargets(it.before->frame, tree, p, locator, po);
        }
        out.proof_ms.push_back(ts.front().ms);
        switch (ts.front().kind) {
        case ProvenTarget::Kind::A11y: ++out.a11y; break;
        case ProvenTarget::Kind::Relative: ++out.relative; break;
        case ProvenTarget::Kind::Text: ++out.text; break;
        case ProvenTarget::Kind::Image: ++out.image; break;
        case ProvenTarget::Kind::Point: ++out.points; break;
        }
        out.alternatives += int(ts.size()) - 1;
        for (ProvenTarget& t : ts)
            if (t.kind == ProvenTarget::Kind::Image) {
                if (out.locate_ms == 0) out.locate_ms = timeLocate(it.before->frame, t);
                saveCrop(t);
            }
        if (frame_ref.empty() && it.pixels && ts.front().kind != ProvenTarget::Kind::Point) {
            fs::create_directories(o.assets_dir);
            const std::string name = stem + "_frame.jpg";
            const std::string path = (fs::path(o.assets_dir) / name).string();
            if (!cv::imwrite(path, it.before->frame.bgr, {cv::IMWRITE_JPEG_QUALITY, 80}))
                throw std::runtime_error("cannot write \"" + path + "\"");
            frame_ref = o.assets_ref + "/" + name;
            out.files.push_back(path);
            const std::string evidence = (fs::path(o.assets_dir) / (stem + "_frame.json")).string();
            out.files.push_back(evidence);
            if (o.defer_evidence)
                out.evidence.push_back({evidence, it.before, tree != nullptr, ts});
            else
                writeEvidence(evidence, it.before->frame, tree, ts);
        }
        return ts;
    }

    // The time of one full-frame locate of `t`'s crop on `frame` as a replay's first look.
    double timeLocate(const Frame& frame, const ProvenTarget& t) const {
        Template tpl;
        tpl.bgr = t.crop;
        tpl.scale = t.scale;
        if (t.threshold) tpl.threshold = *t.threshold;
        LocateHints hints;
        hints.expected_scale = frame.scale / t.scale;
        PreparedFrame pf(frame.bgr);
        const double t0 = monotonicSeconds();
        locator.locate(pf, {tpl}, hints);
        return (monotonicSeconds() - t0) * 1000.0;
    }

    void saveCrop(ProvenTarget& t) {
        for (const auto& [crop, file] : saved) {
            if (crop.size() == t.crop.size() && cv::norm(crop, t.crop, cv::NORM_INF) == 0) {
                const std::string mine = luaQuote(o.assets_ref + "/" + t.image_file);
                if (size_t at = t.lua.find(mine); at != std::string::npos) t.lua.replace(at, mine.size(), luaQuote(file));
                return;
            }
        }
        fs::create_directories(o.assets_dir);
        std::string path = (fs::path(o.assets_dir) / t.image_file).string();
        writeScaledPng(path, t.crop, t.scale);
        out.images.push_back(path);
        out.files.push_back(path);
        saved.emplace_back(t.crop, o.assets_ref + "/" + t.image_file);
    }
};

}  // namespace

WrittenScript writeScript(const std::vector<ScriptItem>& items, const Locator& locator, const ScriptOptions& o) {
    Writer w{locator, o, {}, {}};
    std::string& lua = w.out.lua;
    for (const std::string& h : o.header) lua += "-- " + h + "\n";
    double prev_end = -1;
    bool after_launch = false;
    int n = o.first_index - 1;
    for (const ScriptItem& it : items) {
        ++n;
        if (!it.launch.empty()) {
            lua += "launch " + luaQuote(it.launch) + "   -- started first, as when it was recorded\n";
            after_launch = true;
            prev_end = it.action.time;
            continue;
        }
        const UserAction& a = it.action;
        std::string name = actionName(a.kind);
        std::string stem = name + "_" + std::to_string(n);
        if (!isPointer(a.kind)) {
            if (a.kind == UserAction::Kind::Input)
                lua += "input " + luaQuote(a.text) + "   -- typed (" + std::to_string(decodeUtf8(a.text).size()) + " characters)" +
                       (it.comment.empty() ? "" : ", " + it.comment) + "\n";
            else
                lua += "key " + luaQuote(a.text) + "   -- a key pressed" + (it.comment.empty() ? "" : ", " + it.comment) + "\n";
            prev_end = a.end;
            continue;
        }
        std::string target, why, frame_ref;
        bool point = false;
        if (!it.target.empty()) {
            target = it.target;
            why = it.comment;
            ++w.out.known;
        } else if (it.before) {
            std::vector<ProvenTarget> ts = w.prove(it, a.at, stem, frame_ref);
            target = lineTarget(ts);
            why = lineWhy(ts) + (it.comment.empty() ? "" : "; " + it.comment);
            point = ts.front().kind == ProvenTarget::Kind::Point;
        } else {
            target = "{ x = " + std::to_string(a.at.x) + ", y = " + std::to_string(a.at.y) + " }";
            why = "no target could be proven, so screen coordinates: no screen was recorded before it";
            point = true;
        }
        double gap = prev_end < 0 ? 0 : a.time - prev_end;
        if (after_launch || gap > o.wait_after_s) {
            int timeout = int(std::ceil(std::max(after_launch ? 20.0 : 10.0, 2 * gap)));
            std::string reason = after_launch ? "the program starts" : seconds(gap) + " s passed before this action";
            if (point) lua += "wait_stable(" + std::to_string(timeout) + ")   -- " + reason + ": no target to wait on, so a still screen\n";
            else lua += "wait(" + target + ", " + std::to_string(timeout) + ")   -- " + reason + ": wait for the next target\n";
        }
        after_launch = false;
        switch (a.kind) {
        case UserAction::Kind::Tap:
            lua += "tap(" + target + (a.button == "left" ? "" : ", { button = " + luaQuote(a.button) + " }") + ")";
            break;
        case UserAction::Kind::DoubleTap: lua += "double_tap(" + target + ")"; break;
        case UserAction::Kind::LongPress: lua += "long_press(" + target + ", " + seconds(a.hold) + ")"; break;
        case UserAction::Kind::Scroll:
            lua += "scroll { dy = " + std::to_string(a.dy) + (a.dx ? ", dx = " + std::to_string(a.dx) : "") + ", at = " + target + " }";
            break;
        case UserAction::Kind::Drag: {
            std::string to, to_why;
            if (it.before && it.target.empty()) {
                std::vector<ProvenTarget> ts = w.prove(it, a.to, stem + "_to", frame_ref);
                to = lineTarget(ts);
                to_why = lineWhy(ts);
            } else {
                to = "{ x = " + std::to_string(a.to.x) + ", y = " + std::to_string(a.to.y) + " }";
                to_why = "the end as recorded";
            }
            lua += "drag(" + target + ", " + to + ", " + seconds(std::max(0.1, a.end - a.time)) + ")";
            why = "from: " + why + "; to: " + to_why;
            break;
        }
        default: break;
        }
        lua += "   -- " + why + (frame_ref.empty() ? "" : " (proven on " + frame_ref + ")") + "\n";
        prev_end = a.end;
    }
    return w.out;
}

void writeDeferredEvidence(const DeferredEvidence& e) {
    writeEvidence(e.path, e.screen->frame, e.with_tree && e.screen->tree ? &*e.screen->tree : nullptr, e.targets);
}

}  // namespace eacu
