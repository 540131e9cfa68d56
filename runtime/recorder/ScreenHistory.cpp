#include "recorder/ScreenHistory.h"

#include <algorithm>
#include <chrono>

#include "base/Clock.h"
#include "vision/ocr/OcrCache.h"

namespace eacu {

ScreenHistory::ScreenHistory(Device& device, bool tree, double interval, size_t keep)
    : device_(device), tree_(tree), interval_(interval), keep_(keep) {
    thread_ = std::thread([this] { run(); });
}

ScreenHistory::~ScreenHistory() { stop(); }

void ScreenHistory::stop() {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        stopping_ = true;
    }
    wake_.notify_all();
    if (thread_.joinable()) thread_.join();
}

std::string ScreenHistory::error() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return error_;
}

double ScreenHistory::failingFor() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return failing_since_ < 0 ? 0 : monotonicSeconds() - failing_since_;
}

std::shared_ptr<const ScreenState> ScreenHistory::before(double t) const {
    std::lock_guard<std::mutex> lock(mutex_);
    for (auto it = states_.rbegin(); it != states_.rend(); ++it)
        if ((*it)->seen < t) return *it;
    return states_.empty() ? nullptr : states_.front();
}

bool ScreenHistory::latestConfirmed() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return !states_.empty() && states_.back()->tree_on_frame;
}

std::shared_ptr<const ScreenState> ScreenHistory::latest() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return states_.empty() ? nullptr : states_.back();
}

std::shared_ptr<const ScreenState> ScreenHistory::confirmed(const ScreenState& s) const {
    if (s.frame.bgr.empty()) return nullptr;
    std::lock_guard<std::mutex> lock(mutex_);
    for (auto it = states_.rbegin(); it != states_.rend(); ++it)
        if ((*it)->frame.bgr.data == s.frame.bgr.data && (*it)->tree && (*it)->tree_on_frame) return *it;
    return nullptr;
}

bool ScreenHistory::waitFirst(double timeout) const {
    std::unique_lock<std::mutex> lock(mutex_);
    return first_.wait_for(lock, std::chrono::duration<double>(timeout), [&] { return !states_.empty(); });
}

void ScreenHistory::inputSent(double t) {
    input_at_ = t;
    awaiting_change_ = true;
}

void ScreenHistory::run() {
    uint64_t last = 0;
    bool tree = tree_;
    double tree_read = 0;
    // Whether a tree read that starts now may be the screen's: not while an input's effect may
    // be in the program's tree but not yet drawn (inputSent).
    auto treeSettled = [&](double read_start) {
        return !awaiting_change_ || read_start - input_at_ >= kInputSettle;
    };
    double read_start = 0;  // when the last tree read began
    // The tree of `s` now (a program may export its tree a moment after it draws).
    auto readTree = [&](ScreenState& s) {
        if (!tree) return;
        read_start = monotonicSeconds();
        try {
            s.tree = device_.accessibility().snapshot();
        } catch (const std::exception&) {
            tree = false;  // no tree on this device: stop asking
        }
        tree_read = monotonicSeconds();
    };
    std::optional<Frame> next;  // a frame captured already (after a tree read), looked at first
    double next_start = 0;      // when its capture began
    int retries = 0;            // screens given up in a row because they changed under the read
    double backoff = 0;         // the wait after the last failed capture (0: it succeeded)
    // A browser page's screencast keeps its compositor drawing (see the header).
    if (device_.navigator()) try {
            device_.captureLive();
        } catch (const std::exception&) {
        }
    while (!stopping_) {
        double start = monotonicSeconds();
        try {
            const double cap_start = next ? next_start : start;
            Frame f = next ? std::move(*next) : device_.capture();
            next.reset();
            double seen = monotonicSeconds();
            // A capture worked: the error is cleared before any state of this frame is kept, so a
            // reader woken by that state never sees the failure that came before it.
            if (backoff > 0) {
                std::lock_guard<std::mutex> lock(mutex_);
                error_.clear();
                failing_since_ = -1;
            }
            backoff = 0;
            uint64_t fp = OcrCache::fingerprint(f.bgr);
            if (fp != last) {
                // A screen captured after the input that differs from the one before: the
                // input's effect (or the start of it) is drawn.
                if (cap_start > input_at_) awaiting_change_ = false;
                last = fp;
                auto s = std::make_shared<ScreenState>();
                s->frame = std::move(f);
                s->seen = seen;
                readTree(*s);
                // The tree is this screen's only if the screen still shows it once the tree is
                // read (a dump takes a while: a tap's effect drawn meanwhile gives a tree of the
                // next screen), as the device shows it now: not a video stream's picture that
                // may be older than the read (Device::captureCurrent). Else that next screen is
                // taken, and its tree read, at once; a screen that never stands still (a blinking
                // caret) is kept after two tries.
                if (s->tree && retries < 2) {
                    const double g_start = monotonicSeconds();
                    Frame g = device_.captureCurrent();
                    if (OcrCache::fingerprint(g.bgr) != fp) {
                        next = std::move(g);
                        next_start = g_start;
                        last = 0;
                        ++retries;
                        continue;
                    }
                    s->tree_on_frame = treeSettled(read_start);
                }
                retries = 0;
                {
                    std::lock_guard<std::mutex> lock(mutex_);
                    states_.push_back(std::move(s));
                    while (states_.size() > keep_) states_.pop_front();
                }
                first_.notify_all();
            } else if (tree && monotonicSeconds() - tree_read > (latestConfirmed() ? 0.5 : kUnconfirmedReread)) {
                // The same check as a new screen's: a screen that changed under the read keeps
                // its tree, and the newer screen is looked at next; a tree read while an input's
                // effect may not be drawn yet is not kept.
                auto s = std::make_shared<ScreenState>(*latest());
                readTree(*s);
                const double g_start = monotonicSeconds();
                Frame g = device_.captureCurrent();
                if (OcrCache::fingerprint(g.bgr) != fp) {
                    next = std::move(g);
                    next_start = g_start;
                } else if (s->tree && treeSettled(read_start)) {
                    s->tree_on_frame = true;
                    std::lock_guard<std::mutex> lock(mutex_);
                    states_.back() = std::move(s);
                }
            }
        } catch (const std::exception& e) {
            // Tried again until stop(), waiting longer each time (a device that is away for a
            // while is not asked 25 times a second).
            next.reset();
            last = 0;
            retries = 0;
            backoff = backoff == 0 ? interval_ : std::min(backoff * 2, kMaxBackoff);
            std::unique_lock<std::mutex> lock(mutex_);
            error_ = e.what();
            if (failing_since_ < 0) failing_since_ = monotonicSeconds();
            wake_.wait_for(lock, std::chrono::duration<double>(backoff), [&] { return stopping_.load(); });
            continue;
        }
        double left = interval_ - (monotonicSeconds() - start);
        std::unique_lock<std::mutex> lock(mutex_);
        if (left > 0) wake_.wait_for(lock, std::chrono::duration<double>(left), [&] { return stopping_.load(); });
    }
}

}  // namespace eacu
