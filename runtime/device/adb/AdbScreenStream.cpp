#include "device/adb/AdbScreenStream.h"

#include <algorithm>
#include <cstdio>

#include <opencv2/imgproc.hpp>

#include "base/Cancel.h"
#include "base/Clock.h"
#include "base/IoDeadline.h"
#include "device/Device.h"
#include "device/adb/H264Decoder.h"

namespace eacu {

struct AdbScreenStream::Run {
    std::thread thread;
    std::atomic<bool> stop{false}, ended{false};
    CancelToken cancel;  // cancelled with `stop`: ends the reader's waits on the device at once
    std::atomic<long> pictures{0};
    double started = 0;
    int exit_code = -1;  // screenrecord's status (-1: none came)
    std::string error;   // its stderr, or why reading ended
};

Rect streamContent(Size video, Size screen) {
    if (screen.w <= 0 || screen.h <= 0) return {0, 0, video.w, video.h};
    const double aspect = static_cast<double>(screen.h) / screen.w;
    int w = video.w, h = video.h;
    if (video.h > static_cast<int>(video.w * aspect)) h = static_cast<int>(video.w * aspect);
    else w = static_cast<int>(video.h / aspect);
    return {(video.w - w) / 2, (video.h - h) / 2, std::max(1, w), std::max(1, h)};
}

AdbScreenStream::AdbScreenStream(const AdbClient& client, Size screen, double time_limit)
    : client_(client), screen_(screen), limit_(std::clamp(time_limit, 1.0, 180.0)) {
    char cmd[200];
    std::snprintf(cmd, sizeof cmd,
                  "shell,v2,raw:screenrecord --output-format=h264 --size %dx%d --bit-rate 8000000 --time-limit %d -",
                  std::max(16, screen.w - screen.w % 16), std::max(16, screen.h - screen.h % 16),
                  static_cast<int>(limit_));
    command_ = cmd;
    supervisor_ = std::thread([this] { supervise(); });
}

AdbScreenStream::~AdbScreenStream() {
    {
        std::lock_guard<std::mutex> lock(mu_);
        stop_ = true;
    }
    cv_.notify_all();
    if (supervisor_.joinable()) supervisor_.join();
}

StreamShot AdbScreenStream::newest() const {
    std::lock_guard<std::mutex> lock(mu_);
    return newest_;
}

StreamShot AdbScreenStream::waitNewer(uint64_t number, double until) const {
    std::unique_lock<std::mutex> lock(mu_);
    const double left = until - monotonicSeconds();
    if (left > 0)
        cv_.wait_for(lock, std::chrono::duration<double>(left),
                     [&] { return newest_.number > number || stop_ || !working_; });
    return newest_;
}

std::string AdbScreenStream::failure() const {
    std::lock_guard<std::mutex> lock(mu_);
    return failure_;
}

void AdbScreenStream::restart() {
    {
        std::lock_guard<std::mutex> lock(mu_);
        restart_ = true;
    }
    cv_.notify_all();
}

void AdbScreenStream::supervise() {
    int failures = 0;
    const double renew_before = std::min(10.0, limit_ / 4);
    for (;;) {
        // Runs that ended are joined; the current one is the last.
        for (auto it = running_.begin(); it != running_.end();) {
            if ((*it)->ended) {
                (*it)->thread.join();
                it = running_.erase(it);
            } else {
                ++it;
            }
        }
        auto run = std::make_shared<Run>();
        run->started = monotonicSeconds();
        running_.push_back(run);
        ++runs_;
        run->thread = std::thread([this, run] {
            read(*run);
            {
                std::lock_guard<std::mutex> lock(mu_);
                run->ended = true;
                if (!run->stop && !stop_) ++endings_;
            }
            cv_.notify_all();
        });
        std::unique_lock<std::mutex> lock(mu_);
        cv_.wait_for(lock, std::chrono::duration<double>(limit_ - renew_before),
                     [&] { return stop_ || restart_ || run->ended; });
        if (stop_) break;
        if (restart_) {
            restart_ = false;
            ++restarts_;
            for (auto& r : running_) stopRun(*r);
            continue;
        }
        if (!run->ended) continue;  // the limit is near: a new run now, this one streams on to its end
        const bool at_limit = run->exit_code == 0 && monotonicSeconds() - run->started >= limit_ * 0.9;
        if (run->pictures > 0 || at_limit) failures = 0;
        else ++failures;
        const bool missing = run->exit_code == 127 || run->error.find("not found") != std::string::npos;
        if (missing || failures >= 3) {
            failure_ = missing ? "screenrecord is not there (" + run->error + ")"
                               : "screenrecord ended 3 times without a picture (" + run->error + ")";
            while (!failure_.empty() && (failure_.back() == '\n' || failure_.back() == '\r')) failure_.pop_back();
            working_ = false;
            cv_.notify_all();
            break;
        }
        if (!at_limit) ++restarts_;
    }
    for (auto& r : running_) stopRun(*r);
    for (auto& r : running_)
        if (r->thread.joinable()) r->thread.join();
    running_.clear();
}

void AdbScreenStream::stopRun(Run& run) {
    run.stop = true;
    run.cancel.cancel("the stream stopped");
}

void AdbScreenStream::read(Run& run) {
    // The reader's waits on the device (the connection's open, a read) end when the run is
    // stopped, not at their timeouts: a stalled device does not hold up the destructor.
    IoDeadlineScope bound(0, &run.cancel, "");
    try {
        std::unique_ptr<AdbConnection> conn = client_.open(command_, 10);
        H264Decoder decoder;
        std::string buf;
        for (;;) {
            {
                std::lock_guard<std::mutex> lock(mu_);
                if (stop_ || run.stop) break;
            }
            if (!conn->readable(0.2)) continue;
            conn->begin("screenrecord");  // bytes are there: a read that stalls from here is bounded
            const std::string more = conn->readSome(1 << 20);
            if (more.empty()) break;
            buf += more;
            std::string video;
            for (const ShellPacket& p : takeShellPackets(buf, "adb " + client_.serial() + ": screenrecord")) {
                if (p.id == 1) video += p.data;
                else if (p.id == 2) run.error += p.data;
                else if (p.id == 3 && !p.data.empty()) run.exit_code = static_cast<unsigned char>(p.data[0]);
            }
            // The sender paused 30 ms at the end of a packet: screenrecord writes each encoded
            // picture at once, so the bytes end at a NAL unit's end (a picture that fills the
            // pipe on the phone comes in several packets, back to back).
            const bool tail = buf.empty() && !conn->readable(0.03);
            for (const cv::Mat& picture : decoder.feed(video, tail)) {
                publish(picture);
                ++run.pictures;
            }
            if (decoder.damaged()) {
                run.error = "a NAL unit came cut: the pictures after it are damaged until a key frame";
                break;
            }
        }
    } catch (const Cancelled&) {
        // Stopped: not a failure of the stream.
    } catch (const std::exception& e) {
        run.error = e.what();
    }
}

void AdbScreenStream::publish(const cv::Mat& video) {
    const Rect c = streamContent({video.cols, video.rows}, screen_);
    cv::Mat content = video(cv::Rect(c.x, c.y, std::min(c.w, video.cols - c.x), std::min(c.h, video.rows - c.y)));
    Frame f;
    if (content.cols == screen_.w && content.rows == screen_.h && c.x == 0 && c.y == 0) f.bgr = video;
    else cv::resize(content, f.bgr, cv::Size(screen_.w, screen_.h), 0, 0, cv::INTER_LINEAR);
    f.timestamp = wallSeconds();
    f.monotonic = monotonicSeconds();
    {
        std::lock_guard<std::mutex> lock(mu_);
        newest_ = {f, newest_.number + 1};
    }
    cv_.notify_all();
}

}  // namespace eacu
