#include "recorder/RunScript.h"

#include <map>

#include <nlohmann/json.hpp>
#include <opencv2/imgcodecs.hpp>

#include "base/ImageDecode.h"

namespace eacu {

namespace {

// A launch step's argv (its target, JSON) as the command launch "CMD" takes back.
std::string commandOf(const std::string& target) {
    nlohmann::json argv = nlohmann::json::parse(target, nullptr, false);
    if (!argv.is_array() || argv.empty()) return target;
    std::vector<std::string> a;
    for (const auto& v : argv) a.push_back(v.is_string() ? v.get<std::string>() : v.dump());
    if (a.size() == 3 && a[0] == "/bin/sh" && a[1] == "-c") return a[2].rfind("exec ", 0) == 0 ? a[2].substr(5) : a[2];
    std::string cmd;
    for (const std::string& s : a) {
        bool plain = s.find_first_of(" \t'\"\\$`;&|<>*?()") == std::string::npos && !s.empty();
        cmd += (cmd.empty() ? "" : " ") + (plain ? s : "'" + s + "'");
    }
    return cmd;
}

// Whether a script's step target can be written back as it is: a string or a table the
// script gave, found by image, OCR or the tree.
bool keepsTarget(const StepRecord& s) {
    if (s.method != "template" && s.method != "ocr" && s.method != "a11y" && s.method != "expected_scale" &&
        s.method != "last_seen" && s.method != "multi_scale" && s.method != "features")
        return false;
    return !s.target.empty() && (s.target.front() == '"' || s.target.rfind("{role", 0) == 0 || s.target.rfind("{name", 0) == 0);
}

}  // namespace

std::vector<ScriptItem> itemsFromRun(const RunReader& log, int64_t run_id) {
    if (!log.run(run_id)) throw std::runtime_error("no run " + std::to_string(run_id) + " in " + log.path());
    std::map<int64_t, double> scales;
    for (const FrameRecord& f : log.frames(run_id)) scales[f.id] = f.scale;
    std::map<int64_t, std::shared_ptr<const ScreenState>> screens;
    auto screen = [&](std::optional<int64_t> id) -> std::shared_ptr<const ScreenState> {
        if (!id) return nullptr;
        if (auto it = screens.find(*id); it != screens.end()) return it->second;
        auto s = std::make_shared<ScreenState>();
        s->frame.bgr = decodeImage(log.framePng(*id), cv::IMREAD_COLOR);
        s->frame.scale = scales.count(*id) ? scales[*id] : 1.0;
        if (s->frame.bgr.empty()) return screens[*id] = nullptr;
        return screens[*id] = s;
    };
    std::vector<ScriptItem> out;
    int last_idx = 0;  // the step the last item came from
    for (const StepRecord& s : log.steps(run_id)) {
        if (s.status != "ok") continue;
        nlohmann::json params = nlohmann::json::parse(s.params_json.empty() ? "{}" : s.params_json, nullptr, false);
        if (!params.is_object()) params = nlohmann::json::object();
        ScriptItem it;
        UserAction& a = it.action;
        a.time = s.started_at;
        a.end = s.ended_at;
        // Who acted: the steps.actor column (schema 6). A log from before it is migrated with
        // actor 'script' on every step, so there a "model..." method still names the model's.
        const bool model_method = s.method.rfind("model", 0) == 0;
        std::string actor = s.actor.empty() || (s.actor == "script" && model_method) ? (model_method ? "model" : "script")
                                                                                      : s.actor;
        std::string whose = actor == "model" ? "the model's" : actor == "user" ? "the person's" : "the script's";
        it.comment = whose + " step " + std::to_string(s.idx);
        if (s.action == "launch") {
            it.launch = commandOf(s.target);
        } else if (s.action == "input" || s.action == "key") {
            a.kind = s.action == "input" ? UserAction::Kind::Input : UserAction::Kind::Key;
            a.text = s.target;
        } else if (s.action == "tap" || s.action == "double_tap" || s.action == "long_press" || s.action == "drag" ||
                   s.action == "scroll") {
            if (!s.input) continue;
            a.at = *s.input;
            int button = params.value("button", 1);
            a.button = button == 3 ? "right" : button == 2 ? "middle" : "left";
            if (s.action == "tap") a.kind = params.value("count", 1) == 2 ? UserAction::Kind::DoubleTap : UserAction::Kind::Tap;
            if (s.action == "double_tap") {
                a.kind = UserAction::Kind::DoubleTap;
                // The person's double click on the page came as a click, then the double click
                // (run/UserInput.h): the two are one double click in the script.
                if (params.value("after_click", 0) == last_idx && last_idx > 0 && !out.empty() &&
                    out.back().action.kind == UserAction::Kind::Tap)
                    out.pop_back();
            }
            if (s.action == "long_press") {
                a.kind = UserAction::Kind::LongPress;
                a.hold = params.value("hold", 1.0);
            }
            if (s.action == "drag") {
                if (!params.contains("to")) continue;
                a.kind = UserAction::Kind::Drag;
                a.to = {params["to"][0].get<int>(), params["to"][1].get<int>()};
                a.end = a.time + params.value("duration", 0.3);
            }
            if (s.action == "scroll") {
                a.kind = UserAction::Kind::Scroll;
                a.dx = params.value("dx", 0);
                a.dy = params.value("dy", 0);
            }
            if (keepsTarget(s) && s.action != "drag") {
                it.target = s.target;
                it.comment += ", its own target (found by " + s.method + ")";
            } else {
                it.before = screen(s.frame_before);
            }
        } else {
            continue;
        }
        out.push_back(std::move(it));
        last_idx = s.idx;
    }
    return out;
}

}  // namespace eacu
