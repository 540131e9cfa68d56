// Session: construction, the step rows and frames it records, screenshot, sleep, launch.
#include "step/Session.h"
#include "step/Navigation.h"

#include <cstdio>
#include <cstdlib>

#include <nlohmann/json.hpp>
#include <opencv2/imgcodecs.hpp>

#include "base/Format.h"
#include "geometry/Coords.h"

namespace eacu {

std::string describeTarget(const TargetSpec& t) {
    if (!t.alternatives.empty()) {  // as a script writes it: { first, alt = { ... } }
        TargetSpec first = t;
        first.alternatives.clear();
        std::string alts;
        for (const TargetSpec& a : t.alternatives) alts += (alts.empty() ? "" : ", ") + describeTarget(a);
        return "{ " + describeTarget(first) + ", alt = { " + alts + " } }";
    }
    if (!t.label.empty()) return t.label;
    if (t.image) return "\"" + *t.image + "\"";
    if (t.text) return "{text=\"" + *t.text + "\"}";
    if (t.a11y) return describeQuery(*t.a11y);
    if (t.point)
        return "{x=" + fixed((*t.point)[0], 3) + ", y=" + fixed((*t.point)[1], 3) + "}";
    return "(no target)";
}

Session::Session(Device& device, const AssetLibrary& assets, const Locator& locator, RunLog* log,
                 int64_t run_id, SessionOptions options)
    : device_(device), assets_(assets), locator_(locator), log_(log), run_id_(run_id),
      options_(std::move(options)), limits_(options_.limits, options_.cancel.get()) {}

Session::~Session() { stopProcesses(); }

void Session::stopProcesses(double grace) {
    for (auto& p : processes_) p->stop(grace);
}

StepRecord Session::newStep(const std::string& action, const TargetSpec* t) {
    StepRecord s;
    s.run_id = run_id_;
    s.idx = ++step_counter_;
    s.action = action;
    s.actor = actor_;
    if (t) s.target = describeTarget(*t);
    s.started_at = wallSeconds();
    s.transform_json = nlohmann::json{{"scale", device_.scaleFactor()}, {"space", "physical"}}.dump();
    if (t && t->window) {
        nlohmann::json p{{"window", windowTag(*t->window)}};
        if (t->raise) p["raise"] = true;
        if (!t->focus) p["focus"] = false;
        s.params_json = p.dump();
    }
    return s;
}

nlohmann::json Session::windowTag(uint64_t id) {
    nlohmann::json tag{{"id", id}};
    try {
        if (auto w = device_.windows().info(id)) {
            tag["title"] = w->title;
            tag["class"] = w->cls;
            tag["origin"] = {w->x, w->y};  // the screen position of the window's frames' (0, 0)
        }
    } catch (const DeviceError&) {
    }
    return tag;
}

void Session::mergeParams(StepRecord& s, const nlohmann::json& more) {
    nlohmann::json p = s.params_json.empty() ? nlohmann::json::object() : nlohmann::json::parse(s.params_json);
    for (auto it = more.begin(); it != more.end(); ++it) p[it.key()] = it.value();
    s.params_json = p.dump();
}

int64_t Session::saveFrame(const Frame& f) {
    if (!log_ || !options_.record_frames || f.empty()) return 0;
    return log_->addFrame(run_id_, f);
}

int64_t Session::commit(StepRecord& s) {
    s.ended_at = wallSeconds();
    if (s.status.empty()) s.status = "ok";
    if (log_) s.id = log_->addStep(s);
    if (step_observer_) step_observer_(s);
    // A navigation the page started itself (a link) that the domain policy stopped fails the
    // step that caused it, or the next one (step/Navigation.h); a step that failed while such a
    // navigation was pending (its page went to the error page) is reported as refused.
    if (device_.navigator()) reportRefusedNavigations(*this);
    return s.id;
}

bool Session::checkpoint() {
    if (!checkpoint_ || in_checkpoint_) return false;
    in_checkpoint_ = true;
    struct Leave {
        bool& flag;
        ~Leave() { flag = false; }
    } leave{in_checkpoint_};
    return checkpoint_();
}

void Session::intent(const std::string& text) {
    if (intent_observer_ && !text.empty()) intent_observer_(text);
}

int64_t Session::screenshot(const std::string& path, Frame* out) {
    StepRecord s = newStep("screenshot", nullptr);
    s.target = path;
    Frame f = device_.capture();
    if (!path.empty() && !cv::imwrite(path, f.bgr))
        throw std::runtime_error("screenshot: cannot write \"" + path + "\"");
    int64_t id = log_ ? log_->addFrame(run_id_, f) : 0;
    if (id) s.frame_after = id;
    commit(s);
    if (out) *out = std::move(f);
    return id;
}

IoDeadlineScope Session::ioBound(double seconds) const {
    // The second beyond the part's own time is for the input or capture that ends it.
    char what[64];
    std::snprintf(what, sizeof what, "the step's deadline, %g s + 1 s", seconds);
    return IoDeadlineScope::in(seconds + 1, &cancel(), what);
}

void Session::sleep(double seconds) {
    if (seconds < 0) throw std::invalid_argument("sleep: expected seconds >= 0, got " + fixed(seconds));
    checkpoint();  // between steps: a take-over pauses here
    cancel().sleep(seconds);
}

std::shared_ptr<Process> Session::launch(const std::vector<std::string>& argv, int idx) {
    StepRecord s = beginStep("launch", "", idx);
    nlohmann::json args = argv;
    s.target = args.dump();
    ProcessOptions po;
    po.env = options_.env;
    if (!options_.display.empty()) po.env["DISPLAY"] = options_.display;
    // A program told not to load its accessibility bridge would hide its tree from the bus.
    if (po.env.count("AT_SPI_BUS_ADDRESS")) po.unset_env.push_back("NO_AT_BRIDGE");
    std::shared_ptr<Process> p = Process::spawn(argv, po);
    s.params_json = nlohmann::json{{"pid", p->pid()}}.dump();
    s.method = "process";
    commit(s);
    processes_.push_back(p);
    return p;
}

StepRecord Session::beginStep(const std::string& action, const std::string& target, int idx) {
    StepRecord s = newStep(action, nullptr);
    if (idx > 0) {
        --step_counter_;
        s.idx = idx;
    }
    s.target = target;
    return s;
}

int64_t Session::commitStep(StepRecord& s) { return commit(s); }

int64_t Session::recordFrame(const Frame& f) { return saveFrame(f); }

std::string Session::confirm(const std::string& what) {
    const char* env = std::getenv("EACU_CONFIRM");
    return confirmRisky(what, env && *env ? confirmModeFromEnv() : confirm_, *user_, cancel());
}

std::string Session::personStep(const std::string& action, const std::string& text, nlohmann::json params,
                                const std::function<std::string()>& wait) {
    StepRecord s = beginStep(action, text);
    s.method = "person";
    try {
        std::string answer = wait();
        params["answer"] = answer;
        s.params_json = params.dump();
        commit(s);
        return answer;
    } catch (const StepError& e) {
        s.status = "failed";
        s.error = e.what();
        s.params_json = params.dump();
        int64_t id = commit(s);
        throw StepError(e.code, e.what(), id, 0, text);
    } catch (const Cancelled& e) {
        s.status = "failed";
        s.error = e.what();
        s.params_json = params.dump();
        commit(s);
        throw;
    }
}

std::string Session::askUser(const std::string& text) {
    return personStep("ask_user", text, nlohmann::json::object(), [&] { return user_->ask(text, cancel()); });
}

std::string Session::awaitUser(const std::string& kind, const std::string& text, const nlohmann::json& params) {
    return personStep(kind, text, params.is_object() ? params : nlohmann::json::object(),
                      [&] { return user_->awaitAction(kind, text, cancel()); });
}

}  // namespace eacu
