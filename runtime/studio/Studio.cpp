#include "studio/Studio.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <regex>

#include <unistd.h>

#include <opencv2/imgcodecs.hpp>

#include "base/Base64.h"
#include "base/Clock.h"
#include "process/Process.h"
#include "run/UserInput.h"
#include "server/ApiError.h"
#include "server/LiveScreen.h"
#include "step/A11yTarget.h"
#include "step/StepError.h"
#include "vision/ocr/OcrCache.h"

namespace fs = std::filesystem;
using nlohmann::json;

namespace eacu::studio {
namespace {

using server::ApiError;

json rectJson(const Rect& r) { return {{"x", r.x}, {"y", r.y}, {"w", r.w}, {"h", r.h}}; }

// The action a page event is written as; nullopt for an event that writes no line (a move).
std::optional<UserAction> actionOf(const json& e, double now) {
    const std::string kind = e.value("kind", "");
    UserAction a;
    a.time = a.end = now;
    auto pt = [&](const char* x, const char* y) { return Point{int(e.value(x, 0.0) + 0.5), int(e.value(y, 0.0) + 0.5)}; };
    if (kind == "click" || kind == "right_click") {
        a.kind = UserAction::Kind::Tap;
        a.button = kind == "click" ? "left" : "right";
        a.at = pt("x", "y");
    } else if (kind == "double_click") {
        a.kind = UserAction::Kind::DoubleTap;
        a.at = pt("x", "y");
    } else if (kind == "long_press") {
        a.kind = UserAction::Kind::LongPress;
        a.at = pt("x", "y");
        a.hold = e.value("hold", 1.0);
    } else if (kind == "drag") {
        a.kind = UserAction::Kind::Drag;
        a.at = pt("x", "y");
        a.to = pt("to_x", "to_y");
        a.end = now + 0.3;
    } else if (kind == "wheel") {
        a.kind = UserAction::Kind::Scroll;
        a.at = pt("x", "y");
        a.dx = e.value("dx", 0);
        a.dy = e.value("dy", 0);
    } else if (kind == "text") {
        a.kind = UserAction::Kind::Input;
        a.text = e.value("text", "");
    } else if (kind == "key") {
        a.kind = UserAction::Kind::Key;
        a.text = e.value("keys", "");
    } else {
        return std::nullopt;
    }
    return a;
}

bool isPointer(UserAction::Kind k) { return k != UserAction::Kind::Input && k != UserAction::Kind::Key; }

// A small JPEG (data URL) of the screen round `p`: a line's thumbnail.
std::string thumbOf(const Frame& f, Point p) {
    if (f.empty()) return "";
    const int w = std::min(f.width(), int(120 * f.scale)), h = std::min(f.height(), int(72 * f.scale));
    const int x = std::clamp(p.x - w / 2, 0, f.width() - w), y = std::clamp(p.y - h / 2, 0, f.height() - h);
    std::vector<unsigned char> jpg;
    cv::imencode(".jpg", f.bgr(cv::Rect(x, y, w, h)), jpg, {cv::IMWRITE_JPEG_QUALITY, 70});
    return "data:image/jpeg;base64," + base64Encode(std::string_view(reinterpret_cast<const char*>(jpg.data()), jpg.size()));
}

// The smallest element showing on the screen whose bounds hold `p`, an interactive one first.
const A11yElement* elementUnder(const A11yElement& root, Point p) {
    const A11yElement* best = nullptr;
    bool best_interactive = false;
    for (const A11yElement* e : flatten(root)) {
        if (e->bounds.empty() || !e->bounds.contains(p) || e->role == "desktop frame" || e->role == "application") continue;
        const bool inter = isInteractive(*e);
        if (!best || (inter && !best_interactive) ||
            (inter == best_interactive && e->bounds.area() < best->bounds.area())) {
            best = e;
            best_interactive = inter;
        }
    }
    return best;
}

std::string pathText(const std::vector<int>& path) {
    std::string s;
    for (int i : path) s += (s.empty() ? "" : ".") + std::to_string(i);
    return s;
}

json elementJson(const A11yElement& e, const std::string& source) {
    return {{"role", e.role},     {"name", e.name},   {"id", e.id},          {"description", e.description},
            {"states", e.states}, {"app", e.app},     {"bounds", rectJson(e.bounds)}, {"path", pathText(e.path)},
            {"source", source}};
}

json treeJson(const A11yElement& e, int depth) {
    json j{{"role", e.role}, {"name", e.name}, {"id", e.id}, {"bounds", rectJson(e.bounds)}, {"path", pathText(e.path)}};
    json kids = json::array();
    if (depth < 60)
        for (const A11yElement& c : e.children) kids.push_back(treeJson(c, depth + 1));
    j["children"] = std::move(kids);
    return j;
}

// Whole text of one written line without its newline.
std::string oneLine(std::string s) {
    while (!s.empty() && s.back() == '\n') s.pop_back();
    return s;
}

}  // namespace

Studio::Studio(Device& capture, Session& session, const Locator& locator, StudioOptions options)
    : capture_(capture),
      session_(session),
      locator_(locator),
      o_(std::move(options)),
      history_(capture, !o_.tree_source.empty(), 0.04, 48) {
    publisher_ = std::thread([this] { publishLoop(); });
    // Proofs of lines on different screens run side by side (a second core proves the next
    // line while the first proves its own), two at most: the machine is shared with the device.
    const unsigned n = std::clamp(std::thread::hardware_concurrency(), 1u, 2u);
    for (unsigned i = 0; i < n; ++i) provers_.emplace_back([this] { proofLoop(); });
}

Studio::~Studio() {
    stop_ = true;
    wakeAll();
    if (publisher_.joinable()) publisher_.join();
    for (std::thread& t : provers_)
        if (t.joinable()) t.join();
    if (runner_.joinable()) runner_.join();
    history_.stop();
}

bool Studio::waitFirst(double timeout) const { return history_.waitFirst(timeout); }

void Studio::wakeAll() {
    std::lock_guard<std::mutex> lock(mu_);
    ++version_;
    changed_.notify_all();
}

void Studio::bump() {
    ++version_;
    changed_.notify_all();
}

StudioLine* Studio::line(int id) {
    for (StudioLine& l : lines_)
        if (l.id == id) return &l;
    return nullptr;
}

void Studio::publishLoop() {
    std::shared_ptr<const ScreenState> last;
    Point last_cursor{-1, -1};
    // The pointer is read from the capture device only where a second thread may (a second
    // X connection is not shared across threads): elsewhere the live frame has no pointer mark.
    const bool cursor = capture_.concurrentCapture();
    while (!stop_) {
        std::shared_ptr<const ScreenState> s = history_.latest();
        Point c{-1, -1};
        if (cursor) try {
                c = capture_.cursor();
            } catch (const std::exception&) {
            }
        if (s && (s != last || c.x != last_cursor.x || c.y != last_cursor.y)) {
            last = s;
            last_cursor = c;
            Frame f = s->frame;
            f.bgr = s->frame.bgr.clone();  // the mark is drawn on a copy
            auto lf = std::make_shared<server::LiveFrame>(server::encodeLiveFrame(std::move(f), c, 0));
            std::lock_guard<std::mutex> lock(mu_);
            lf->seq = ++seq_;
            if (!shown_.empty() && shown_.back().state == s) {
                shown_.back().last = lf->seq;
            } else {
                shown_.push_back({lf->seq, lf->seq, s});
                while (shown_.size() > 48) shown_.pop_front();
            }
            frame_ = std::move(lf);
            changed_.notify_all();
        }
        std::unique_lock<std::mutex> lock(mu_);
        changed_.wait_for(lock, std::chrono::milliseconds(30), [&] { return stop_.load(); });
    }
}

std::shared_ptr<const server::LiveFrame> Studio::waitFrame(int64_t after_seq, int64_t after_version, double timeout) const {
    std::unique_lock<std::mutex> lock(mu_);
    changed_.wait_for(lock, std::chrono::duration<double>(timeout),
                      [&] { return stop_ || version_ > after_version || (frame_ && frame_->seq > after_seq); });
    return frame_ && frame_->seq > after_seq ? frame_ : nullptr;
}

std::shared_ptr<const ScreenState> Studio::shownAt(int64_t seq) const {
    for (auto it = shown_.rbegin(); it != shown_.rend(); ++it)
        if (it->first <= seq && seq <= it->last) return it->state;
    return nullptr;
}

json Studio::perform(const json& event) {
    const double received = monotonicSeconds();
    std::lock_guard<std::mutex> input(input_mu_);
    {
        std::lock_guard<std::mutex> lock(mu_);
        if (running_) throw ApiError(409, "the script is playing back: wait for it to end");
    }
    // The screen the person acted on: the frame the page showed them (`frame`, its seq).
    const int64_t shown_seq = event.is_object() && event.contains("frame") && event["frame"].is_number_integer()
                                  ? event["frame"].get<int64_t>()
                                  : 0;
    std::shared_ptr<const ScreenState> before;
    {
        std::lock_guard<std::mutex> lock(mu_);
        if (shown_seq > 0) before = shownAt(shown_seq);
    }
    std::string unseen;  // why the frame acted on is not known, when it is not
    if (!before) {
        unseen = shown_seq > 0 ? "the frame the click was on (live frame " + std::to_string(shown_seq) + ") is no longer kept"
                               : "the page did not say which frame the click was on";
        before = history_.before(received);
    }
    try {
        userInputAction(event, session_.device().screenSize());  // the event's own check first
    } catch (const std::invalid_argument& e) {
        throw ApiError(400, e.what());
    }
    const double t0 = monotonicSeconds();
    history_.inputSent(t0);
    try {
        performUserInput(session_, event, before ? before->frame : Frame{}, false);
    } catch (const StepError& e) {
        throw ApiError(409, std::string("the device did not take the input: ") + e.what());
    }
    const double input_ms = (monotonicSeconds() - t0) * 1000.0;
    std::optional<UserAction> a = actionOf(event, received);
    if (!a) return {{"line", nullptr}, {"input_ms", input_ms}};

    std::lock_guard<std::mutex> lock(mu_);
    StudioLine* last = lines_.empty() ? nullptr : &lines_.back();
    // The page sends a click at once and the double click when a second press follows: the
    // click's line becomes the double click's.
    if (a->kind == UserAction::Kind::DoubleTap && last && last->action.kind == UserAction::Kind::Tap &&
        last->action.button == "left" && std::abs(last->action.at.x - a->at.x) <= kDoubleClickSlop &&
        std::abs(last->action.at.y - a->at.y) <= kDoubleClickSlop) {
        last->action.kind = UserAction::Kind::DoubleTap;
        if (last->lua.rfind("tap(", 0) == 0) last->lua = "double_" + last->lua;
        bump();
        return {{"line", last->id}, {"input_ms", input_ms}};
    }
    // Characters typed in a row are one input line.
    if (a->kind == UserAction::Kind::Input && last && last->action.kind == UserAction::Kind::Input && !last->verify) {
        last->action.text += a->text;
        ScriptItem it;
        it.action = last->action;
        last->lua = oneLine(writeScript({it}, locator_, {}).lua);
        bump();
        return {{"line", last->id}, {"input_ms", input_ms}};
    }
    StudioLine l;
    l.id = next_id_++;
    l.action = *a;
    l.at = received;
    ScriptItem it;
    it.action = *a;
    if (!isPointer(a->kind)) {
        l.lua = oneLine(writeScript({it}, locator_, {}).lua);
        l.state = "proven";
    } else {
        l.lua = "-- " + std::string(actionName(a->kind)) + " at (" + std::to_string(a->at.x) + "," + std::to_string(a->at.y) +
                "): proving its target";
        it.before = before;
        if (!unseen.empty()) {
            // Not the screen the person saw: its tree's element only, never its pixels.
            it.pixels = false;
            it.comment = "no image or text target: " + unseen;
        } else if (before && before->tree && !before->tree_on_frame) {
            // The tree was read while the screen changed: it may be another screen's.
            auto s = std::make_shared<ScreenState>(*before);
            s->tree.reset();
            it.before = std::move(s);
            it.comment = "no tree target: the tree was read while this screen changed";
        }
        if (before && it.pixels) l.thumb = thumbOf(before->frame, a->at);
        const uint64_t fp = it.before ? OcrCache::fingerprint(it.before->frame.bgr) : 0;
        jobs_.push_back({l.id, std::move(it), fp});
    }
    lines_.push_back(std::move(l));
    bump();
    return {{"line", lines_.back().id}, {"input_ms", input_ms}};
}

void Studio::ahead(Point p) {
    std::lock_guard<std::mutex> lock(mu_);
    ahead_ = p;
    changed_.notify_all();
}

void Studio::proofLoop() {
    // Targets proven ahead for the point on the frame with fingerprint `fp`, or null.
    auto provenFor = [&](uint64_t fp, Point p) -> std::shared_ptr<const std::vector<ProvenTarget>> {
        for (const auto& [key, ts] : proven_)
            if (key.first == fp && key.second == p) return ts;
        return nullptr;
    };
    // The first job whose frame no other proof is on (mu_ held).
    auto runnable = [&] {
        return std::find_if(jobs_.begin(), jobs_.end(), [&](const Job& j) { return !j.fp || !proving_.count(j.fp); });
    };
    while (true) {
        Job job;
        {
            std::unique_lock<std::mutex> lock(mu_);
            changed_.wait(lock, [&] { return stop_ || runnable() != jobs_.end() || (ahead_ && jobs_.empty()); });
            if (stop_) return;
            auto next = runnable();
            if (next == jobs_.end()) {
                // Nothing to write: the point the pointer rests on, proven ahead.
                const Point p = *ahead_;
                ahead_.reset();
                std::shared_ptr<const ScreenState> s = history_.latest();
                if (!s) continue;
                const uint64_t fp = OcrCache::fingerprint(s->frame.bgr);
                if (provenFor(fp, p) || proving_.count(fp)) continue;
                proving_.insert(fp);
                lock.unlock();
                ProofOptions po;
                po.image_ref = o_.assets_ref;
                po.image_stem = "ahead";
                std::shared_ptr<const std::vector<ProvenTarget>> ts;
                try {
                    ts = std::make_shared<const std::vector<ProvenTarget>>(
                        proveTargets(s->frame, s->tree && s->tree_on_frame ? &*s->tree : nullptr, p, locator_, po));
                } catch (const std::exception&) {
                    // a line's own proof says why, if the person clicks there
                }
                lock.lock();
                proving_.erase(proving_.find(fp));
                if (ts) {
                    proven_.push_back({{fp, p}, ts});
                    while (proven_.size() > 16) proven_.pop_front();
                }
                changed_.notify_all();
                continue;
            }
            job = std::move(*next);
            jobs_.erase(next);
            if (StudioLine* l = line(job.id)) job.item.action = l->action;
            else continue;  // deleted meanwhile
            if (job.item.before && job.item.pixels && job.item.comment.empty())
                job.item.proven = provenFor(job.fp, job.item.action.at);
            proving_.insert(job.fp);
        }
        StudioLine out;
        try {
            ScriptOptions so;
            so.assets_dir = o_.assets_dir;
            so.assets_ref = o_.assets_ref;
            so.wait_after_s = 1e9;  // the studio's person paces the script: no waits written
            so.first_index = job.id;
            WrittenScript w = writeScript({job.item}, locator_, so);
            out.lua = oneLine(w.lua);
            out.proof_ms = w.proof_ms.empty() ? 0 : w.proof_ms.front();
            out.locate_ms = w.locate_ms;
            out.state = "proven";
        } catch (const std::exception& e) {
            out.state = "failed";
            out.error = std::string("the proof failed: ") + e.what();
            out.lua = "-- " + out.error;
        }
        std::lock_guard<std::mutex> lock(mu_);
        proving_.erase(proving_.find(job.fp));
        changed_.notify_all();
        StudioLine* l = line(job.id);
        if (!l) continue;
        // A double click that arrived while the click's proof ran.
        if (l->action.kind == UserAction::Kind::DoubleTap && job.item.action.kind == UserAction::Kind::Tap &&
            out.lua.rfind("tap(", 0) == 0)
            out.lua = "double_" + out.lua;
        l->lua = out.lua;
        l->state = out.state;
        l->error = out.error;
        l->proof_ms = out.proof_ms;
        l->locate_ms = out.locate_ms;
        l->after_ms = (monotonicSeconds() - l->at) * 1000.0;
        bump();
    }
}

json Studio::lines() const {
    std::lock_guard<std::mutex> lock(mu_);
    json arr = json::array();
    for (const StudioLine& l : lines_)
        arr.push_back({{"id", l.id},
                       {"lua", l.lua},
                       {"state", l.state},
                       {"error", l.error},
                       {"thumb", l.thumb},
                       {"proof_ms", l.proof_ms},
                       {"locate_ms", l.locate_ms},
                       {"after_ms", l.after_ms},
                       {"action", actionName(l.action.kind)},
                       {"verify", l.verify}});
    return {{"version", version_}, {"running", running_}, {"lines", arr}};
}

int64_t Studio::waitLines(int64_t after, double timeout) const {
    std::unique_lock<std::mutex> lock(mu_);
    changed_.wait_for(lock, std::chrono::duration<double>(timeout), [&] { return stop_ || version_ > after; });
    return version_;
}

void Studio::deleteLine(int id) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = std::find_if(lines_.begin(), lines_.end(), [&](const StudioLine& l) { return l.id == id; });
    if (it == lines_.end()) throw ApiError(404, "no line " + std::to_string(id));
    lines_.erase(it);
    bump();
}

