#include "recorder/Replay.h"

#include <map>
#include <optional>

#include <nlohmann/json.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include "base/Format.h"
#include "base/ImageDecode.h"
#include "step/ActionExecutor.h"
#include "step/AppSteps.h"
#include "step/Session.h"

namespace eacu {

namespace {

// Whether the recorded surroundings of `crop` (grown by `margin` pixels, as far as both frames
// reach) show on `live` moved by `shift` as well: at least `agreement` of their pixels the same
// (grey difference at most 24 of 255). A look-alike elsewhere (the next empty text field) has
// other neighbours (its own label: a fifth of the pixels differed on the test's form).
bool replayContextAgrees(const cv::Mat& recorded, const cv::Mat& live, const Rect& crop, Point shift, int margin,
                         double agreement) {
    Rect ctx = crop.grown(margin).intersect({0, 0, recorded.cols, recorded.rows});
    Rect there = Rect{ctx.x + shift.x, ctx.y + shift.y, ctx.w, ctx.h}.intersect({0, 0, live.cols, live.rows});
    if (there.w < crop.w || there.h < crop.h) return false;
    cv::Mat diff, grey;
    cv::absdiff(recorded(cv::Rect(there.x - shift.x, there.y - shift.y, there.w, there.h)),
                live(cv::Rect(there.x, there.y, there.w, there.h)), diff);
    cv::cvtColor(diff, grey, cv::COLOR_BGR2GRAY);
    double differing = double(cv::countNonZero(grey > 24)) / double(grey.total());
    return 1.0 - differing >= agreement;
}

}  // namespace

ReplayGate findRecordedCrop(Device& device, const Matcher& matcher, const cv::Mat& recorded, const Rect& crop,
                            const ReplayOptions& o, const CancelToken& cancel, const std::string& name) {
    ReplayGate g;
    g.crop = crop;
    Template tpl;
    tpl.name = name;
    tpl.bgr = recorded(cv::Rect(crop.x, crop.y, crop.w, crop.h)).clone();
    tpl.threshold = o.threshold;
    double deadline = monotonicSeconds() + o.timeout;
    bool have = false;
    cv::Mat previous;  // the frame looked at before, to tell a settled screen from one still drawing
    for (;;) {
        cancel.check();
        Frame f = device.capture();
        Rect screen{0, 0, f.width(), f.height()};
        Rect near = crop.grown(o.near).intersect(screen);
        std::optional<Match> m;
        if (near.w >= crop.w && near.h >= crop.h) m = matcher.locate(f.bgr, tpl, near);
        bool relocated = false;
        int elsewhere = 0;
        // Away from the recorded place (even a few pixels) only with the recorded surroundings
        // moved along: the next text field of a form lies within `near` and looks the same.
        auto agrees = [&](const Match& c) {
            Point s{c.box.x - crop.x, c.box.y - crop.y};
            return (s.x == 0 && s.y == 0) || replayContextAgrees(recorded, f.bgr, crop, s, o.near, o.threshold);
        };
        if (m && m->found && !agrees(*m)) m->found = false;
        if (!m || !m->found) {
            // Elsewhere only on a settled screen (the same pixels as the frame before: a window
            // still drawing its controls may show a look-alike first), at one place only (two
            // empty text fields look the same), and with the recorded surroundings moved along.
            std::vector<Match> all = matcher.findAll(f.bgr, tpl, std::nullopt, 3);
            elsewhere = int(all.size());
            bool settled = !previous.empty() && previous.size() == f.bgr.size() &&
                           cv::norm(previous, f.bgr, cv::NORM_INF) == 0;
            if (all.size() == 1 && settled && agrees(all[0])) {
                relocated = true;
                m = all[0];
            } else {
                Match best = all.empty() ? matcher.locate(f.bgr, tpl, std::nullopt) : all[0];
                best.found = false;  // seen (or the best candidate), not accepted on this frame
                if (!m || best.score > m->score) m = best;
            }
        }
        previous = f.bgr.clone();  // a device may reuse its frame buffer
        if (!have || m->found || m->score > g.match.score) {
            g.match = *m;
            g.live = f;
            g.relocated = relocated;
            have = true;
        }
        g.elsewhere = elsewhere;
        if (m->found) {
            g.found = true;
            g.shift = {m->box.x - crop.x, m->box.y - crop.y};
            return g;
        }
        if (monotonicSeconds() + 0.05 > deadline) return g;
        cancel.sleep(0.05);
    }
}

namespace {

// Fields of a recorded step's params that describe its outcome, not its input: the replayed
// step gets its own.
const char* const kOutcomeParams[] = {"effect", "settled", "retries", "retried_at", "late_effect", "relocated", "stages"};

class Replayer {
public:
    Replayer(RunLog& log, int64_t original, Session& session, const Matcher& matcher, const ReplayOptions& o)
        : log_(log), original_(original), session_(session), matcher_(matcher), o_(o) {}

