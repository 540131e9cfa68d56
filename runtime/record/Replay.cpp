#include "record/Replay.h"

#include <cmath>
#include <cstdio>
#include <map>
#include <optional>

#include <nlohmann/json.hpp>
#include <opencv2/imgcodecs.hpp>

#include "base/Format.h"
#include "device/Gestures.h"
#include "device/KeyCombo.h"
#include "task/Session.h"

namespace eacu {
namespace {



// The outcome of gating one step: where the recorded crop is on the live screen.
struct Gate {
    bool found = false;
    bool relocated = false;
    Match match;       // best candidate (box in live pixels)
    Point shift;       // live position - recorded position
    Rect crop;         // the recorded crop's rectangle
    Frame live;        // the live frame it was found in (or the last one looked at)
};

class Replayer {
public:
    Replayer(RunLog& log, int64_t original, int64_t replay, Device& device, const Matcher& matcher,
             Session& helper, const ReplayOptions& o)
        : log_(log), original_(original), replay_(replay), device_(device), matcher_(matcher),
          helper_(helper), o_(o) {}

    ReplayResult run() {
        if (!log_.run(original_)) throw std::runtime_error("replay: no run " + std::to_string(original_) + " in " + log_.path());
        for (const StepRecord& s : log_.steps(original_)) {
            if (s.parent_id) continue;  // inner steps are replayed by their parent's input
            helper_.cancel().check();
            if (s.status == "failed") {
                // The original stopped here; replaying past it would be guessing.
                StepRecord r = fresh(s);
                r.method = "skipped";
                r.status = "failed";
                r.error = "replay: the original run failed at step " + std::to_string(s.idx) + ": " + s.error;
                save(r);
                result_.ok = false;
                result_.failed_idx = s.idx;
                result_.error = r.error;
                return result_;
            }
            if (!step(s)) return result_;
        }
        return result_;
    }

private:
    StepRecord fresh(const StepRecord& s) {
        StepRecord r;
        r.run_id = replay_;
        r.idx = s.idx;
        r.action = s.action;
        r.target = s.target;
        r.params_json = s.params_json;
        r.started_at = wallSeconds();
        r.transform_json = nlohmann::json{{"scale", device_.scaleFactor()}, {"space", "physical"}}.dump();
        return r;
    }

    int64_t frame(const Frame& f) { return f.empty() ? 0 : log_.addFrame(replay_, f); }

    void save(StepRecord& r) {
        r.ended_at = wallSeconds();
        if (r.status.empty()) r.status = "ok";
        log_.addStep(r);
        if (o_.on_step) {
            std::string line = "step " + std::to_string(r.idx) + " " + r.action + " " + r.target + ": " + r.status;
            if (r.score) line += " (" + r.method + ", score " + fixed(*r.score, 3) + ")";
            o_.on_step(line);
        }
    }

    cv::Mat recordedFrame(int64_t id) {
        if (auto it = cache_.find(id); it != cache_.end()) return it->second;
        cv::Mat m = cv::imdecode(log_.framePng(id), cv::IMREAD_COLOR);
        cache_.clear();
        cache_[id] = m;
        return m;
    }

    // The rectangle of the recorded before-frame to look for: the box plus a margin, or a
    // square around the input point.
    std::optional<Rect> cropRect(const StepRecord& s, const cv::Mat& rec) {
        Rect r;
        if (s.box && !s.box->empty()) r = s.box->grown(o_.margin);
        else if (s.input) r = {s.input->x - o_.point_radius, s.input->y - o_.point_radius, 2 * o_.point_radius, 2 * o_.point_radius};
        else return std::nullopt;
        r = r.intersect({0, 0, rec.cols, rec.rows});
        if (r.w < 4 || r.h < 4) return std::nullopt;
        return r;
    }

