#include "planner/Planner.h"

#include <set>
#include <stdexcept>

#include "model/Action.h"
#include "model/Prompts.h"
#include "planner/Autopilot.h"
#include "planner/Grounding.h"
#include "step/Session.h"

namespace eacu {

using json = nlohmann::json;

namespace {

const char* kPlanSystem = R"(You are the task planner of a desktop automation system on Linux (X11).
Break the user's task into a short list of steps that a step runner executes one by one.

Targets ("target_ref"): prefer a name from the asset list (reference images found by template
matching, fast and exact); use "dynamic:<description>" only for things no asset shows.

Answer with exactly one JSON object and nothing else:
{"analysis": {"current_screen": "...", "target_state": "...", "estimated_steps": N},
 "steps": [
   {"step": 1, "action": "tap", "target_ref": "<asset name or dynamic:description>",
    "description": "...", "verify_ref": "<optional target that must appear>",
    "fallback": {"action": "...", ...}, "timeout": 3000, "retry": 1},
   {"step": 2, "action": "input_text", "params": {"text": "..."}, "description": "..."},
   {"step": 3, "action": "press_key", "params": {"key": "enter"}},
   {"step": 4, "action": "scroll", "params": {"direction": "down", "amount": 3}},
   {"step": 5, "action": "wait", "params": {"ms": 1000}}
 ],
 "success_criteria": "...", "potential_issues": ["..."]}
Actions: tap, double_tap, long_press, input_text, press_key, scroll, swipe, wait.)";

const std::set<std::string> kActions = {"tap", "double_tap", "long_press", "input_text", "press_key",
                                        "scroll", "swipe", "wait"};
const std::set<std::string> kStepFields = {"step", "action", "target_ref", "target_type", "description", "params",
                                           "verify_ref", "success_condition", "fallback", "timeout", "retry",
                                           "wait_before", "wait_after"};

PlanStep parseStep(const json& j, const std::string& where, const std::string& raw, bool is_fallback) {
    auto fail = [&](const std::string& why) { return model::ActionParseError(where + ": " + why, raw); };
    if (!j.is_object()) throw fail("expected a step object, got " + j.dump());
    for (auto it = j.begin(); it != j.end(); ++it)
        if (!kStepFields.count(it.key())) throw fail("unexpected field \"" + it.key() + "\"");
    PlanStep s;
    s.raw = j;
    if (!j.contains("action") || !j["action"].is_string()) throw fail("expected a string \"action\"");
    s.action = j["action"];
    if (s.action == "type") s.action = "input_text";
    if (s.action == "key" || s.action == "press") s.action = "press_key";
    if (!kActions.count(s.action))
        throw fail("expected action tap|double_tap|long_press|input_text|press_key|scroll|swipe|wait, got \"" +
                   s.action + "\"");
    auto str = [&](const char* k) -> std::string {
        if (!j.contains(k) || j[k].is_null()) return "";
        if (!j[k].is_string()) throw fail(std::string("expected \"") + k + "\" to be a string, got " + j[k].dump());
        return j[k];
    };
    s.target_ref = str("target_ref");
    s.description = str("description");
    s.verify_ref = str("verify_ref");
    if (j.contains("step") && j["step"].is_number_integer()) s.step = j["step"];
    if (j.contains("params")) {
        if (!j["params"].is_object()) throw fail("expected \"params\" to be an object, got " + j["params"].dump());
        s.params = j["params"];
    }
    if (j.contains("timeout")) {
        if (!j["timeout"].is_number() || j["timeout"].get<double>() < 0 || j["timeout"].get<double>() > 120000)
            throw fail("expected \"timeout\" in 0..120000 ms, got " + j["timeout"].dump());
        s.timeout_ms = int(j["timeout"].get<double>());
    }
    for (auto [key, field] : {std::pair<const char*, int*>{"wait_before", &s.wait_before_ms}, {"wait_after", &s.wait_after_ms}}) {
        if (!j.contains(key)) continue;
        if (!j[key].is_number() || j[key].get<double>() < 0 || j[key].get<double>() > 60000)
            throw fail(std::string("expected \"") + key + "\" in 0..60000 ms, got " + j[key].dump());
        *field = int(j[key].get<double>());
    }
    if (j.contains("retry")) {
        if (!j["retry"].is_number_integer() || j["retry"].get<int>() < 0 || j["retry"].get<int>() > 5)
            throw fail("expected \"retry\" in 0..5, got " + j["retry"].dump());
        s.retry = j["retry"];
    }
    if (is_fallback) s.retry = 0;
    bool needs_target = s.action == "tap" || s.action == "double_tap" || s.action == "long_press";
    if (needs_target && s.target_ref.empty()) throw fail("action " + s.action + " needs a \"target_ref\"");
    if (s.action == "input_text" && !(s.params.contains("text") && s.params["text"].is_string()))
        throw fail("action input_text needs params.text (a string)");
    if (s.action == "press_key" && !(s.params.contains("key") && s.params["key"].is_string()))
        throw fail("action press_key needs params.key (a string)");
    if ((s.action == "scroll" || s.action == "swipe") && !(s.params.contains("direction") && s.params["direction"].is_string()))
        throw fail("action " + s.action + " needs params.direction (up|down|left|right)");
    if (j.contains("fallback") && !j["fallback"].is_null()) {
        if (is_fallback) throw fail("a fallback cannot have its own fallback");
        s.fallback = std::make_shared<PlanStep>(parseStep(j["fallback"], where + " fallback", raw, true));
    }
    return s;
}

std::string stepLabel(const PlanStep& s) {
    std::string l = s.action;
    if (!s.target_ref.empty()) l += " " + json(s.target_ref).dump();
    if (s.action == "input_text") l += " " + json(s.params.value("text", "")).dump();
    if (s.action == "press_key") l += " " + s.params.value("key", "");
    if (s.action == "scroll" || s.action == "swipe") l += " " + s.params.value("direction", "");
    return l;
}

bool isDynamic(const std::string& ref) { return ref.rfind("dynamic:", 0) == 0; }

// Taps (or presses, double-taps) a target_ref: an asset by template, else grounded by the model.
void actOnTarget(ModelContext& ctx, const PlanStep& s, const std::string& provider) {
    Session& ses = ctx.session();
    double timeout = s.timeout_ms / 1000.0;
    std::string ref = s.target_ref;
    bool dynamic = isDynamic(ref);
    if (!dynamic) {
        bool known = false;
        try {
            known = ses.assets().find(ref) != nullptr;
        } catch (const std::exception&) {
            known = false;
        }
        if (known) {
            TargetSpec t;
            t.image = ref;
            t.label = "\"" + ref + "\"";
            TapOptions o;
            o.timeout = timeout;
            if (s.action == "double_tap") o.count = 2, o.action = "double_tap";
            if (s.action == "long_press") o.hold = 1.0, o.action = "long_press";
            ses.tap(t, o);
            return;
        }
    }
    // Not an asset: ground the description (seed 002: dynamic → model; unknown name → description).
    std::string desc = dynamic ? ref.substr(8) : (s.description.empty() ? ref : s.description + " (" + ref + ")");
    Grounding g = ground(ctx, desc, timeout, provider);
    if (!g.found)
        throw StepError(failure::kNotFound, s.action + " {dynamic=" + json(desc).dump() + "}: the model did not find it" +
                        (g.reason.empty() ? "" : ": " + g.reason), 0, g.frame_id, "{dynamic=" + json(desc).dump() + "}");
    model::Action a;
    a.type = s.action == "double_tap" ? model::ActionType::DoubleClick : model::ActionType::Click;
    a.point = g.point;
    a.box = g.box;
    a.element_id = g.element_id;
    Frame before = ses.device().capture();
    performModelAction(ctx, a, before, 0, "{dynamic=" + json(desc).dump() + "}",
                       {{"model_call", g.call_id}, {"grounding", g.method}});
}

void verifyRef(ModelContext& ctx, const std::string& ref, int timeout_ms, const std::string& provider) {
    if (ref.empty()) return;
    if (isDynamic(ref)) {
        Grounding g = ground(ctx, ref.substr(8), timeout_ms / 1000.0, provider);
        if (!g.found) throw std::runtime_error("verify {dynamic=" + json(ref.substr(8)).dump() + "}: not on screen" +
                                               (g.reason.empty() ? "" : ": " + g.reason));
        return;
    }
    TargetSpec t;
    t.image = ref;
    t.label = "\"" + ref + "\"";
    ctx.session().wait(t, timeout_ms / 1000.0, "verify");
}

// The engine's action for a planned step: tap, double_tap and long_press (and the focus tap of
// an input_text with a target_ref) act through actOnTarget; the others are session actions.
// Bad params (a direction or a wait out of range) make an action that fails with them.
StepAction planAction(ModelContext& ctx, const PlanStep& s, const std::string& provider) {
    const std::string& k = s.action;
    StepAction a;
    a.label = stepLabel(s);
    try {
        if (k == "tap" || k == "double_tap" || k == "long_press") {
            a.kind = k;
            a.perform = [&ctx, s, provider](double timeout) -> std::optional<Match> {
                PlanStep t = s;
                t.timeout_ms = int(timeout * 1000);
                actOnTarget(ctx, t, provider);
                return std::nullopt;
            };
        } else if (k == "input_text") {
            a.kind = "input";
            a.text = s.params["text"].get<std::string>();
            if (!s.target_ref.empty())
                a.perform = [&ctx, s, provider, text = a.text](double timeout) -> std::optional<Match> {
                    PlanStep focus = s;
                    focus.action = "tap";
                    focus.timeout_ms = int(timeout * 1000);
                    actOnTarget(ctx, focus, provider);
                    ctx.session().input(text);
                    return std::nullopt;
                };
        } else if (k == "press_key") {
            a.kind = "key";
            a.text = s.params["key"].get<std::string>();
        } else if (k == "scroll" || k == "swipe") {
            a = scrollAction(s.params["direction"].get<std::string>(), k == "swipe", s.params.value("amount", 3));
            a.label = stepLabel(s);
        } else if (k == "wait") {
            double ms = s.params.value("ms", s.params.value("duration", 1000.0));
            if (!(ms >= 0 && ms <= 60000)) throw std::invalid_argument("wait: expected params.ms in 0..60000");
            a.kind = "wait";
            a.seconds = ms / 1000;
        }
    } catch (const std::exception& e) {
        std::string msg = e.what();
        a.kind = k == "input_text" ? "input" : k == "press_key" ? "key" : k;
        a.perform = [msg](double) -> std::optional<Match> { throw std::invalid_argument(msg); };
    }
    return a;
}

}  // namespace

