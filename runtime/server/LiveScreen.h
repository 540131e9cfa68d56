// The live screen of a running task (seed 001 §1.1.1, issue 12 §4): a thread that captures the
// task's display (in the server or worker, for an X display) or its device (in the run itself,
// for any other device: docs/serve-protocol.md §5.1 live lines) several times a second and, when the screen or the pointer changed, publishes
// a JPEG with the pointer marked as the task's screen.live frame.
#pragma once
#include <atomic>
#include <condition_variable>
#include <mutex>
#include <cstdint>
#include <functional>
#include <string>
#include <thread>

#include "device/Device.h"
#include "server/ServiceStore.h"

namespace eacu::server {

/// `f` as a live frame of `task_id`: the pointer at `cursor` marked (drawCursorMark), a JPEG
/// of quality 75 and its base64, the size, the pointer and the wall time. The one encoder of
/// every page's live screen (eacu serve's tasks, eacu studio).
LiveFrame encodeLiveFrame(Frame f, Point cursor, int64_t task_id);

/// A device's own JPEG (`jpeg`, `base64` the same bytes) of `width` x `height` pixels as a live
/// frame of `task_id`, undecoded: the pointer at `cursor` is not drawn in it (`marked` false:
/// the page draws its ring there).
LiveFrame passLiveFrame(const std::vector<unsigned char>& jpeg, const std::string& base64, int width, int height,
                        Point cursor, int64_t task_id);

/// Captures X display `display` (":N") every `interval` seconds (default 0.1: up to 10 frames
/// a second) until stop() or destruction, and passes `task_id`'s live frame to `publish` (on
/// its own thread) when the pixels or the pointer position differ from the last frame sent (JPEG quality 75, the pointer
/// marked with drawCursorMark). A display that cannot be opened ends the thread quietly (the
/// task itself reports that); a capture that fails is tried again after `interval` (a page
/// that navigates has no screenshot for a moment). It never throws.
class LiveScreen {
public:
    LiveScreen(int64_t task_id, std::string display, std::function<void(LiveFrame)> publish, double interval = 0.1);
    /// The same on an open `device`, which must outlive it and allow capture() and cursor()
    /// from this thread while the run's own thread uses it (Device::concurrentCapture()). A
    /// chromium page's screencast frames are passed on as Chromium encoded them (passLiveFrame:
    /// no decode, compare or encode; a new frame is a changed screen), each once.
    LiveScreen(int64_t task_id, Device& device, std::function<void(LiveFrame)> publish, double interval = 0.1);
    ~LiveScreen();
    LiveScreen(const LiveScreen&) = delete;
    LiveScreen& operator=(const LiveScreen&) = delete;

    /// Stops the thread and waits for it (idempotent).
    void stop();
    /// Frames captured and frames published so far (for the bench numbers).
    int64_t captured() const { return captured_.load(); }
    int64_t published() const { return published_.load(); }

private:
    void loop();
    void loopOn(Device& device);

    int64_t task_id_;
    std::function<void(LiveFrame)> publish_;
    std::string display_;
    Device* device_ = nullptr;
    double interval_;
    std::mutex mu_;
    std::condition_variable cv_;
    std::atomic<bool> stop_{false};
    std::atomic<int64_t> captured_{0}, published_{0};
    std::thread thread_;
};

}  // namespace eacu::server