    // Waits up to the timeout for the recorded crop to show on the live screen.
    Gate gate(const StepRecord& s, const Rect& crop, const cv::Mat& rec) {
        Gate g;
        g.crop = crop;
        Template tpl;
        tpl.name = "step " + std::to_string(s.idx) + " crop";
        tpl.bgr = rec(cv::Rect(crop.x, crop.y, crop.w, crop.h)).clone();
        tpl.threshold = o_.threshold;
        double deadline = monotonicSeconds() + o_.timeout;
        bool have = false;
        for (;;) {
            helper_.cancel().check();
            Frame f = device_.capture();
            Rect screen{0, 0, f.width(), f.height()};
            Rect near = crop.grown(o_.near).intersect(screen);
            std::optional<Match> m;
            if (near.w >= crop.w && near.h >= crop.h) m = matcher_.locate(f.bgr, tpl, near);
            bool relocated = false;
            if (!m || !m->found) {
                Match all = matcher_.locate(f.bgr, tpl, std::nullopt);
                if (all.found || !m || all.score > m->score) {
                    relocated = all.found;
                    m = all;
                }
            }
            if (!have || m->found || m->score > g.match.score) {
                g.match = *m;
                g.live = f;
                g.relocated = relocated;
                have = true;
            }
            if (m->found) {
                g.found = true;
                g.shift = {m->box.x - crop.x, m->box.y - crop.y};
                return g;
            }
            if (monotonicSeconds() + 0.05 > deadline) return g;
            helper_.cancel().sleep(0.05);
        }
    }

    bool mismatch(StepRecord& r, const StepRecord& s, const Gate& g) {
        int64_t live = frame(g.live);
        if (live) r.frame_before = live;
        r.status = "failed";
        r.method = "replay";
        r.score = g.match.score;
        r.threshold = o_.threshold;
        r.box = g.match.box;
        r.error = "replay stopped at step " + std::to_string(s.idx) + " (" + s.action + " " + s.target +
                  "): the screen around the target does not match the recorded frame within " +
                  fixed(o_.timeout, 1) + " s: best score " + fixed(g.match.score, 3) + " (colour " +
                  fixed(g.match.color_score, 3) + ") at " + g.match.box.str() + ", recorded at " + g.crop.str() +
                  ", threshold " + fixed(o_.threshold) + "; recorded frame " +
                  std::to_string(s.frame_before.value_or(0)) + " of run " + std::to_string(original_) +
                  ", live frame " + std::to_string(live) + " of run " + std::to_string(replay_);
        save(r);
        result_.ok = false;
        result_.failed_idx = s.idx;
        result_.error = r.error;
        return false;
    }

    // Records the frames around an input and waits for the screen to settle.
    void finishInput(StepRecord& r, const Frame& before, double a0) {
        r.action_ms = (monotonicSeconds() - a0) * 1000;
        if (auto id = frame(before)) r.frame_before = id;
        Settle st = helper_.waitSettled(before);
        r.change_ratio = st.change_ratio;
        r.settle_ms = st.ms;
        if (auto id = frame(st.frame)) r.frame_after = id;
    }