Plan parsePlan(const std::string& raw) {
    json j = json::parse(model::stripCodeFence(raw), nullptr, false);
    if (j.is_discarded()) throw model::ActionParseError("expected one JSON object (a plan), got text that is not JSON", raw);
    if (!j.is_object()) throw model::ActionParseError("expected one JSON object (a plan), got " + j.dump(), raw);
    if (!j.contains("steps") || !j["steps"].is_array() || j["steps"].empty())
        throw model::ActionParseError("expected a non-empty array \"steps\"", raw);
    Plan p;
    if (j.contains("analysis")) p.analysis = j["analysis"];
    if (j.contains("success_criteria") && j["success_criteria"].is_string()) p.success_criteria = j["success_criteria"];
    int i = 0;
    for (const auto& s : j["steps"]) {
        ++i;
        p.steps.push_back(parseStep(s, "step " + std::to_string(i), raw, false));
        if (p.steps.back().step == 0) p.steps.back().step = i;
    }
    return p;
}

StepResult executePlanStep(ModelContext& ctx, const PlanStep& s, const std::string& provider) {
    StepSpec spec;
    spec.name = stepLabel(s);
    spec.method = "plan";
    spec.action = planAction(ctx, s, provider);
    if (!s.verify_ref.empty()) {
        StepCheck v;
        v.label = s.verify_ref;
        v.check = [&ctx, ref = s.verify_ref, provider](double timeout) {
            verifyRef(ctx, ref, int(timeout * 1000), provider);
        };
        spec.verify = std::move(v);
    }
    if (s.fallback) {
        // A fallback is an action (seed 002: swipe, press_key, wait, a tap elsewhere); its own
        // verify_ref, if any, must hold after it.
        const PlanStep& fb = *s.fallback;
        StepAction f = planAction(ctx, fb, provider);
        f.timeout = fb.timeout_ms / 1000.0;
        if (!fb.verify_ref.empty()) {
            StepAction act = f;
            f.perform = [&ctx, act, ref = fb.verify_ref, ms = fb.timeout_ms, provider](double timeout) {
                std::optional<Match> m = performAction(ctx.session(), act, timeout);
                verifyRef(ctx, ref, ms, provider);
                return m;
            };
        }
        spec.fallback.push_back(std::move(f));
    }
    spec.retry = s.retry;
    spec.timeout = s.timeout_ms / 1000.0;
    spec.wait_before = s.wait_before_ms / 1000.0;
    spec.wait_after = s.wait_after_ms / 1000.0;
    StepResult r = executeStep(ctx.session(), spec);
    // No model answer, a cancellation, the run's limits: retrying or replanning cannot help.
    if (!r.ok && (r.code == failure::kModel || r.code == failure::kCancelled || r.code == failure::kTimeout ||
                  r.code == failure::kLimit))
        std::rethrow_exception(r.cause);
    return r;
}