void Studio::editLine(int id, const std::string& lua) {
    if (lua.find_first_not_of(" \t\r\n") == std::string::npos) throw ApiError(400, "expected a line of Lua, got an empty one");
    if (lua.find('\n') != std::string::npos) throw ApiError(400, "expected one line of Lua, got several");
    std::lock_guard<std::mutex> lock(mu_);
    StudioLine* l = line(id);
    if (!l) throw ApiError(404, "no line " + std::to_string(id));
    l->lua = lua;
    l->state = "edited";
    bump();
}

json Studio::elementAt(Point p) const {
    std::shared_ptr<const ScreenState> s = history_.latest();
    json out{{"point", {{"x", p.x}, {"y", p.y}}}, {"element", nullptr}, {"source", o_.tree_source}};
    if (!s) return out;
    if (s->tree)
        if (const A11yElement* e = elementUnder(*s->tree, p)) out["element"] = elementJson(*e, o_.tree_source);
    return out;
}

json Studio::proveAt(Point p) {
    std::shared_ptr<const ScreenState> s = history_.latest();
    if (!s) throw ApiError(409, "no screen yet");
    if (p.x < 0 || p.y < 0 || p.x >= s->frame.width() || p.y >= s->frame.height())
        throw ApiError(400, "expected a point on the " + std::to_string(s->frame.width()) + "x" +
                                std::to_string(s->frame.height()) + " screen, got (" + std::to_string(p.x) + "," +
                                std::to_string(p.y) + ")");
    ProofOptions po;
    po.image_ref = o_.assets_ref;
    po.image_stem = "inspect";
    std::vector<ProvenTarget> ts = proveTargets(s->frame, s->tree ? &*s->tree : nullptr, p, locator_, po);
    json words = json::array();
    std::shared_ptr<const OcrResult> band = OcrCache::shared().get(s->frame.bgr, phraseBand(s->frame, p), kPhraseBandLangs);
    for (const OcrLine& line : band->lines)
        for (const OcrWord& w : line.words)
            if (w.box.grown(std::max(4, w.box.h)).contains(p))
                words.push_back({{"text", w.text}, {"confidence", w.confidence}, {"box", rectJson(w.box)}});
    json targets = json::array();
    for (const ProvenTarget& t : ts)
        targets.push_back({{"kind", t.kindName()}, {"lua", t.lua}, {"why", t.why}, {"box", rectJson(t.box)}});
    return {{"lua", ts.front().lua}, {"why", ts.front().why}, {"kind", ts.front().kindName()},
            {"box", rectJson(ts.front().box)}, {"ms", ts.front().ms}, {"targets", targets}, {"ocr", words}};
}

