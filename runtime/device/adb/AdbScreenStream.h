// The screen of an Android device as a video: screenrecord's H.264 stream over adb, decoded.
#pragma once
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <opencv2/core.hpp>

#include "base/Frame.h"
#include "device/adb/AdbClient.h"
#include "geometry/Rect.h"

namespace eacu {

/// One picture of the stream: `frame` in physical pixels (BGR; never changed once handed out,
/// frame.monotonic is when it was decoded) and its `number` (1, 2, ... in order of arrival, over
/// all the stream's runs); number 0 when no picture came yet.
struct StreamShot {
    Frame frame;
    uint64_t number = 0;
};

/// Where screenrecord puts a `screen` (physical pixels) inside a video of `video` pixels: fitted
/// keeping its aspect ratio, centred, the rest black (AOSP screenrecord.cpp
/// setDisplayProjection: outHeight = videoWidth × aspect, truncated, when that fits, else
/// outWidth = videoHeight ÷ aspect).
Rect streamContent(Size video, Size screen);

/// `screenrecord --output-format=h264 --size WxH --bit-rate 8000000 --time-limit LIMIT -` on a
/// connection of its own (shell v2: stdout is the video, stderr and the exit status apart),
/// read on a thread and decoded with libavcodec (H264Decoder); W and H are the screen's sides
/// rounded down to multiples of 16 (what encoders take), and each picture is mapped back to the
/// screen's physical pixels (streamContent, then resized).
///
/// screenrecord sends a picture only when the screen changed (none at its start on some
/// Android versions) and stops at its time limit (at most 180 s): a new run starts
/// `min(10 s, limit ÷ 4)` before the old one ends, both read until the old one's end, so no
/// change falls between them. A run that dies is started again at once; when screenrecord is
/// not there (the shell's status 127, "not found"), or three runs in a row end without a picture
/// (before their time limit), the stream stops for good: working() turns false and failure()
/// says why. A cut NAL unit (H264Decoder::damaged) ends the run (the next starts with a key
/// frame). Thread-safe.
class AdbScreenStream {
public:
    /// Starts streaming at once. `time_limit`: seconds per screenrecord run (1..180).
    AdbScreenStream(const AdbClient& client, Size screen, double time_limit = 180);
    /// Stops every run (their connections close) and waits for the threads.
    ~AdbScreenStream();
    AdbScreenStream(const AdbScreenStream&) = delete;
    AdbScreenStream& operator=(const AdbScreenStream&) = delete;

    /// The newest picture (number 0: none yet).
    StreamShot newest() const;
    /// Waits until a picture newer than `number` arrived or the monotonic time `until` passed
    /// (or the stream stopped working); returns the newest.
    StreamShot waitNewer(uint64_t number, double until) const;
    /// False once the stream stopped for good (failure() says why).
    bool working() const { return working_; }
    std::string failure() const;
    /// Ends the running runs and starts a new one now (the caller found the stream stale).
    void restart();
    /// Runs started again after one died or was found stale (not the renewals before the limit).
    int restarts() const { return restarts_; }
    /// Runs started in all (the first, renewals and restarts).
    int runs() const { return runs_; }
    /// Runs that ended by themselves (their time limit, screenrecord dying, the device gone),
    /// not stopped by this object: after one the screen may have changed unseen (a rotation).
    int endings() const { return endings_; }
    /// The screen as it was given (physical pixels).
    Size screen() const { return screen_; }

private:
    struct Run;
    void supervise();
    void read(Run& run);
    static void stopRun(Run& run);
    void publish(const cv::Mat& video);

    AdbClient client_;
    Size screen_;
    double limit_;
    std::string command_;
    mutable std::mutex mu_;
    mutable std::condition_variable cv_;  // a picture arrived, a run ended, stop, restart
    StreamShot newest_;
    std::string failure_;
    bool stop_ = false;
    bool restart_ = false;
    std::atomic<bool> working_{true};
    std::atomic<int> restarts_{0}, runs_{0}, endings_{0};
    std::vector<std::shared_ptr<Run>> running_;  // the supervisor's only
    std::thread supervisor_;
};

}  // namespace eacu