PlanResult runPlan(ModelContext& ctx, const std::string& task, const PlanOptions& opts) {
    if (task.empty()) throw std::invalid_argument("plan: expected a task, got an empty string");
    Session& ses = ctx.session();
    PlanResult res;
    double t0 = monotonicSeconds();
    std::string assets;
    for (const auto& name : ses.assets().names()) {
        const Asset* a = ses.assets().find(name);
        if (!a) continue;
        std::string line = "- " + name;
        if (!a->aliases.empty()) {
            line += " (aliases:";
            for (const auto& al : a->aliases) line += " " + json(al).dump();
            line += ")";
        }
        if (!a->description.empty()) line += ": " + a->description;
        assets += line + "\n";
    }
    if (assets.empty()) assets = "(none)\n";

    std::string failed_step, failure;
    int64_t first_frame = 0;
    auto finish = [&]() {
        StepRecord st = ses.beginStep("plan", task);
        st.started_at = wallSeconds() - (monotonicSeconds() - t0);
        st.method = "model";
        st.status = res.ok ? "ok" : "failed";
        st.error = res.ok ? "" : "plan failed: " + res.error;
        st.action_ms = (monotonicSeconds() - t0) * 1000;
        if (first_frame) st.frame_before = first_frame;
        st.params_json = json{{"plans", res.plans}, {"executed", res.executed}, {"replans", res.replans},
                              {"steps_done", res.steps_done}, {"model", ctx.describe()}}
                             .dump();
        res.step_id = ses.commitStep(st);
    };

    for (;;) {
        Observation o = ctx.observe(false);
        if (!first_frame) first_frame = o.frame_id;
        std::string prompt = "# Task: " + task + "\n\n# Assets (target_ref names):\n" + assets;
        if (!failed_step.empty()) {
            prompt += "\n# Executed steps:\n";
            for (const auto& l : res.executed) prompt += l + "\n";
            prompt += "\n# Failed step: " + failed_step + "\n# Failure: " + failure +
                      "\n\nReplan from the current screen: give the steps that remain to finish the task.";
        } else {
            prompt += "\nPlan the steps from the current screen.";
        }
        model::Request req;
        req.system = kPlanSystem;
        req.max_tokens = 2048;
        req.json_mode = true;
        req.messages.push_back(ctx.screenMessage(o.image, o, prompt));
        model::CallMeta meta = ModelContext::callMeta(o, "plan", req.system + "\n" + prompt);
        meta.validate = model::CallMeta::parsesWith([](const std::string& text) { parsePlan(text); });
        Plan plan;
        try {
            model::Response r = ctx.call(req, meta, opts.provider);
            plan = parsePlan(r.text);
            json pj = json::parse(model::stripCodeFence(r.text));
            res.plans.push_back(pj);
        } catch (const std::exception& e) {
            res.error = e.what();
            finish();
            throw;
        }
        bool failed = false;
        for (const PlanStep& s : plan.steps) {
            if (res.steps_done >= opts.max_steps) {
                res.error = "the step limit (" + std::to_string(opts.max_steps) + ") was reached";
                finish();
                return res;
            }
            StepResult r;
            try {
                r = executePlanStep(ctx, s, opts.provider);
            } catch (const std::exception& e) {
                // A model error, a cancellation or the run's limits: the plan ends here.
                res.executed.push_back(std::to_string(res.executed.size() + 1) + " " + stepLabel(s) + " failed: " +
                                       clipUtf8(e.what(), 300));
                res.error = "step " + stepLabel(s) + ": " + e.what();
                finish();
                throw;
            }
            if (r.ok) {
                ++res.steps_done;
                res.executed.push_back(std::to_string(res.executed.size() + 1) + " " + stepLabel(s) + " ok");
                continue;
            }
            res.executed.push_back(std::to_string(res.executed.size() + 1) + " " + stepLabel(s) + " failed: " +
                                   clipUtf8(r.reason, 300));
            failed_step = stepLabel(s) + (s.description.empty() ? "" : " (" + s.description + ")");
            failure = r.reason;
            res.error = "step " + stepLabel(s) + ": " + r.reason;
            failed = true;
            break;
        }
        if (!failed) {
            res.ok = true;
            res.error.clear();
            finish();
            return res;
        }
        if (res.replans >= opts.max_replans) {
            res.error += " (after " + std::to_string(res.replans) + " replan" + (res.replans == 1 ? "" : "s") + ")";
            finish();
            return res;
        }
        ++res.replans;
    }
}

}  // namespace eacu
