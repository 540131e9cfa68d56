#include "planner/Autopilot.h"

#include <optional>
#include <stdexcept>

#include "step/ActionExecutor.h"
#include "step/Limits.h"
#include "step/StepError.h"
#include "model/Prompts.h"

namespace eacu {

using json = nlohmann::json;

std::string elementLabel(const SomResult& som, int id) {
    for (const auto& e : som.elements)
        if (e.id == id)
            return "[" + std::to_string(id) + "] " + e.kind + " " + (e.content.empty() ? "(无文字)" : "\"" + e.content + "\"");
    return "[" + std::to_string(id) + "]";
}

namespace {


std::string joinKeys(const std::vector<std::string>& keys) {
    std::string out;
    for (const auto& k : keys) out += (out.empty() ? "" : "+") + (k == "+" ? std::string("plus") : k);
    return out;
}

}  // namespace

ActionOutcome performModelAction(ModelContext& ctx, const model::Action& a, const Frame& before, int64_t before_id,
                                 const std::string& label, const json& params, ClickAimer* aimer) {
    Session& s = ctx.session();
    ActionOutcome out;
    using T = model::ActionType;
    if (a.type == T::Done || a.type == T::Fail || a.type == T::NeedsUser) return out;
    if (a.type == T::Wait) {
        s.cancel().sleep(a.seconds);
        out.did = "等待了 " + std::to_string(int(a.seconds * 1000)) + " ms";
        Frame f = s.device().capture();
        out.changed = false;
        out.settle.frame = std::move(f);
        return out;
    }
    if (a.type == T::Type && a.point) {
        // Focus the field first, as its own (replayable) tap step.
        model::Action click = a;
        click.type = T::Click;
        click.text.clear();
        ActionOutcome c = performModelAction(ctx, click, before, before_id, label, params, aimer);
        model::Action typing = a;
        typing.point.reset();
        ActionOutcome t = performModelAction(ctx, typing, c.settle.frame, 0, label, params);
        t.did = "在 " + label + " 中输入了 \"" + clipUtf8(a.text, 60) + "\"";
        t.changed = t.changed || c.changed;
        return t;
    }

    InputAction in;
    in.target = label;
    in.method = "model";
    in.box = a.box;
    in.at = a.point;
    in.before = before;
    in.before_id = before_id;
    in.retry_without_effect = false;  // the model sees the screen again and decides
    switch (a.type) {
    case T::Click:
    case T::DoubleClick:
    case T::RightClick:
        in.action = a.type == T::DoubleClick ? "double_tap" : "tap";
        in.button = a.type == T::RightClick ? MouseButton::Right : MouseButton::Left;
        in.count = a.type == T::DoubleClick ? 2 : 1;
        out.did = std::string(a.type == T::DoubleClick ? "双击了 " : a.type == T::RightClick ? "右键点击了 " : "点击了 ") + label;
        if (aimer && a.point) {
            AimedClick aimed = aimer->aim(a.thought, label, *a.point, a.box);
            if (aimed.by_person) {
                // Not pressed: the person did it (seed 001 §4.1); the screen is looked at again.
                out.did = "用户代为" + out.did + "（指针校准 " + std::to_string(aimed.checks) + " 次仍未对准）";
                out.settle = s.waitSettled(before);
                out.changed = out.settle.change_ratio > 0;
                return out;
            }
            in.at = aimed.point;
            in.before = Frame();  // the pointer moved meanwhile: the before-frame is captured again
            in.before_id = 0;
        }
        break;
    case T::Type:
        in.action = "input";
        in.target = a.text;
        in.text = a.text;
        in.method = "keyboard";
        in.params["label"] = label;
        out.did = "输入了 \"" + clipUtf8(a.text, 60) + "\"";
        break;
    case T::Hotkey:
    case T::Press:
        in.action = "key";
        in.combo = a.type == T::Hotkey ? joinKeys(a.keys) : a.key;
        in.target = in.combo;
        in.method = "keyboard";
        out.did = "按下了 " + in.combo;
        break;
    case T::Scroll: {
        int n = a.amount;
        in.action = "scroll";
        in.dx = a.direction == "right" ? n : a.direction == "left" ? -n : 0;
        in.dy = a.direction == "down" ? n : a.direction == "up" ? -n : 0;
        out.did = "向" + std::string(a.direction == "down" ? "下" : a.direction == "up" ? "上" : a.direction == "left" ? "左" : "右") +
                  "滚动了 " + std::to_string(n) + " 格" + (a.point ? "（" + label + "）" : "");
        break;
    }
    default:
        throw std::invalid_argument("model action: nothing to execute for " + a.toJson().dump());
    }
    // Seed 001 §9: pressing what reads as pay/delete/send/submit needs a person's yes.
    in.risky = looksRisky(label + " " + a.text);
    for (auto it = params.begin(); it != params.end(); ++it) in.params[it.key()] = it.value();
    if (!a.thought.empty()) in.params["thought"] = a.thought;
    if (a.element_id) in.params["element_id"] = *a.element_id;
    InputResult r = s.executor().perform(std::move(in));
    out.step_id = r.step_id;
    out.settle = std::move(r.settle);
    out.changed = out.settle.change_ratio > 0;
    return out;
}

AutopilotResult runAutopilot(ModelContext& ctx, const std::string& task, const AutopilotOptions& opts) {
    if (task.empty()) throw std::invalid_argument("autopilot: expected a task, got an empty string");
    if (opts.max_steps < 1) throw std::invalid_argument("autopilot: max_steps must be >= 1, got " + std::to_string(opts.max_steps));
    Session& s = ctx.session();
    AutopilotResult res;
    std::vector<model::Message> messages;
    int invalid = 0;
    double t0 = monotonicSeconds();
    int64_t first_frame = 0, last_frame = 0;
    std::optional<ClickAimer> aimer;
    if (opts.click_check) aimer.emplace(ctx, task, opts.click);

    auto finish = [&](const std::string& status, const std::string& message) {
        res.status = status;
        res.message = message;
        StepRecord st = s.beginStep("autopilot", task);
        st.started_at = wallSeconds() - (monotonicSeconds() - t0);
        st.method = "model";
        st.status = status == "done" ? "ok" : "failed";
        if (status != "done") st.error = "autopilot " + status + ": " + message;
        st.action_ms = (monotonicSeconds() - t0) * 1000;
        if (first_frame) st.frame_before = first_frame;
        if (last_frame) st.frame_after = last_frame;
        st.params_json = json{{"status", status}, {"message", message}, {"steps", res.steps},
                              {"cached", res.cached}, {"history", res.history}, {"actions", res.actions},
                              {"model", ctx.describe()}}
                             .dump();
        res.step_id = s.commitStep(st);
    };

    ActorScope model_steps(s, "model");
    for (int step = 1; step <= opts.max_steps; ++step) {
        s.cancel().check();
        s.checkpoint();  // a step boundary: a take-over pauses here; the screen is observed after it
        Observation o = ctx.observe(true);
        if (!first_frame) first_frame = o.frame_id;
        last_frame = o.frame_id;
        ModelImage shown = makeModelImage(somOverlay(o.frame.bgr, o.som), ctx.options().image, o.frame.scale);
        std::string prompt = model::somUserPrompt(task, step, o.som_text, res.history);
        messages.push_back(ctx.screenMessage(shown, o, prompt));
        model::keepRecentImages(messages, opts.keep_images);

        model::Request req;
        req.system = model::somSystemPrompt();
        req.messages = messages;
        req.max_tokens = ctx.options().max_tokens;
        req.json_mode = true;
        model::markPromptCache(req);

        model::ActionContext actx;
        actx.elements = o.som.boxes();
        actx.screen = {o.frame.width(), o.frame.height()};
        actx.coords = model::CoordSpace::None;

        model::CallMeta meta = ModelContext::callMeta(o, "autopilot", req.system + "\n" + prompt);
        meta.elements = o.som_text;
        meta.validate = model::CallMeta::parsesWith([&](const std::string& text) { model::parseAction(text, actx); });
        model::Response r = ctx.call(req, meta, opts.provider);
        res.steps = step;
        if (r.from_cache) ++res.cached;
        int64_t call_id = ctx.caller().lastRowId();
        messages.push_back(model::Message::assistant(r.text.empty() ? "(empty)" : r.text));

        model::Action a;
        try {
            a = model::parseAction(r.text, actx);
            invalid = 0;
        } catch (const model::ActionParseError& e) {
            res.history.push_back("Step " + std::to_string(step) + ": 回答不是有效的动作 JSON（" +
                                  clipUtf8(e.what(), 160) + "）→ 未执行 ✗");
            res.actions.push_back({{"invalid", e.what()}});
            if (++invalid >= opts.max_invalid) {
                finish("fail", std::to_string(invalid) + " answers in a row were not a valid action; last: " + e.what());
                return res;
            }
            continue;
        }
        json aj = a.toJson();
        aj["model_call"] = call_id;
        res.actions.push_back(aj);
        using T = model::ActionType;
        if (a.type == T::Done) {
            res.history.push_back("Step " + std::to_string(step) + ": 任务完成");
            finish("done", a.text.empty() ? a.thought : a.text);
            s.setAnswer(res.message);
            return res;
        }
        if (a.type == T::NeedsUser) {
            std::string why = a.text.empty() ? a.thought : a.text;
            if (why.empty()) why = "(no reason given)";
            const std::string line = "Step " + std::to_string(step) + ": 需要用户：" + why;
            std::string reply;
            try {
                reply = s.awaitUser("needs_user", why, {{"autopilot_step", step}, {"model_call", call_id}});
            } catch (const StepError& e) {
                if (e.code != failure::kBlocked) throw;
                res.history.push_back(line);
                finish("needs_user", why);
                return res;
            }
            // The person acted: the next step looks at the screen again.
            res.history.push_back(line + " → 用户已操作: " + clipUtf8(reply, 200));
            continue;
        }
        if (a.type == T::Fail) {
            std::string why = a.text.empty() ? a.thought : a.text;
            res.history.push_back("Step " + std::to_string(step) + ": 放弃：" + why);
            finish("fail", why.empty() ? "(no reason given)" : why);
            return res;
        }
        std::string label = a.element_id ? elementLabel(o.som, *a.element_id) : std::string("(screen)");
        s.intent(a.thought.empty() ? std::string(model::actionName(a.type)) + " " + label : a.thought);
        ActionOutcome out;
        try {
            out = performModelAction(ctx, a, o.frame, o.frame_id, label, {{"autopilot_step", step}, {"model_call", call_id}},
                                     aimer ? &*aimer : nullptr);
        } catch (const StepError& e) {
            // The run's limits, a refused risky action, a pointer that went astray: the autopilot
            // stops here, with its summary step, and the error goes on to the script.
            res.history.push_back("Step " + std::to_string(step) + ": " + clipUtf8(e.what(), 200) + " ✗");
            finish(e.code, e.what());
            throw;
        }
        res.history.push_back(model::historyLine(step, out.did, out.changed));
    }
    finish("max_steps", "the task was not done after " + std::to_string(opts.max_steps) + " steps; last: " +
                            (res.history.empty() ? std::string("(none)") : res.history.back()));
    return res;
}

}  // namespace eacu
