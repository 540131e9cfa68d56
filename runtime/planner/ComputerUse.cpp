#include "planner/ComputerUse.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <stdexcept>

#include <opencv2/imgproc.hpp>

#include "base/Clock.h"
#include "base/Utf8.h"
#include "model/Prompts.h"
#include "step/Limits.h"
#include "step/StepError.h"
#include "vision/CursorMark.h"

namespace eacu {

using json = nlohmann::json;

namespace {

const char* kSystem =
    "You operate a computer through the `computer` tool to do the user's task. Take a screenshot first. "
    "Coordinates are pixels of the screenshot. After each action you get a new screenshot; check it before "
    "the next action. The mouse pointer is marked with a red circle labelled 鼠标指针. When the task is done, "
    "answer with a short text and no tool call. When only the person can go on (a login, a captcha, a "
    "payment, a choice that is theirs), call the `needs_user` tool with what they should do: they act on "
    "the screen and you get a new screenshot.";

// The tool that hands the screen to the person (as the Set-of-Marks autopilot's needs_user action).
model::ToolSpec needsUserTool() {
    return {"needs_user",
            "Hands the screen to the person: they do what `text` asks on it (log in, solve a captcha, "
            "confirm a payment) and say when they are done. The result is their reply and a new screenshot.",
            {{"type", "object"},
             {"properties", {{"text", {{"type", "string"}, {"description", "what the person should do"}}}}},
             {"required", {"text"}}}};
}

// The computer tool's actions as a JSON schema, for OpenAI-compatible function calling (the
// Anthropic tool is schema-less: the provider defines it).
json functionSchema(bool zoom) {
    json actions = {"screenshot",   "left_click",     "right_click",   "middle_click", "double_click",
                    "triple_click", "mouse_move",     "left_click_drag", "left_mouse_down", "left_mouse_up",
                    "type",         "key",            "hold_key",      "scroll",       "wait",
                    "cursor_position"};
    if (zoom) actions.push_back("zoom");
    json coord = {{"type", "array"}, {"items", {{"type", "integer"}}}, {"minItems", 2}, {"maxItems", 2}};
    return {{"type", "object"},
            {"properties",
             {{"action", {{"type", "string"}, {"enum", actions}}},
              {"coordinate", coord},
              {"start_coordinate", coord},
              {"text", {{"type", "string"}}},
              {"scroll_direction", {{"type", "string"}, {"enum", {"up", "down", "left", "right"}}}},
              {"scroll_amount", {{"type", "integer"}}},
              {"duration", {{"type", "number"}}},
              {"region", {{"type", "array"}, {"items", {{"type", "integer"}}}, {"minItems", 4}, {"maxItems", 4}}}}},
            {"required", {"action"}}};
}

// A point of the declared display → physical pixels. Throws std::invalid_argument when `v` is
// not [x, y] inside the display.
Point displayPoint(const json& v, const ModelImageTransform& t, const char* field) {
    if (!v.is_array() || v.size() != 2 || !v[0].is_number() || !v[1].is_number())
        throw std::invalid_argument(std::string(field) + ": expected [x, y] in screenshot pixels, got " + v.dump());
    double x = v[0].get<double>(), y = v[1].get<double>();
    if (x < 0 || y < 0 || x > t.image.w || y > t.image.h)
        throw std::invalid_argument(std::string(field) + ": " + v.dump() + " is outside the " +
                                    std::to_string(t.image.w) + "x" + std::to_string(t.image.h) + " screenshot");
    return t.imageToPhysical(x, y);
}

std::string stringField(const json& in, const char* field) {
    auto it = in.find(field);
    if (it == in.end() || !it->is_string() || it->get<std::string>().empty())
        throw std::invalid_argument(std::string(field) + ": expected a non-empty string for action " +
                                    in.value("action", std::string("?")));
    return it->get<std::string>();
}

// xdotool key names the tool uses that eacu's key combos spell differently.
std::string comboOf(const std::string& xdotool) {
    std::string out, part;
    auto flush = [&] {
        std::string p = part;
        if (p == "super" || p == "Super_L" || p == "cmd") p = "super";
        if (p == "Page_Up") p = "PageUp";
        if (p == "Page_Down") p = "PageDown";
        out += (out.empty() ? "" : "+") + p;
        part.clear();
    };
    for (char c : xdotool) {
        if (c == '+' && !part.empty()) flush();
        else part += c;
    }
    if (!part.empty()) flush();
    return out;
}

}  // namespace

std::string performComputerAction(Session& s, const json& in, const ModelImageTransform& t, int64_t parent_step,
                                  std::optional<Rect>* zoom, ClickAimer* aimer, const std::string& intent) {
    if (!in.is_object() || !in.contains("action") || !in["action"].is_string())
        throw std::invalid_argument("computer: expected {\"action\": ...}, got " + in.dump());
    const std::string action = in["action"].get<std::string>();
    InputAction a;
    a.method = "model";
    a.retry_without_effect = false;  // the model sees the screen again
    a.params = {{"computer", in}};
    if (parent_step) a.parent_id = parent_step;
    auto at = [&](const char* field) {
        if (in.contains(field)) return displayPoint(in[field], t, field);
        return s.device().cursor();
    };
    if (action == "screenshot") return "";
    if (action == "cursor_position") {
        Point p = t.physicalToImage(s.device().cursor());
        return "X=" + std::to_string(p.x) + ",Y=" + std::to_string(p.y);
    }
    if (action == "wait") {
        double d = in.value("duration", 1.0);
        if (!(d >= 0 && d <= 60)) throw std::invalid_argument("wait: duration must be 0..60 seconds, got " + json(d).dump());
        s.sleep(d);
        return "";
    }
    if (action == "zoom") {
        const json& r = in.value("region", json());
        if (!r.is_array() || r.size() != 4)
            throw std::invalid_argument("zoom: expected region [x1, y1, x2, y2] in screenshot pixels, got " + r.dump());
        Point p0 = displayPoint(json{r[0], r[1]}, t, "region"), p1 = displayPoint(json{r[2], r[3]}, t, "region");
        if (p1.x <= p0.x || p1.y <= p0.y) throw std::invalid_argument("zoom: expected x2 > x1 and y2 > y1, got " + r.dump());
        *zoom = Rect{p0.x, p0.y, p1.x - p0.x, p1.y - p0.y};
        return "";
    }
    if (action == "left_click" || action == "right_click" || action == "middle_click" || action == "double_click" ||
        action == "triple_click") {
        a.action = action == "double_click" ? "double_tap" : "tap";
        a.at = at("coordinate");
        a.button = action == "right_click" ? MouseButton::Right : action == "middle_click" ? MouseButton::Middle
                                                                                          : MouseButton::Left;
        a.count = action == "double_click" ? 2 : action == "triple_click" ? 3 : 1;
        a.target = "(" + std::to_string(a.at->x) + "," + std::to_string(a.at->y) + ")";
        if (aimer) {
            AimedClick aimed = aimer->aim(intent, a.target, *a.at, std::nullopt,
                                          parent_step ? std::optional<int64_t>(parent_step) : std::nullopt);
            if (aimed.by_person)
                return "Not clicked by the tool: the pointer was still off the target after " +
                       std::to_string(aimed.checks) + " checks, so the person clicked it (they said: " + aimed.reply + ")";
            a.at = aimed.point;
        }
    } else if (action == "mouse_move") {
        a.action = "move";
        a.at = displayPoint(in.value("coordinate", json()), t, "coordinate");
    } else if (action == "left_click_drag") {
        a.action = "drag";
        a.at = at("start_coordinate");
        a.to = displayPoint(in.value("coordinate", json()), t, "coordinate");
    } else if (action == "left_mouse_down" || action == "left_mouse_up") {
        a.action = action == "left_mouse_down" ? "mouse_down" : "mouse_up";
        a.at = at("coordinate");
    } else if (action == "type") {
        a.action = "input";
        a.text = stringField(in, "text");
        a.risky = looksRisky(a.text);
    } else if (action == "key" || action == "hold_key") {
        a.action = action == "key" ? "key" : "hold_key";
        a.combo = comboOf(stringField(in, "text"));
        if (action == "hold_key") {
            a.hold = in.value("duration", 0.5);
            if (!(a.hold > 0 && a.hold <= 10))
                throw std::invalid_argument("hold_key: duration must be in (0, 10] seconds, got " + json(a.hold).dump());
        }
    } else if (action == "scroll") {
        a.action = "scroll";
        if (in.contains("coordinate")) a.at = displayPoint(in["coordinate"], t, "coordinate");
        std::string dir = in.value("scroll_direction", std::string("down"));
        int n = in.value("scroll_amount", 3);
        if (n < 1 || n > 50) throw std::invalid_argument("scroll: scroll_amount must be 1..50, got " + std::to_string(n));
        if (dir == "down") a.dy = n;
        else if (dir == "up") a.dy = -n;
        else if (dir == "right") a.dx = n;
        else if (dir == "left") a.dx = -n;
        else throw std::invalid_argument("scroll: scroll_direction must be up, down, left or right, got \"" + dir + "\"");
    } else {
        throw std::invalid_argument("computer: unknown action \"" + action + "\"");
    }
    s.executor().perform(std::move(a));
    return "";
}

AutopilotResult runComputerUse(ModelContext& ctx, const std::string& task, const ComputerUseOptions& opts) {
    if (task.empty()) throw std::invalid_argument("autopilot: expected a task, got an empty string");
    if (opts.max_steps < 1) throw std::invalid_argument("autopilot: max_steps must be >= 1, got " + std::to_string(opts.max_steps));
    model::computerBetaFlag(opts.version);  // throws for an unknown version
    Session& s = ctx.session();
    AutopilotResult res;
    const double t0 = monotonicSeconds();
    int64_t first_frame = 0, last_frame = 0;
    const bool anthropic = ctx.client() ? ctx.client()->provider() == "anthropic" : true;
    std::optional<ClickAimer> aimer;
    if (opts.click_check) aimer.emplace(ctx, task, opts.click);

    auto finish = [&](const std::string& status, const std::string& message) {
        StepRecord summary = s.beginStep("autopilot", task);
        res.status = status;
        res.message = message;
        summary.started_at = wallSeconds() - (monotonicSeconds() - t0);
        summary.method = "computer";
        summary.status = status == "done" ? "ok" : "failed";
        if (status != "done") summary.error = "autopilot " + status + ": " + message;
        summary.action_ms = (monotonicSeconds() - t0) * 1000;
        if (first_frame) summary.frame_before = first_frame;
        if (last_frame) summary.frame_after = last_frame;
        summary.params_json = json{{"status", status},     {"message", message},       {"steps", res.steps},
                                   {"cached", res.cached}, {"history", res.history},   {"actions", res.actions},
                                   {"protocol", "computer"}, {"tool", opts.version}, {"model", ctx.describe()}}
                                  .dump();
        res.step_id = s.commitStep(summary);
    };

    // The screen as a tool result shows it: scaled to the declared display, pointer marked.
    auto screenshot = [&](const std::optional<Rect>& zoom, Observation& o) {
        o = ctx.observe(false);
        o.image = makeModelImage(o.frame.bgr, opts.image, o.frame.scale);
        if (!first_frame) first_frame = o.frame_id;
        last_frame = o.frame_id;
        ModelImage shown = o.image;
        if (zoom) {
            // The region enlarged to the display size (computer_20251124's zoom).
            cv::Mat crop = o.frame.bgr(cv::Rect(zoom->x, zoom->y, zoom->w, zoom->h) &
                                       cv::Rect(0, 0, o.frame.bgr.cols, o.frame.bgr.rows));
            cv::resize(crop, shown.image, cv::Size(o.image.transform.image.w, o.image.transform.image.h), 0, 0,
                       cv::INTER_CUBIC);
        } else {
            shown.image = o.image.image.clone();
            drawCursorMark(shown.image, o.image.transform.physicalToImage(o.cursor));
        }
        return model::imagePart(shown, o.frame_id, ctx.options().image_format);
    };

    Observation o;
    model::Part first = screenshot(std::nullopt, o);
    const ModelImageTransform transform = o.image.transform;
    std::vector<model::Message> messages;
    messages.push_back(model::Message::user({model::Part::textPart(task), first}));

    ActorScope model_steps(s, "model");
    for (int step = 1; step <= opts.max_steps; ++step) {
        s.cancel().check();
        if (s.checkpoint()) {
            // The person held the screen: the model sees it as they left it.
            model::Message shown;
            shown.role = "user";
            shown.parts = {model::Part::textPart("The person took over the screen and handed it back. "
                                                 "This is the screen now."),
                           screenshot(std::nullopt, o)};
            messages.push_back(std::move(shown));
        }
        model::keepRecentImages(messages, opts.keep_images);
        model::Request req;
        req.system = kSystem;
        req.messages = messages;
        req.max_tokens = ctx.options().max_tokens;
        if (anthropic) {
            model::ComputerTool tool;
            tool.version = opts.version;
            tool.display_width_px = transform.image.w;
            tool.display_height_px = transform.image.h;
            tool.enable_zoom = opts.version == "computer_20251124";
            req.computer = tool;
            req.tools.push_back(needsUserTool());
        } else {
            req.tools.push_back({"computer",
                                 "Operates the computer: mouse, keyboard and screenshots of a " +
                                     std::to_string(transform.image.w) + "x" + std::to_string(transform.image.h) +
                                     " pixel screen. Coordinates are screenshot pixels.",
                                 functionSchema(opts.version == "computer_20251124")});
            req.tools.push_back(needsUserTool());
        }
        model::CallMeta meta = ModelContext::callMeta(o, "autopilot", std::string(kSystem) + "\n" + task + "\n#" +
                                                                        std::to_string(step));
        meta.validate = [](const model::Response&) { return true; };
        model::Response r = ctx.call(req, meta, opts.provider);
        res.steps = step;
        if (r.from_cache) ++res.cached;
        model::Message answer;
        answer.role = "assistant";
        if (!r.text.empty()) answer.parts.push_back(model::Part::textPart(r.text));
        for (const auto& c : r.tool_calls) answer.parts.push_back(model::Part::toolUse(c.id, c.name, c.input));
        if (answer.parts.empty()) answer.parts.push_back(model::Part::textPart("(empty)"));
        messages.push_back(answer);
        if (r.tool_calls.empty()) {
            res.history.push_back("Step " + std::to_string(step) + ": 任务完成");
            finish("done", r.text);
            s.setAnswer(r.text);
            return res;
        }
        model::Message results;
        for (const auto& c : r.tool_calls) {
            res.actions.push_back(c.input);
            model::Part result;
            try {
                if (c.name == "needs_user") {
                    std::string why = c.input.is_object() ? c.input.value("text", std::string()) : std::string();
                    if (why.empty()) why = r.text.empty() ? "(no reason given)" : r.text;
                    std::string reply;
                    try {
                        reply = s.awaitUser("needs_user", why, {{"autopilot_step", step}});
                    } catch (const StepError& e) {
                        if (e.code != failure::kBlocked) throw;
                        res.history.push_back("Step " + std::to_string(step) + ": 需要用户：" + why);
                        finish("needs_user", why);
                        return res;
                    }
                    result = screenshot(std::nullopt, o);
                    result.kind = model::Part::Kind::ToolResult;
                    result.tool_id = c.id;
                    result.text = "用户已操作: " + reply;
                    res.history.push_back("Step " + std::to_string(step) + ": 需要用户：" + why + " → 用户已操作: " +
                                          clipUtf8(reply, 200));
                    results.parts.push_back(std::move(result));
                    continue;
                }
                if (c.name != "computer")
                    throw std::invalid_argument("unknown tool \"" + c.name + "\" (only computer and needs_user)");
                std::optional<Rect> zoom;
                const std::string intent = r.text.empty() ? "computer: " + c.input.dump() : r.text;
                const std::string kind = c.input.is_object() ? c.input.value("action", std::string()) : std::string();
                if (kind != "screenshot" && kind != "cursor_position") s.intent(intent);
                std::string text = performComputerAction(s, c.input, transform, 0, &zoom, aimer ? &*aimer : nullptr, intent);
                result = screenshot(zoom, o);
                result.kind = model::Part::Kind::ToolResult;
                result.tool_id = c.id;
                result.text = text;
                res.history.push_back("Step " + std::to_string(step) + ": " + c.input.dump() + " ✓");
            } catch (const std::invalid_argument& e) {
                result = model::Part::toolResult(c.id, e.what(), true);
                res.history.push_back("Step " + std::to_string(step) + ": " + c.input.dump() + " ✗ " +
                                      clipUtf8(e.what(), 160));
            } catch (const StepError& e) {
                res.history.push_back("Step " + std::to_string(step) + ": " + clipUtf8(e.what(), 200) + " ✗");
                finish(e.code, e.what());
                throw;
            }
            results.parts.push_back(std::move(result));
        }
        messages.push_back(std::move(results));
    }
    finish("max_steps", "the task was not done after " + std::to_string(opts.max_steps) + " steps");
    return res;
}

}  // namespace eacu