    ReplayResult run() {
        if (!log_.run(original_)) throw std::runtime_error("replay: no run " + std::to_string(original_) + " in " + log_.path());
        for (const StepRecord& s : log_.steps(original_)) {
            if (s.parent_id) continue;  // inner steps are replayed by their parent's input
            session_.cancel().check();
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
        StepRecord r = session_.beginStep(s.action, s.target, s.idx);
        r.params_json = s.params_json;
        return r;
    }

    int64_t frame(const Frame& f) { return f.empty() ? 0 : session_.recordFrame(f); }

    void report(int idx, const std::string& action, const std::string& target, const std::string& status,
                const std::string& method, std::optional<double> score) {
        if (!o_.on_step) return;
        std::string line = "step " + std::to_string(idx) + " " + action + " " + target + ": " + status;
        if (score) line += " (" + method + ", score " + fixed(*score, 3) + ")";
        o_.on_step(line);
    }

    void save(StepRecord& r) {
        session_.commitStep(r);
        report(r.idx, r.action, r.target, r.status, r.method, r.score);
    }

    cv::Mat recordedFrame(int64_t id) {
        if (auto it = cache_.find(id); it != cache_.end()) return it->second;
        cv::Mat m;
        try {
            m = decodeImage(log_.framePng(id), cv::IMREAD_COLOR);
        } catch (const std::runtime_error&) {  // a frame that cannot be read compares as none
        }
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

    bool mismatch(StepRecord& r, const StepRecord& s, const ReplayGate& g) {
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
                  ", threshold " + fixed(o_.threshold) +
                  (g.elsewhere > 0 ? "; it shows at " + std::to_string(g.elsewhere) +
                                         " place(s) away from its recorded one, but not at one place only with the "
                                         "recorded surroundings (a look-alike is not guessed)"
                                   : "") +
                  "; recorded frame " +
                  std::to_string(s.frame_before.value_or(0)) + " of run " + std::to_string(original_) +
                  ", live frame " + std::to_string(live) + " of run " + std::to_string(session_.runId());
        save(r);
        result_.ok = false;
        result_.failed_idx = s.idx;
        result_.error = r.error;
        return false;
    }

    bool step(const StepRecord& s) {
        StepRecord r = fresh(s);
        nlohmann::json params = nlohmann::json::parse(s.params_json.empty() ? "{}" : s.params_json, nullptr, false);
        if (!params.is_object()) params = nlohmann::json::object();
        const std::string& a = s.action;
        bool pointer = a == "tap" || a == "double_tap" || a == "long_press" || a == "drag" || a == "scroll" ||
                       a == "wait" || a == "verify";

        // A window-bound input (window =) was found in, and recorded on, its window's own
        // pixels, and may have gone to it as events: not replayed on the screen.
        if ((pointer || a == "input" || a == "key") && params.contains("window"))
            return skip(r, "a window-bound step (window = ...): actions replay does not bind windows yet");

        // Gate: the recorded screen around the target must be there.
        ReplayGate g;
        bool gated = false;
        if (pointer && s.frame_before && (s.box || s.input)) {
            cv::Mat rec = recordedFrame(*s.frame_before);
            if (auto crop = rec.empty() ? std::nullopt : cropRect(s, rec)) {
                g = findRecordedCrop(session_.device(), matcher_, rec, *crop, o_, session_.cancel(),
                                     "step " + std::to_string(s.idx) + " crop");
                if (!g.found) return mismatch(r, s, g);
                gated = true;
                if (g.relocated) ++result_.relocated;
            }
        }
        auto moved = [&](Point p) { return Point{p.x + g.shift.x, p.y + g.shift.y}; };

        // Elements of the accessibility tree acted on through it are found in the tree again.
        if (a == "set_text" || (a == "tap" && params.contains("a11y") && params["a11y"].contains("action")))
            return replayA11y(r, s, params);
        if (a == "tap" || a == "double_tap" || a == "long_press" || a == "drag" || a == "scroll" || a == "input" ||
            a == "key") {
            InputAction in;
            in.idx = s.idx;
            in.action = a;
            in.target = s.target;
            for (const char* k : kOutcomeParams) params.erase(k);
            in.params = params;
            if (gated) {
                in.method = g.relocated ? "relocate" : "replay";
                in.score = g.match.score;
                in.threshold = o_.threshold;
                in.box = s.box ? Rect{s.box->x + g.shift.x, s.box->y + g.shift.y, s.box->w, s.box->h} : g.match.box;
                in.before = g.live;
            }
            if (a == "tap" || a == "double_tap" || a == "long_press") {
                if (!s.input) return skip(r, "no input point recorded");
                in.at = moved(*s.input);
                in.button = buttonFromNumber(params.value("button", 1));
                in.count = params.value("count", a == "double_tap" ? 2 : 1);
                in.hold = params.value("hold", a == "long_press" ? 1.0 : 0.0);
            } else if (a == "drag") {
                if (!s.input || !params.contains("to")) return skip(r, "no drag points recorded");
                in.at = moved(*s.input);
                in.to = moved({params["to"][0].get<int>(), params["to"][1].get<int>()});
                in.duration = params.value("duration", 0.3);
                if (!gated) in.method = "pointer";
            } else if (a == "scroll") {
                if (s.input) in.at = moved(*s.input);
                in.dx = params.value("dx", 0);
                in.dy = params.value("dy", 0);
                if (!gated) in.method = "wheel";
            } else if (a == "input") {
                in.text = s.target;
                in.method = "keyboard";
            } else {
                in.combo = s.target;
                in.method = "keyboard";
            }
            InputResult out = session_.executor().perform(std::move(in));
            ++result_.replayed;
            report(s.idx, a, s.target, "ok", gated ? (g.relocated ? "relocate" : "replay") : "point",
                   gated ? std::optional<double>(g.match.score) : std::nullopt);
            (void)out;
            return true;
        }
        if (a == "launch") {
            nlohmann::json argv = nlohmann::json::parse(s.target, nullptr, false);
            if (!argv.is_array() || argv.empty()) return skip(r, "the recorded command is not an argv list");
            session_.launch(argv.get<std::vector<std::string>>(), s.idx);
            ++result_.replayed;
            report(s.idx, a, s.target, "ok", "process", std::nullopt);
            return true;
        }
        if (a == "launch_app" || a == "stop_app") {
            if (!appsOf(session_)) return skip(r, "an app step (" + a + "), and this device has no installed apps");
            if (a == "launch_app") launchApp(session_, s.target, s.idx);
            else stopApp(session_, s.target, s.idx);
            ++result_.replayed;
            report(s.idx, a, s.target, "ok", "adb", std::nullopt);
            return true;
        }
        if (a == "window") return replayWindow(r, s, params);
        if (a == "wait" || a == "verify") {
            if (!gated) return skip(r, "no recorded frame to compare with");
            r.method = g.relocated ? "relocate" : "replay";
            r.score = g.match.score;
            r.threshold = o_.threshold;
            r.box = s.box ? Rect{s.box->x + g.shift.x, s.box->y + g.shift.y, s.box->w, s.box->h} : g.match.box;
            if (auto id = frame(g.live)) r.frame_before = id;
        } else if (a == "screenshot") {
            r.method = "capture";
            if (auto id = frame(session_.device().capture())) r.frame_after = id;
        } else {
            return skip(r, "an observation (" + a + "), not replayed");
        }
        ++result_.replayed;
        save(r);
        return true;
    }

    // A window operation on the window with the recorded class and title (class alone when
    // no title agrees; the frontmost of several), waited for up to the replay's timeout.
    bool replayWindow(StepRecord& r, const StepRecord& s, const nlohmann::json& params) {
        const std::string op = params.value("op", "");
        const std::string cls = params.value("class", "");
        const std::string title = params.value("title", "");
        if (op.empty() || cls.empty()) return skip(r, "no window recorded");
        const double deadline = monotonicSeconds() + o_.timeout;
        std::optional<WindowInfo> pick;
        std::vector<WindowInfo> seen;
        while (true) {
            seen = session_.windows();
            const WindowInfo* by_class = nullptr;
            for (const WindowInfo& w : seen) {  // bottom first: the last one is the frontmost
                if (w.cls != cls) continue;
                if (w.title == title) pick = w;
                by_class = &w;
            }
            if (!pick && by_class) pick = *by_class;
            if (pick || monotonicSeconds() >= deadline) break;
            session_.cancel().sleep(0.05);
        }
        if (!pick) {
            std::string names;
            for (const WindowInfo& w : seen) names += (names.empty() ? "\"" : ", \"") + w.title + "\" (" + w.cls + ")";
            r.status = "failed";
            r.error = "step " + std::to_string(s.idx) + " (window " + op + "): expected a window of class " + cls +
                      " (\"" + title + "\") within " + fixed(o_.timeout, 1) + " s, got " +
                      (names.empty() ? "no windows" : "only " + names);
            save(r);
            result_.ok = false;
            result_.failed_idx = s.idx;
            result_.error = r.error;
            return false;
        }
        int x = params.value("x", params.value("w", 0));
        int y = params.value("y", params.value("h", 0));
        session_.windowOp(op, pick->id, x, y, 5, s.idx);
        ++result_.replayed;
        report(s.idx, "window", s.target, "ok", "window", std::nullopt);
        return true;
    }

    // A set_text, or a tap that called an element's action: the element the recorded query
    // finds in the tree now gets the same text or action.
    bool replayA11y(StepRecord& r, const StepRecord& s, const nlohmann::json& params) {
        if (!params.contains("query") || !params["query"].is_object()) return skip(r, "no a11y query recorded");
        A11yQuery q = queryFromJson(params["query"]);
        if (!q.role && !q.name && !q.id) return skip(r, "no a11y query recorded");
        q.editable = s.action == "set_text";
        // Looked for as long as a live find would (the program may still be starting).
        const double deadline = monotonicSeconds() + session_.options().find_timeout;
        A11yFound f;
        std::string why;
        while (true) {
            try {
                f = findElement(session_.a11ySnapshot(std::nullopt, deadline), q);
                why = f.why;
            } catch (const DeviceError& e) {
                why = e.what();
            }
            if (f.element || monotonicSeconds() >= deadline) break;
            session_.cancel().sleep(session_.options().poll_interval);
        }
        if (!f.element) {
            r.status = "failed";
            r.method = "a11y";
            r.error = "replay stopped at step " + std::to_string(s.idx) + " (" + s.action + " " + s.target + "): " + why;
            save(r);
            result_.ok = false;
            result_.failed_idx = s.idx;
            result_.error = r.error;
            return false;
        }
        InputAction in;
        in.idx = s.idx;
        in.action = s.action;
        in.target = s.target;
        in.method = "a11y";
        in.element = f.element;
        in.retry_without_effect = false;
        if (!f.element->bounds.empty()) in.box = f.element->bounds;
        if (s.action == "set_text") in.text = params.value("text", "");
        else in.element_action = params["a11y"].value("action", "");
        in.params = {{"query", params["query"]}};
        if (s.action == "set_text") in.params["text"] = in.text;
        session_.executor().perform(std::move(in));
        ++result_.replayed;
        report(s.idx, s.action, s.target, "ok", "a11y", std::nullopt);
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
    int64_t original_;
    Session& session_;
    const Matcher& matcher_;
    ReplayOptions o_;
    ReplayResult result_;
    std::map<int64_t, cv::Mat> cache_;
};

}  // namespace

ReplayResult replayActions(RunLog& log, int64_t original, Session& session, const Matcher& matcher,
                           const ReplayOptions& options) {
    return Replayer(log, original, session, matcher, options).run();
}

}  // namespace eacu
