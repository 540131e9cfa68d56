#include "recorder/RecordedScript.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>

#include "base/Utf8.h"

namespace fs = std::filesystem;

namespace eacu {

namespace {

std::string seconds(double s) {
    char b[32];
    std::snprintf(b, sizeof b, "%.1f", s);
    return b;
}

bool isPointer(UserAction::Kind k) { return k != UserAction::Kind::Input && k != UserAction::Kind::Key; }

struct Writer {
    const Locator& locator;
    const ScriptOptions& o;
    WrittenScript out;
    std::vector<std::pair<cv::Mat, std::string>> saved;  // crops written, and their Lua names

    // The target for `p` on the item's screen, its image saved when it is one.
    ProvenTarget prove(const ScriptItem& it, Point p, const std::string& stem) {
        ProofOptions po;
        if (p == it.action.at) po.band = it.band;
        po.image_ref = o.assets_ref;
        po.image_stem = stem;
        const A11yElement* tree = it.before && it.before->tree ? &*it.before->tree : nullptr;
        ProvenTarget t = proveTarget(it.before->frame, tree, p, locator, po);
        out.proof_ms.push_back(t.ms);
        switch (t.kind) {
        case ProvenTarget::Kind::A11y: ++out.a11y; break;
        case ProvenTarget::Kind::Relative: ++out.relative; break;
        case ProvenTarget::Kind::Text: ++out.text; break;
        case ProvenTarget::Kind::Image: ++out.image; break;
        case ProvenTarget::Kind::Point: ++out.points; break;
        }
        if (t.kind == ProvenTarget::Kind::Image) {
            for (const auto& [crop, lua] : saved) {  // the same pixels tapped again: one file
                if (crop.size() == t.crop.size() && cv::norm(crop, t.crop, cv::NORM_INF) == 0) {
                    t.lua = lua;
                    return t;
                }
            }
            fs::create_directories(o.assets_dir);
            std::string path = (fs::path(o.assets_dir) / t.image_file).string();
            writeScaledPng(path, t.crop, t.scale);
            out.images.push_back(path);
            saved.emplace_back(t.crop, t.lua);
        }
        return t;
    }
};

}  // namespace

WrittenScript writeScript(const std::vector<ScriptItem>& items, const Locator& locator, const ScriptOptions& o) {
    Writer w{locator, o, {}, {}};
    std::string& lua = w.out.lua;
    for (const std::string& h : o.header) lua += "-- " + h + "\n";
    double prev_end = -1;
    bool after_launch = false;
    int n = 0;
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
        std::string target, why;
        bool point = false;
        if (!it.target.empty()) {
            target = it.target;
            why = it.comment;
            ++w.out.known;
        } else if (it.before) {
            ProvenTarget t = w.prove(it, a.at, stem);
            target = t.lua;
            why = t.why + (it.comment.empty() ? "" : "; " + it.comment);
            point = t.kind == ProvenTarget::Kind::Point;
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
                ProvenTarget t = w.prove(it, a.to, stem + "_to");
                to = t.lua;
                to_why = t.why;
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
        lua += "   -- " + why + "\n";
        prev_end = a.end;
    }
    return w.out;
}

}  // namespace eacu
