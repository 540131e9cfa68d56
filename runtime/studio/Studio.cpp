// eacu studio: the live frames, the person's input performed and written as lines, and the
// proof threads (inspect mode: StudioInspect.cpp; the script: StudioScript.cpp).
#include "studio/Studio.h"

#include <algorithm>
#include <chrono>
#include <cstdio>

#include "base/Clock.h"
#include "run/UserInput.h"
#include "server/ApiError.h"
#include "server/LiveScreen.h"
#include "step/StepError.h"
#include "recorder/TargetProof.h"
#include "studio/Thumbnail.h"
#include "vision/ocr/OcrCache.h"
#include "vision/ocr/OcrEngine.h"

using nlohmann::json;

namespace eacu::studio {
namespace {

using server::ApiError;

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
    // The history reads a screen's tree again once the screen stands still (ScreenHistory): a
    // newer state of the very frame shown may have the screen's own tree where the shown state's
    // was read while the screen changed. It need not be the newest: the screen may have changed
    // again by the time the person clicks (e2e_studio_agent's fields, filled in a row).
    if (before && before->tree && !before->tree_on_frame)
        if (std::shared_ptr<const ScreenState> now = history_.confirmed(*before)) before = now;
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
    // A line opened from the picker is never merged into.
    StudioLine* last = lines_.empty() || !lines_.back().verb.empty() ? nullptr : &lines_.back();
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
            // The tree was read while the screen changed: it may be another screen's (its
            // names still decide what a text reading like one writes).
            it.tree_targets = false;
            it.comment = "no tree target: the tree was read while this screen changed";
        }
        if (before && it.pixels) l.thumb = thumbnailOf(before->frame, a->at);
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
    // The OCR engines a proof reads with (PhraseReader's), loaded before the first action comes:
    // loading eng+chi_sim is seconds (tens under AddressSanitizer) that the first line's proof
    // would otherwise wait for. A prover that finds them loading waits for that load.
    try {
        OcrEngine::shared(kPhraseBandLangs);
        OcrEngine::shared("eng");
    } catch (const std::exception&) {
        // No OCR data: the proofs say so.
    }
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
                if (s->tree && !s->tree_on_frame) po.name_tree = &*s->tree;
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
        std::vector<DeferredEvidence> evidence;
        std::vector<std::string> files;
        try {
            ScriptOptions so;
            so.assets_dir = o_.assets_dir;
            so.assets_ref = o_.assets_ref;
            so.wait_after_s = 1e9;  // the studio's person paces the script: no waits written
            so.first_index = job.id;
            so.defer_evidence = true;  // written below, once the line shows as proven
            WrittenScript w = writeScript({job.item}, locator_, so);
            evidence = std::move(w.evidence);
            files = std::move(w.files);
            out.lua = oneLine(w.lua);
            out.proof_ms = w.proof_ms.empty() ? 0 : w.proof_ms.front();
            out.locate_ms = w.locate_ms;
            out.state = "proven";
        } catch (const std::exception& e) {
            out.state = "failed";
            out.error = std::string("the proof failed: ") + e.what();
            out.lua = "-- " + out.error;
        }
        std::unique_lock<std::mutex> lock(mu_);
        proving_.erase(proving_.find(job.fp));
        changed_.notify_all();
        StudioLine* l = line(job.id);
        if (!l) {  // deleted while its proof ran: what the proof wrote goes too
            removeFiles(files);
            continue;
        }
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
        l->files = files;
        bump();
        if (evidence.empty()) continue;
        // What healing keeps of the line's screen: a whole-frame reading, after the line shows.
        ++evidence_pending_;
        lock.unlock();
        for (const DeferredEvidence& e : evidence) {
            try {
                writeDeferredEvidence(e);
            } catch (const std::exception& err) {
                std::fprintf(stderr, "eacu studio: %s (healing reads that line's screen again instead)\n", err.what());
            }
        }
        lock.lock();
        --evidence_pending_;
        if (!line(job.id)) removeFiles(files);  // deleted while its _frame.json was written
        changed_.notify_all();
    }
}

json Studio::info() const {
    std::shared_ptr<const ScreenState> s = history_.latest();
    json j{{"device_kind", o_.device_kind}, {"tree_source", o_.tree_source}, {"script", o_.script}};
    if (s) j["width"] = s->frame.width(), j["height"] = s->frame.height();
    std::lock_guard<std::mutex> lock(mu_);
    j["last_run"] = last_run_;
    j["seq"] = frame_ ? frame_->seq : 0;
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