json Studio::addVerify(Point p) {
    std::shared_ptr<const ScreenState> s = history_.latest();
    if (!s) throw ApiError(409, "no screen yet");
    int id;
    {
        std::lock_guard<std::mutex> lock(mu_);
        id = next_id_++;
    }
    ProofOptions po;
    po.image_ref = o_.assets_ref;
    po.image_stem = "verify_" + std::to_string(id);
    std::vector<ProvenTarget> ts = proveTargets(s->frame, s->tree ? &*s->tree : nullptr, p, locator_, po);
    const ProvenTarget* best = &ts.front();
    for (const ProvenTarget& t : ts)
        if (t.kind == ProvenTarget::Kind::Text) best = &t;  // a text first: what the person reads
    if (best->kind == ProvenTarget::Kind::Point)
        throw ApiError(409, "nothing there can be verified: " + best->why);
    if (best->kind == ProvenTarget::Kind::Image) {
        fs::create_directories(o_.assets_dir);
        writeScaledPng((fs::path(o_.assets_dir) / best->image_file).string(), best->crop, best->scale);
    }
    StudioLine l;
    l.id = id;
    l.verify = true;
    l.action.kind = UserAction::Kind::Tap;
    l.action.at = p;
    l.lua = "verify(" + best->lua + ")   -- " + best->why;
    l.state = "proven";
    l.thumb = thumbOf(s->frame, p);
    std::lock_guard<std::mutex> lock(mu_);
    lines_.push_back(l);
    bump();
    return {{"line", id}, {"lua", l.lua}};
}

