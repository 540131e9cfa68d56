#include "planner/Grounding.h"

#include <cmath>
#include <set>
#include <stdexcept>

#include <opencv2/imgcodecs.hpp>

#include "model/Action.h"
#include "model/Prompts.h"
#include "planner/Autopilot.h"
#include "step/Session.h"
#include "step/StepError.h"

namespace eacu {

using json = nlohmann::json;

namespace {

const char* kGroundSystem = R"(You locate one UI element on a screenshot of a Linux (X11) desktop.
The screenshot has numbered boxes around the elements that were detected; the list below gives
each element's ID, kind, text and box as [x1, y1, x2, y2] in 0-1000 of the screenshot's width
and height (0,0 is the top-left corner).

Answer with exactly one JSON object and nothing else:
{"thought": "...", "element_id": 5}                   when a listed element is the target;
{"thought": "...", "box": [x1, y1, x2, y2]}           when it is not listed (0-1000 scale);
{"thought": "...", "found": false, "reason": "..."}   when it is not on the screen.)";

std::string typeName(const json& v) {
    if (v.is_null()) return "null";
    if (v.is_boolean()) return "a boolean";
    if (v.is_string()) return "a string";
    if (v.is_array()) return "an array";
    if (v.is_object()) return "an object";
    return "a number (" + v.dump() + ")";
}

}  // namespace

std::string groundingElementList(const SomResult& som, const ModelImageTransform& t) {
    std::string out;
    for (const auto& e : som.elements) {
        Point a = t.physicalToPermille({e.box.x, e.box.y});
        Point b = t.physicalToPermille({e.box.x + e.box.w, e.box.y + e.box.h});
        out += "[" + std::to_string(e.id) + "] " + e.kind + " " + (e.content.empty() ? "(no text)" : json(e.content).dump()) +
               " box=[" + std::to_string(a.x) + "," + std::to_string(a.y) + "," + std::to_string(b.x) + "," +
               std::to_string(b.y) + "]\n";
    }
    return out.empty() ? "(no elements detected)\n" : out;
}

Grounding parseGrounding(const std::string& raw, const model::ActionContext& ctx) {
    auto fail = [&](const std::string& why) { return model::ActionParseError(why, raw); };
    json j = json::parse(model::stripCodeFence(raw), nullptr, false);
    if (j.is_discarded()) throw fail("expected one JSON object (a grounding), got text that is not JSON");
    if (!j.is_object()) throw fail("expected one JSON object (a grounding), got " + typeName(j));
    static const std::set<std::string> allowed = {"thought", "element_id", "box", "found", "reason", "xmin", "ymin",
                                                  "xmax", "ymax", "confidence", "suggestion"};
    for (auto it = j.begin(); it != j.end(); ++it)
        if (!allowed.count(it.key()))
            throw fail("unexpected field \"" + it.key() + "\" (expected element_id, box, or found/reason)");
    Grounding g;
    g.raw = raw;
    if (j.contains("thought") && j["thought"].is_string()) g.reason = j["thought"];
    ModelImageTransform t{ctx.screen, ctx.screen};
    if (j.contains("found") && !j["found"].is_boolean())
        throw fail("expected \"found\" to be a boolean, got " + typeName(j["found"]));
    if (j.contains("found") && !j["found"].get<bool>()) {
        g.found = false;
        if (j.contains("reason") && j["reason"].is_string()) g.reason = j["reason"];
        return g;
    }
    if (j.contains("element_id")) {
        const json& e = j["element_id"];
        if (!e.is_number_integer()) throw fail("expected \"element_id\" to be an integer, got " + typeName(e));
        int id = e.get<int>();
        auto it = ctx.elements.find(id);
        if (it == ctx.elements.end())
            throw fail("element_id " + std::to_string(id) + " is not in the element list (" +
                       (ctx.elements.empty() ? std::string("the list is empty")
                                             : "IDs " + std::to_string(ctx.elements.begin()->first) + ".." +
                                                   std::to_string(ctx.elements.rbegin()->first)) +
                       ")");
        g.found = true;
        g.element_id = id;
        g.box = it->second;
        g.method = "model-element";
    } else {
        double v[4];
        if (j.contains("box")) {
            const json& b = j["box"];
            if (!b.is_array() || b.size() != 4) throw fail("expected \"box\" to be [x1, y1, x2, y2], got " + b.dump());
            for (int i = 0; i < 4; ++i) {
                if (!b[i].is_number()) throw fail("expected \"box\" to hold numbers, got " + b.dump());
                v[i] = b[i].get<double>();
            }
        } else if (j.contains("xmin")) {
            const char* k[4] = {"xmin", "ymin", "xmax", "ymax"};
            for (int i = 0; i < 4; ++i) {
                if (!j.contains(k[i]) || !j[k[i]].is_number()) throw fail(std::string("expected a number \"") + k[i] + "\"");
                v[i] = j[k[i]].get<double>();
            }
        } else {
            throw fail("expected \"element_id\", \"box\" or \"found\": false");
        }
        for (double x : v)
            if (!std::isfinite(x) || x < 0 || x > 1000)
                throw fail("expected box values in 0..1000, got [" + std::to_string(v[0]) + ", " + std::to_string(v[1]) +
                           ", " + std::to_string(v[2]) + ", " + std::to_string(v[3]) + "]");
        if (v[2] < v[0] || v[3] < v[1]) throw fail("expected x1 <= x2 and y1 <= y2 in \"box\"");
        g.found = true;
        g.box = t.permilleBoxToPhysical(v[0], v[1], v[2], v[3]);
        if (g.box.w < 1) g.box.w = 1;
        if (g.box.h < 1) g.box.h = 1;
        g.method = "model-box";
    }
    g.point = g.box.center();
    if (ctx.screen.w > 0 && (g.point.x < 0 || g.point.y < 0 || g.point.x >= ctx.screen.w || g.point.y >= ctx.screen.h))
        throw fail("the point (" + std::to_string(g.point.x) + "," + std::to_string(g.point.y) + ") is outside the screen");
    return g;
}

