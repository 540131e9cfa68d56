#include "planner/ClickAim.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "base/Ascii.h"
#include "model/ClickCheck.h"
#include "step/ActionExecutor.h"
#include "planner/ModelContext.h"
#include "step/Session.h"
#include "step/StepError.h"

namespace eacu {

using json = nlohmann::json;

bool clickCheckFromEnv() {
    const char* v = std::getenv("EACU_CLICK_CHECK");
    if (!v) return false;
    std::string s = asciiLower(v);
    return s == "1" || s == "true" || s == "yes" || s == "on";
}

ClickAimer::ClickAimer(ModelContext& ctx, std::string task, ClickCheckOptions options)
    : ctx_(ctx), task_(std::move(task)), options_(options) {
    if (options_.max_corrections < 0)
        throw std::invalid_argument("click check: max_corrections must be >= 0, got " +
                                    std::to_string(options_.max_corrections));
}

AimedClick ClickAimer::aim(const std::string& intent, const std::string& label, Point target,
                           const std::optional<Rect>& box, std::optional<int64_t> parent_id) {
    Session& s = ctx_.session();
    AimedClick out;
    Point want = target;
    for (int i = 0;; ++i) {
        InputAction mv;
        mv.action = "move";
        mv.target = label;
        mv.at = want;
        mv.box = box;
        mv.method = "click_check";
        mv.retry_without_effect = false;
        mv.parent_id = parent_id;
        mv.params = {{"click_check", i}};
        s.executor().perform(std::move(mv));

        Observation o = ctx_.observe(false);
        const ModelImageTransform& t = o.image.transform;
        model::ClickCheckQuestion q;
        q.task = task_;
        q.intent = intent;
        q.label = label;
        q.target = t.physicalToImage(target);
        if (box) q.box = t.physicalRectToImage(*box);
        q.pointer = t.physicalToImage(o.cursor);
        const std::string prompt = model::clickCheckPrompt(q);

        StepRecord st = s.beginStep("click_check", label);
        st.method = "model";
        st.parent_id = parent_id;
        st.input = o.cursor;
        st.box = box;
        if (o.frame_id) st.frame_before = o.frame_id;
        st.transform_json = t.toJson().dump();
        json params = {{"check", i + 1}, {"target", {target.x, target.y}}, {"pointer", {o.cursor.x, o.cursor.y}}};

        model::Request req;
        req.system = model::clickCheckSystemPrompt();
        req.max_tokens = 200;
        req.json_mode = true;
        req.messages.push_back(ctx_.screenMessage(o.image, o, prompt));
        model::CallMeta meta = ModelContext::callMeta(o, "click_check", req.system + "\n" + prompt);
        meta.validate = model::CallMeta::parsesWith([](const std::string& text) { model::parseClickCheck(text); });
        double t0 = monotonicSeconds();
        model::ClickCheckAnswer a;
        try {
            model::Response r = ctx_.call(req, meta);
            params["model_call"] = ctx_.caller().lastRowId();
            a = model::parseClickCheck(r.text);
        } catch (const std::runtime_error& e) {
            st.status = "failed";
            st.error = e.what();
            st.action_ms = (monotonicSeconds() - t0) * 1000;
            st.params_json = params.dump();
            int64_t id = s.commitStep(st);
            if (dynamic_cast<const model::ModelError*>(&e)) throw;
            throw StepError(failure::kModel, e.what(), id, o.frame_id, label);
        }
        ++out.checks;
        const bool near = std::hypot(double(a.dx), double(a.dy)) <= options_.radius;
        params.update(json{{"on_target", a.on_target}, {"dx", a.dx}, {"dy", a.dy}, {"near", near}});
        st.action_ms = (monotonicSeconds() - t0) * 1000;
        st.params_json = params.dump();
        s.commitStep(st);
        if (a.on_target || near) {
            out.point = o.cursor;
            return out;
        }
        if (i >= options_.max_corrections) break;
        // The correction is in screenshot pixels: the pointer there, moved, back to physical.
        double x = std::clamp(double(q.pointer.x + a.dx), 0.0, double(t.image.w));
        double y = std::clamp(double(q.pointer.y + a.dy), 0.0, double(t.image.h));
        want = t.imageToPhysical(x, y);
        want.x = std::min(want.x, std::max(0, o.frame.width() - 1));
        want.y = std::min(want.y, std::max(0, o.frame.height() - 1));
    }
    // Seed 001 §4.1: after N corrections it does not click; the person does.
    const std::string text = "请帮忙点击 " + label + (intent.empty() ? "" : "（" + intent + "）") + "：鼠标指针校准 " +
                             std::to_string(out.checks) + " 次后仍未对准目标，没有点击。点完后请告诉我。";
    out.reply = s.awaitUser("click", text,
                            {{"target", {target.x, target.y}}, {"label", label}, {"checks", out.checks}});
    out.by_person = true;
    out.point = target;
    return out;
}

}  // namespace eacu