json Studio::tree() const {
    std::shared_ptr<const ScreenState> s = history_.latest();
    json out{{"source", o_.tree_source}, {"root", nullptr}, {"seq", 0}};
    if (s && s->tree) out["root"] = treeJson(*s->tree, 0);
    std::lock_guard<std::mutex> lock(mu_);
    // The live frames are made of the newest screen a moment after it is kept: its first seq,
    // or 0 while none was sent yet. (A tree re-read on a screen that stayed is a new state of
    // the same frame: the frame's first seq.)
    for (auto it = shown_.rbegin(); s && it != shown_.rend(); ++it)
        if (it->state == s || it->state->frame.bgr.data == s->frame.bgr.data) out["seq"] = it->first;
    return out;
}

std::string Studio::textOf(const std::vector<StudioLine>& lines, std::vector<int>* line_ids) const {
    std::vector<ScriptItem> launches;
    for (const std::string& cmd : o_.launch) {
        ScriptItem it;
        it.launch = cmd;
        launches.push_back(it);
    }
    ScriptOptions so;
    so.header = o_.header;
    std::string text = writeScript(launches, locator_, so).lua;
    if (line_ids) line_ids->assign(size_t(std::count(text.begin(), text.end(), '\n')), 0);
    for (const StudioLine& l : lines) {
        text += l.lua + "\n";
        if (line_ids) line_ids->push_back(l.id);
    }
    return text;
}