Grounding ground(ModelContext& ctx, const std::string& description, double timeout,
                 const std::string& provider, bool assertion, const cv::Mat& reference) {
    if (description.empty()) throw std::invalid_argument("dynamic target: expected a description, got an empty string");
    double deadline = monotonicSeconds() + std::max(0.0, timeout);
    for (;;) {
        Observation o = ctx.observe(true);
        ModelImage shown = makeModelImage(somOverlay(o.frame.bgr, o.som), ctx.options().image, o.frame.scale);
        std::string list = groundingElementList(o.som, o.image.transform);
        std::string prompt = "# Find: " + description + "\n\n# Elements:\n" + list +
                             "\nAnswer with the JSON object for the element that matches the description.";
        model::Request req;
        req.system = kGroundSystem;
        req.max_tokens = 512;
        req.json_mode = true;
        req.messages.push_back(ctx.screenMessage(shown, o, prompt));
        if (!reference.empty()) {
            std::vector<unsigned char> png;
            cv::imencode(".png", reference, png);
            req.messages.back().parts.push_back(
                model::Part::textPart("Reference image: the element as it looked when the script was recorded."));
            req.messages.back().parts.push_back(model::Part::image(std::string(png.begin(), png.end())));
        }
        model::ActionContext actx;
        actx.elements = o.som.boxes();
        actx.screen = {o.frame.width(), o.frame.height()};
        model::CallMeta meta =
            ModelContext::callMeta(o, assertion ? "assert" : "locate", req.system + "\n" + "# Find: " + description);
        meta.cacheable = !assertion && reference.empty();
        meta.elements = list;
        // A "not found" answer stands as it is.
        meta.validate = model::CallMeta::parsesWith([&](const std::string& text) { parseGrounding(text, actx); });
        model::Response r = ctx.call(req, meta, provider);
        Grounding g = parseGrounding(r.text, actx);
        g.from_cache = r.from_cache;
        g.call_id = ctx.caller().lastRowId();
        g.frame_id = o.frame_id;
        if (g.found || monotonicSeconds() >= deadline) return g;
        ctx.session().cancel().sleep(std::min(0.5, std::max(0.0, deadline - monotonicSeconds())));
    }
}

Grounding groundAndAct(ModelContext& ctx, const std::string& desc, const std::string& action, double timeout,
                       const std::string& provider, bool assertion) {
    if (action != "locate" && action != "tap" && action != "double_tap" && action != "right_tap")
        throw std::invalid_argument("ground: expected action locate|tap|double_tap|right_tap, got \"" + action + "\"");
    std::string label = "{dynamic=" + json(desc).dump() + "}";
    // An action past the run's limits fails before a model call is spent on it.
    if (action != "locate") ctx.session().executor().checkLimits(action + " " + label);
    double t0 = monotonicSeconds();
    Grounding g = ground(ctx, desc, timeout, provider, assertion);
    double ms = (monotonicSeconds() - t0) * 1000;
    Session& s = ctx.session();
    if (action == "locate" || !g.found) {
        StepRecord st = s.beginStep(action, label);
        st.method = g.found ? g.method : "model";
        st.status = g.found ? "ok" : (action == "locate" ? "not_found" : "failed");
        if (!g.found) st.error = action + " " + label + ": the model did not find it" + (g.reason.empty() ? "" : ": " + g.reason);
        if (g.found) {
            st.box = g.box;
            st.input = g.point;
        }
        st.locate_ms = ms;
        if (g.frame_id) st.frame_before = g.frame_id;
        st.params_json = json{{"model_call", g.call_id}, {"from_cache", g.from_cache}, {"reason", g.reason}}.dump();
        int64_t id = s.commitStep(st);
        if (!g.found && action != "locate") throw StepError(failure::kNotFound, st.error, id, g.frame_id, label);
        return g;
    }
    model::Action a;
    a.type = action == "double_tap"  ? model::ActionType::DoubleClick
             : action == "right_tap" ? model::ActionType::RightClick
                                     : model::ActionType::Click;
    a.point = g.point;
    a.box = g.box;
    a.element_id = g.element_id;
    Frame before = s.device().capture();
    performModelAction(ctx, a, before, 0, label,
                       {{"model_call", g.call_id}, {"grounding", g.method}, {"from_cache", g.from_cache}});
    return g;
}

}  // namespace eacu
