// A rolling capture of the screen (and its accessibility tree) while a person works, so that
// each of their actions can be read against the screen as it was just before it.
#pragma once
#include <atomic>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>

#include "base/Frame.h"
#include "device/Accessibility.h"
#include "device/Device.h"

namespace eacu {

/// The screen at one moment: `frame`, and the accessibility `tree` read just after it (none
/// when the device has no tree or its bus cannot be reached); `seen` is when the capture had
/// returned (monotonicSeconds()), so the server drew nothing of a later input on it.
/// `tree_on_frame`: a capture after the tree was read still showed `frame`, so the tree is this
/// screen's (false when the screen never stood still for the read: the tree may be another's).
struct ScreenState {
    Frame frame;
    std::optional<A11yElement> tree;
    double seen = 0;
    bool tree_on_frame = false;
};

/// Captures `device` on a thread of its own every `interval` seconds and keeps the last
/// `keep` different screens (a screen that did not change is not kept twice); with `tree`,
/// each different screen's accessibility tree is read after it, and the screen is kept with it
/// only when a capture after the read (Device::captureCurrent: the screen as it is then, not a
/// stream's older picture) still shows it (else the newer screen is taken instead,
/// twice at most in a row: a screen that never stands still is kept as it is, its
/// tree_on_frame false). A screen that stays is read again every 0.5 s, the new tree kept under
/// the same check. A capture that fails (a page between two documents, a phone that
/// rebooted) is tried again until stop(): after `interval`, then twice as long each time up to
/// kMaxBackoff seconds, back to `interval` after a success; error() says why meanwhile. On a
/// browser page (Device::navigator()) captureLive() is called once first: it starts the page's
/// screencast, which keeps Chromium's compositor drawing (a capture after a navigation shows the
/// new page at once, not the last one for seconds). The device must not be used
/// by anyone else until stop().
class ScreenHistory {
public:
    ScreenHistory(Device& device, bool tree, double interval = 0.04, size_t keep = 24);
    /// Stops the thread.
    ~ScreenHistory();
    ScreenHistory(const ScreenHistory&) = delete;
    ScreenHistory& operator=(const ScreenHistory&) = delete;

    /// The newest screen captured before time `t` (monotonicSeconds()), or the oldest kept
    /// when none is that old; nullptr before the first capture.
    std::shared_ptr<const ScreenState> before(double t) const;
    /// The newest screen.
    std::shared_ptr<const ScreenState> latest() const;
    /// The newest kept state of `s`'s very frame (the same capture, not a look-alike) whose tree
    /// is that screen's (tree_on_frame), or null. A screen whose tree was read while it changed
    /// (typing drawn under the read) has its tree read again as soon as it is seen unchanged
    /// (kUnconfirmedReread); that reading replaces it in the history.
    std::shared_ptr<const ScreenState> confirmed(const ScreenState& s) const;
    /// Seconds between two reads of the newest screen's tree while it is not known to be that
    /// screen's (0.5 s once it is): a person filling fields in a row moves on within 0.5 s, and
    /// a click on a screen without a confirmed tree gets no tree target (e2e_studio_agent).
    static constexpr double kUnconfirmedReread = 0.1;
    /// Waits up to `timeout` seconds for the first screen to be kept (with its tree, when read).
    /// True when there is one; false when the time ran out (error() says why when captures
    /// failed meanwhile).
    bool waitFirst(double timeout) const;
    /// An input went to the device at `t` (monotonicSeconds(), taken before it was sent). A
    /// program's tree changes before its drawing does (a phone draws 50-300 ms after the input,
    /// an animation longer), so a tree read after `t` on a screen that was there before it may
    /// be the next screen's: until a screen captured after `t` differs from the one before, or
    /// kInputSettle seconds have passed, a tree read is kept with tree_on_frame false (a new
    /// screen) or not kept (the same screen read again).
    void inputSent(double t);
    /// Seconds after an input that changed nothing on the screen before its trees are taken
    /// as the screen's again.
    static constexpr double kInputSettle = 1.0;
    /// The longest wait between two tries of a capture that keeps failing, in seconds.
    static constexpr double kMaxBackoff = 1.0;
    /// Stops capturing (idempotent); returns within one capture (a backoff's wait is cut short).
    void stop();
    /// The newest capture's error while captures fail ("" once one succeeds again).
    std::string error() const;
    /// Seconds since the first of the captures failing now in a row (0 when the last succeeded).
    double failingFor() const;

private:
    void run();
    bool latestConfirmed() const;  // the newest state's tree is its screen's

    Device& device_;
    bool tree_;
    double interval_;
    size_t keep_;
    std::atomic<bool> stopping_{false};
    std::atomic<double> input_at_{-1e300};      // the newest input's time (inputSent)
    std::atomic<bool> awaiting_change_{false};  // no screen captured after it differed yet
    mutable std::mutex mutex_;
    mutable std::condition_variable first_;  // a first screen was kept, or the capture failed
    std::condition_variable wake_;           // stop() cuts a wait short
    std::deque<std::shared_ptr<const ScreenState>> states_;
    std::string error_;
    double failing_since_ = -1;  // monotonicSeconds() of the first failure in a row; -1: none
    std::thread thread_;
};

}  // namespace eacu