    bool step(const StepRecord& s) {
        StepRecord r = fresh(s);
        nlohmann::json params = nlohmann::json::parse(s.params_json.empty() ? "{}" : s.params_json, nullptr, false);
        if (params.is_discarded()) params = nlohmann::json::object();
        const std::string& a = s.action;
        bool pointer = a == "tap" || a == "double_tap" || a == "long_press" || a == "drag" || a == "scroll" ||
                       a == "wait" || a == "verify";

        // Gate: the recorded screen around the target must be there.
        Gate g;
        bool gated = false;
        if (pointer && s.frame_before && (s.box || s.input)) {
            cv::Mat rec = recordedFrame(*s.frame_before);
            if (auto crop = rec.empty() ? std::nullopt : cropRect(s, rec)) {
                g = gate(s, *crop, rec);
                if (!g.found) return mismatch(r, s, g);
                gated = true;
                r.score = g.match.score;
                r.threshold = o_.threshold;
                r.box = s.box ? Rect{s.box->x + g.shift.x, s.box->y + g.shift.y, s.box->w, s.box->h} : g.match.box;
                r.method = g.relocated ? "relocate" : "replay";
                if (g.relocated) ++result_.relocated;
            }
        }
        auto moved = [&](Point p) { return Point{p.x + g.shift.x, p.y + g.shift.y}; };

        if (a == "tap" || a == "double_tap" || a == "long_press") {
            if (!s.input) return skip(r, "no input point recorded");
            Point p = moved(*s.input);
            r.input = p;
            if (!gated) r.method = "point";
            MouseButton button = buttonFromNumber(params.value("button", 1));
            int count = params.value("count", a == "double_tap" ? 2 : 1);
            double hold = params.value("hold", a == "long_press" ? 1.0 : 0.0);
            Frame before = gated ? g.live : device_.capture();
            double a0 = monotonicSeconds();
            device_.move(p);
            if (hold > 0) {
                device_.press(button);
                device_.sync();
                helper_.cancel().sleep(hold);
                device_.release(button);
            } else {
                device_.click(button, count);
            }
            device_.sync();
            finishInput(r, before, a0);
        } else if (a == "drag") {
            if (!s.input || !params.contains("to")) return skip(r, "no drag points recorded");
            Point from = moved(*s.input);
            Point to = moved({params["to"][0].get<int>(), params["to"][1].get<int>()});
            double duration = params.value("duration", 0.3);
            r.input = from;
            if (!gated) r.method = "point";
            Frame before = gated ? g.live : device_.capture();
            double a0 = monotonicSeconds();
            device_.move(from);
            dragPointer(device_, from, to, duration, helper_.cancel());
            finishInput(r, before, a0);
        } else if (a == "scroll") {
            Frame before = gated ? g.live : device_.capture();
            double a0 = monotonicSeconds();
            if (s.input) {
                r.input = moved(*s.input);
                device_.move(*r.input);
            }
            if (!gated) r.method = "wheel";
            device_.scroll(params.value("dx", 0), params.value("dy", 0));
            device_.sync();
            finishInput(r, before, a0);
        } else if (a == "input" || a == "key") {
            r.method = "keyboard";
            Frame before = device_.capture();
            double a0 = monotonicSeconds();
            if (a == "input") device_.typeText(s.target);
            else device_.keyCombo(parseKeyCombo(s.target));
            device_.sync();
            finishInput(r, before, a0);
        } else if (a == "launch") {
            nlohmann::json argv = nlohmann::json::parse(s.target, nullptr, false);
            if (!argv.is_array() || argv.empty()) return skip(r, "the recorded command is not an argv list");
            auto p = helper_.launch(argv.get<std::vector<std::string>>());
            r.method = "process";
            r.params_json = nlohmann::json{{"pid", p->pid()}}.dump();
        } else if (a == "wait" || a == "verify") {
            if (!gated) return skip(r, "no recorded frame to compare with");
            if (auto id = frame(g.live)) r.frame_before = id;
        } else if (a == "screenshot") {
            r.method = "capture";
            if (auto id = frame(device_.capture())) r.frame_after = id;
        } else {
            return skip(r, "an observation (" + a + "), not replayed");
        }
        ++result_.replayed;
        save(r);
        return true;
    }

    bool skip(StepRecord& r, const std::string& why) {
        r.method = "skipped";
        nlohmann::json p = nlohmann::json::parse(r.params_json.empty() ? "{}" : r.params_json, nullptr, false);
        if (!p.is_object()) p = nlohmann::json::object();
        p["replay"] = "skipped: " + why;
        r.params_json = p.dump();
        ++result_.skipped;
        save(r);
        return true;
    }

    RunLog& log_;
    int64_t original_, replay_;
    Device& device_;
    const Matcher& matcher_;
    Session& helper_;
    ReplayOptions o_;
    ReplayResult result_;
    std::map<int64_t, cv::Mat> cache_;
};

}  // namespace

ReplayResult replayActions(RunLog& log, int64_t original, int64_t replay, Device& device,
                           const Matcher& matcher, Session& helper, const ReplayOptions& options) {
    return Replayer(log, original, replay, device, matcher, helper, options).run();
}

}  // namespace eacu