std::string Studio::scriptText() const {
    std::lock_guard<std::mutex> lock(mu_);
    return textOf(lines_, nullptr);
}

std::string Studio::save() {
    // Proofs still running are awaited (up to a minute): a saved line is a proven line.
    {
        std::unique_lock<std::mutex> lock(mu_);
        changed_.wait_for(lock, std::chrono::seconds(60), [&] {
            return stop_ || (jobs_.empty() && std::none_of(lines_.begin(), lines_.end(),
                                                            [](const StudioLine& l) { return l.state == "pending"; }));
        });
    }
    const std::string text = scriptText();
    fs::path path = fs::absolute(o_.script);
    if (path.has_parent_path()) fs::create_directories(path.parent_path());
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << text;
    out.close();
    if (!out) throw std::runtime_error("cannot write \"" + path.string() + "\"");
    return path.string();
}

json Studio::runScript() {
    if (o_.eacu.empty() || o_.run_device.empty()) throw ApiError(400, "this studio cannot play a script back (no device spec)");
    std::vector<int> ids;
    fs::path file;
    {
        std::lock_guard<std::mutex> lock(mu_);
        if (running_) throw ApiError(409, "the script is playing back already");
        if (std::any_of(lines_.begin(), lines_.end(), [](const StudioLine& l) { return l.state == "pending"; }))
            throw ApiError(409, "a line's proof still runs: play it back once every line is proven");
        fs::path script = fs::absolute(o_.script);
        // Beside the script, so that its assets' folder is named as in the script.
        file = script.parent_path() / (script.stem().string() + ".studio-run.lua");
        std::ofstream out(file, std::ios::binary | std::ios::trunc);
        out << textOf(lines_, &ids);
        if (!out) throw ApiError(500, "cannot write \"" + file.string() + "\"");
        for (StudioLine& l : lines_)
            if (l.state == "passed" || l.state == "failed") l.state = "proven", l.error.clear();
        running_ = true;
        bump();
    }
    if (runner_.joinable()) runner_.join();
    runner_ = std::thread([this, ids, file] {
        std::string output;
        int rc = -1;
        try {
            ProcessOptions po;
            po.stderr_mode = StderrMode::Capture;
            // Its own run log, removed after: the play-back is the studio's check, not a run to keep.
            const fs::path db = fs::temp_directory_path() / ("eacu-studio-" + std::to_string(::getpid()) + ".db");
            auto p = Process::spawn({o_.eacu, "run", file.string(), "--device", o_.run_device, "--db", db.string()}, po);
            while (!stop_) {
                output += p->readStdout(0.2);
                if (auto st = p->wait(0)) {
                    output += p->readStdout(0.5);
                    rc = *st;
                    break;
                }
            }
            output += p->stderrText();
            std::error_code ec;
            for (const char* ext : {"", "-wal", "-shm"}) fs::remove(db.string() + ext, ec);
        } catch (const std::exception& e) {
            output += e.what();
        }
        // The failing line: "<file>:<line>:" in the run's error.
        int failed_at = 0;
        std::smatch m;
        const std::regex where(std::regex_replace(file.filename().string(), std::regex(R"([.])"), R"(\.)") + R"(:(\d+):)");
        if (rc != 0 && std::regex_search(output, m, where)) failed_at = std::stoi(m[1]);
        std::lock_guard<std::mutex> lock(mu_);
        int failed_id = failed_at > 0 && size_t(failed_at) <= ids.size() ? ids[size_t(failed_at) - 1] : 0;
        bool before_failure = true;
        for (StudioLine& l : lines_) {
            if (rc == 0) {
                l.state = "passed";
            } else if (l.id == failed_id) {
                l.state = "failed";
                l.error = output.substr(output.size() > 600 ? output.size() - 600 : 0);
                before_failure = false;
            } else if (before_failure && failed_id) {
                l.state = "passed";
            }
        }
        if (rc != 0 && !failed_id && !lines_.empty()) {
            lines_.back().state = "failed";
            lines_.back().error = "the play-back ended with status " + std::to_string(rc) + ": " +
                                  output.substr(output.size() > 600 ? output.size() - 600 : 0);
        }
        running_ = false;
        last_run_ = {{"status", rc}, {"output", output.substr(output.size() > 2000 ? output.size() - 2000 : 0)}};
        bump();
    });
    return {{"started", true}, {"file", file.string()}};
}

json Studio::info() const {
    std::shared_ptr<const ScreenState> s = history_.latest();
    json j{{"device_kind", o_.device_kind}, {"tree_source", o_.tree_source}, {"script", o_.script}};
    if (s) j["width"] = s->frame.width(), j["height"] = s->frame.height();
    std::lock_guard<std::mutex> lock(mu_);
    j["last_run"] = last_run_;
    return j;
}

std::vector<double> Studio::proofMs() const {
    std::lock_guard<std::mutex> lock(mu_);
    std::vector<double> v;
    for (const StudioLine& l : lines_)
        if (l.proof_ms > 0) v.push_back(l.proof_ms);
    return v;
}

std::vector<double> Studio::locateMs() const {
    std::lock_guard<std::mutex> lock(mu_);
    std::vector<double> v;
    for (const StudioLine& l : lines_)
        if (l.locate_ms > 0) v.push_back(l.locate_ms);
    return v;
}

}  // namespace eacu::studio
