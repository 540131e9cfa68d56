// AdbDevice's frames (device/adb/AdbDevice.h): raw screencap, the screenrecord stream's newest
// picture with its staleness check, the PNG path and the live screen.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <thread>

#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include "base/Clock.h"
#include "base/Format.h"
#include "base/ImageDecode.h"
#include "base/IoDeadline.h"
#include "device/adb/AdbDevice.h"
#include "device/adb/RawScreencap.h"

namespace eacu {

Frame AdbDevice::captureRaw() {
    Frame f;
    if (raw_capture_) {
        // Under the step's bound a raw screencap gets at least twice what it has taken so far:
        // 10 MB over Wi-Fi adb take 2-2.5 s (reference/adb.md), more than kIoWaitFloor, and a
        // settle capture that starts after a find that used its whole timeout must not fail a
        // step that a slow link merely delays (a stall still ends: at twice the usual time).
        const double t0 = monotonicSeconds();
        f = decodeRawScreencap(client_.exec("screencap", 20, 2 * raw_s_));
        if (f.empty()) {
            raw_capture_ = false;  // an unknown pixel format: PNG from now on
        } else {
            ++counts_.raw;
            const double took = monotonicSeconds() - t0;
            raw_s_ = raw_s_ > 0 ? 0.7 * raw_s_ + 0.3 * took : took;
        }
    }
    if (f.empty()) {
        f = capturePng();
        ++counts_.png;
    }
    f.timestamp = wallSeconds();
    f.monotonic = monotonicSeconds();
    return f;
}

namespace {
// Whether a raw frame shows another screen than a stream picture (lossy: small differences are
// the encoder's): grey levels at a quarter of the size, each blurred over 3x3, more than 0.05 %
// of them off by over 48. The blur takes the stream's own differences: its picture is the screen
// scaled to fit the video and back (1080x2400 -> 1072x2382 -> 1080x2400) and encoded, so edges
// move by under a pixel and the rows next to the black border darken. Measured on the stand-in
// at 1080x2400 (the chat list's raw frame against its picture of 1 s before, the same screen):
// 449 quarter-size pixels over 48 without the blur (the limit is 81: every check said "another
// screen"), none with it (the largest difference 68 -> 32); a black 32x34-pixel glyph drawn on
// the raw frame counts 40 with it (32 without), a 40x40 square 100.
bool otherScreen(const cv::Mat& raw, const cv::Mat& picture) {
    if (raw.size() != picture.size()) return true;
    cv::Mat a, b, d;
    cv::resize(raw, a, cv::Size(), 0.25, 0.25, cv::INTER_AREA);
    cv::resize(picture, b, a.size(), 0, 0, cv::INTER_AREA);
    cv::cvtColor(a, a, cv::COLOR_BGR2GRAY);
    cv::cvtColor(b, b, cv::COLOR_BGR2GRAY);
    cv::GaussianBlur(a, a, cv::Size(3, 3), 0);
    cv::GaussianBlur(b, b, cv::Size(3, 3), 0);
    cv::absdiff(a, b, d);
    return cv::countNonZero(d > 48) > 0.0005 * static_cast<double>(d.total());
}
// A picture arrives within this of an input that changed the screen (a phone draws 50-300 ms
// late, screenrecord buffers about 100 ms, then the link and the decoder): later is stale.
constexpr double kStaleAfter = 1.0;
// A picture that arrives this soon after an input may have been encoded before it.
constexpr double kBuffered = 0.5;
}  // namespace

Frame AdbDevice::captureFromStream() {
    const StreamShot s = stream_->waitNewer(stream_seen_, monotonicSeconds() + 0.04);
    if (s.number > stream_seen_) {
        stream_seen_ = s.number;
        if (s.frame.monotonic > current_at_) {
            if (s.frame.monotonic <= raw_until_ && otherScreen(current_.bgr, s.frame.bgr)) {
                // A picture that came with or just after a raw frame (the stream's bytes wait
                // behind the raw screencap's 10 MB on the link) may be older than the raw frame:
                // not taken. Another raw frame decides, 1 s on, unless a later picture comes.
                ++counts_.late;
                recheck_at_ = s.frame.monotonic + kStaleAfter;
            } else {
                current_ = s.frame;
                current_at_ = s.frame.monotonic;
                recheck_at_ = 0;
                ++counts_.stream;
            }
        }
        stale_suspect_ = false;  // the stream delivers
    }
    const double now = monotonicSeconds();
    const int endings = stream_->endings();
    // The last input's stale check is owed while nothing but, at most, a picture within 0.5 s
    // of it was decoded; a probe beside a dump that is no longer needed is dropped.
    const bool owed = inputs_ > stale_checked_ && current_at_ < last_input_at_ + kBuffered;
    if (probe_ && (!owed || probe_->inputs != inputs_)) {
        probe_->cancel = true;
        probe_.reset();
    }
    bool probed = false;
    if (probe_) {
        std::lock_guard<std::mutex> lock(probe_->mu);
        probed = probe_->done && !probe_->frame.empty();
    }
    if (current_.empty() || endings != endings_seen_) {
        // Before the stream's first picture, and after a screenrecord run ended by itself (the
        // screen may have changed unseen: a rotation ends the stand-in's).
        endings_seen_ = endings;
        current_ = captureRaw();
        current_at_ = current_.monotonic;  // pictures that came during it are older or the same
        raw_until_ = current_at_ + kBuffered;
        recheck_at_ = 0;
    } else if (recheck_at_ > 0 && now >= recheck_at_) {
        // A late picture differed from the raw frame and none came since: a raw frame decides.
        recheck_at_ = 0;
        current_ = captureRaw();
        current_at_ = current_.monotonic;
        raw_until_ = current_at_ + kBuffered;
    } else if (owed && (probed || now - std::max(last_input_at_, current_at_) > kStaleAfter)) {
        // Nothing decoded for 1 s after an input but, at most, a picture that was on its way
        // when the input came (screenrecord's buffering): it changed nothing, or the stream is
        // behind. The raw frame taken beside a dump at 1 s after the input decides when there
        // is one (checkStaleBeside), else one taken now.
        stale_checked_ = inputs_;
        Frame raw = takeProbe();
        if (raw.empty()) raw = captureRaw();
        if (otherScreen(raw.bgr, current_.bgr)) {
            // Behind or stale: restarted when it was already behind at the last check with no
            // picture since (a slow stream that still delivers is not thrown away).
            ++counts_.stale;
            if (stale_suspect_) stream_->restart();
            stale_suspect_ = !stale_suspect_;
        }
        current_ = raw;
        current_at_ = raw.monotonic;  // pictures that came during it are older or the same
        raw_until_ = current_at_ + kBuffered;
        recheck_at_ = 0;
    }
    return current_;
}

void AdbDevice::checkStaleBeside() {
    if (!stream_ || !stream_->working() || !raw_capture_ || current_.empty()) return;
    if (inputs_ <= stale_checked_ || current_at_ >= last_input_at_ + kBuffered) return;
    if (probe_ && probe_->inputs == inputs_) return;  // under way
    const double came_after = last_input_at_ + kBuffered, due = last_input_at_ + kStaleAfter;
    const StreamShot newest = stream_->newest();
    if (newest.number > stream_seen_ && newest.frame.monotonic >= came_after) return;  // not owed
    if (probe_) probe_->cancel = true;
    auto probe = std::make_shared<StaleProbe>();
    probe->inputs = inputs_;
    probe_ = probe;
    // The thread holds copies only (the client, the probe, the stream weakly): it may outlive
    // this device. A stall ends within what a raw screencap may take (captureRaw's least).
    const double least = std::max(kIoWaitFloor, 2 * raw_s_);
    std::weak_ptr<AdbScreenStream> weak = stream_;
    std::thread([probe, weak, client = client_, due, came_after, least] {
        Frame f;
        double took = 0;
        try {
            while (!probe->cancel && monotonicSeconds() < due)
                std::this_thread::sleep_for(std::chrono::milliseconds(10));
            bool came = false;
            if (std::shared_ptr<AdbScreenStream> s = weak.lock()) {
                const StreamShot n = s->newest();
                came = n.number > 0 && n.frame.monotonic >= came_after;
            }
            if (!probe->cancel && !came) {
                const double t0 = monotonicSeconds();
                f = decodeRawScreencap(client.exec("screencap", least, least));
                took = monotonicSeconds() - t0;
                f.timestamp = wallSeconds();
                f.monotonic = monotonicSeconds();
            }
        } catch (const std::exception&) {
            f = Frame{};  // capture() takes its own raw frame, under the step's bound
        }
        std::lock_guard<std::mutex> lock(probe->mu);
        probe->frame = std::move(f);
        probe->took = took;
        probe->done = true;
        probe->cv.notify_all();
    }).detach();
}

Frame AdbDevice::takeProbe() {
    std::shared_ptr<StaleProbe> p = std::move(probe_);
    probe_.reset();
    if (!p) return {};
    if (p->inputs != inputs_) {
        p->cancel = true;
        return {};
    }
    const double end = ioWaitEnd(std::max(kIoWaitFloor, 2 * raw_s_));
    std::unique_lock<std::mutex> lock(p->mu);
    while (!p->done) {
        lock.unlock();
        ioCheckCancel();
        lock.lock();
        if (monotonicSeconds() >= end) {
            p->cancel = true;
            return {};
        }
        p->cv.wait_for(lock, std::chrono::milliseconds(20));
    }
    if (p->frame.empty()) return {};
    ++counts_.raw;
    raw_s_ = raw_s_ > 0 ? 0.7 * raw_s_ + 0.3 * p->took : p->took;
    return std::move(p->frame);
}

Frame AdbDevice::capture() {
    const double t0 = monotonicSeconds();
    if (stream_ && !stream_->working()) {
        std::fprintf(stderr, "adb %s: raw screencaps from now on: %s\n", client_.serial().c_str(),
                     stream_->failure().c_str());
        failed_stream_ = stream_;
        setStream(nullptr);  // screenrecord missing or failing: raw frames
    }
    return finishCapture(stream_ ? captureFromStream() : captureRaw(), t0);
}

Frame AdbDevice::captureCurrent() {
    const long raws = counts_.raw;
    const double begun = monotonicSeconds();
    Frame f = capture();
    // Without the stream, or when capture() took a raw frame itself (the first, a stale check;
    // not one taken beside a dump before the call): f was taken after the call began.
    if (!stream_ || (counts_.raw != raws && f.monotonic >= begun)) return f;
    const double t0 = monotonicSeconds();
    Frame raw = captureRaw();
    if (!otherScreen(raw.bgr, f.bgr)) return f;
    // The stream is behind the screen: the raw frame is the screen until a newer picture comes
    // (as capture()'s own stale check does).
    ++counts_.stale;
    current_ = raw;
    current_at_ = raw.monotonic;
    raw_until_ = current_at_ + kBuffered;
    recheck_at_ = 0;
    return finishCapture(std::move(raw), t0);
}

Frame AdbDevice::finishCapture(Frame f, double t0) {
    if (f.width() != info_.size.w || f.height() != info_.size.h) {
        readInfo();
        if (stream_) startStream();  // a rotation: the stream's size changed
    }
    f.scale = scaleFactor();
    const double took = monotonicSeconds() - t0;
    capture_s_ = capture_s_ > 0 ? 0.7 * capture_s_ + 0.3 * took : took;
    const uint64_t picture = f.monotonic > 0 ? static_cast<uint64_t>(f.monotonic * 1e6) : 0;
    if (picture == marked_ && mark_.frame > 0) {
        mark_.inputs = inputs_;  // the same picture again: its hash and black note hold
        return f;
    }
    marked_ = picture;
    cv::Mat px = f.bgr.isContinuous() ? f.bgr : f.bgr.clone();
    mark_ = {mark_.frame + 1,
             std::hash<std::string_view>{}(std::string_view(reinterpret_cast<const char*>(px.data), px.total() * px.elemSize())),
             inputs_};
    cv::Mat gray;
    cv::cvtColor(f.bgr, gray, cv::COLOR_BGR2GRAY);
    double mx = 0;
    cv::minMaxLoc(gray, nullptr, &mx);
    black_note_ = mx < 8 ? "adb " + client_.serial() +
                               ": the screen captured all black: a window with FLAG_SECURE (a password or payment "
                               "screen) captures black while its element tree still reads; use tree targets there"
                         : "";
    return f;
}

Frame AdbDevice::capturePng() const {
    const std::string png = client_.exec("screencap -p", 30);
    Frame f;
    try {
        f.bgr = decodeImage(std::vector<unsigned char>(png.begin(), png.end()), cv::IMREAD_COLOR);
    } catch (const std::exception& e) {
        throw DeviceError("adb " + client_.serial() + ": screencap gave no image (" + e.what() + ")");
    }
    f.timestamp = wallSeconds();
    f.monotonic = monotonicSeconds();
    return f;
}

double AdbDevice::liveInterval() const {
    std::shared_ptr<const AdbScreenStream> s = stream();
    return s && s->working() ? 1.0 / 30 : 0.1;
}

Frame AdbDevice::captureLive() {
    if (std::shared_ptr<AdbScreenStream> stream = std::const_pointer_cast<AdbScreenStream>(this->stream());
        stream && stream->working()) {
        const StreamShot s = stream->waitNewer(live_seen_, monotonicSeconds() + 0.5);
        if (s.number > 0) {
            live_seen_ = s.number;
            Frame f = s.frame;
            f.bgr = s.frame.bgr.clone();  // the live view draws the pointer on it
            f.scale = 1;
            return f;
        }
    }
    const double raw = live_raw_s_, png = live_png_s_;
    const bool use_raw = raw >= 0 && (raw == 0 || (png > 0 && raw <= png));
    const double t0 = monotonicSeconds();
    auto mean = [](std::atomic<double>& m, double took) { m = m > 0 ? 0.7 * m + 0.3 * took : took; };
    if (use_raw) {
        Frame f = decodeRawScreencap(client_.exec("screencap", 20));
        if (!f.empty()) {
            mean(live_raw_s_, monotonicSeconds() - t0);
            f.timestamp = wallSeconds();
            f.monotonic = monotonicSeconds();
            return f;
        }
        live_raw_s_ = -1;  // a pixel format raw frames cannot be read in: PNG from now on
    }
    Frame f = capturePng();
    mean(live_png_s_, monotonicSeconds() - t0);
    return f;
}

}  // namespace eacu
