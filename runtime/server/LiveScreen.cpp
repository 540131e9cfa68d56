#include "server/LiveScreen.h"

#include <chrono>
#include <cstring>

#include <opencv2/imgcodecs.hpp>

#include "base/Base64.h"
#include "base/Clock.h"
#include "device/DeviceFactory.h"
#include "vision/CursorMark.h"

namespace eacu::server {
namespace {

bool samePixels(const cv::Mat& a, const cv::Mat& b) {
    if (a.size() != b.size() || a.type() != b.type()) return false;
    for (int y = 0; y < a.rows; ++y)
        if (std::memcmp(a.ptr(y), b.ptr(y), a.cols * a.elemSize()) != 0) return false;
    return true;
}

}  // namespace

LiveFrame encodeLiveFrame(Frame f, Point cursor, int64_t task_id) {
    drawCursorMark(f.bgr, cursor);
    LiveFrame lf;
    lf.task_id = task_id;
    lf.width = f.width();
    lf.height = f.height();
    lf.cursor_x = cursor.x;
    lf.cursor_y = cursor.y;
    lf.time = wallSeconds();
    cv::imencode(".jpg", f.bgr, lf.jpeg, {cv::IMWRITE_JPEG_QUALITY, 75});
    lf.jpeg_base64 = base64Encode(std::string_view(reinterpret_cast<const char*>(lf.jpeg.data()), lf.jpeg.size()));
    return lf;
}

LiveFrame passLiveFrame(const std::vector<unsigned char>& jpeg, const std::string& base64, int width, int height,
                        Point cursor, int64_t task_id) {
    LiveFrame lf;
    lf.task_id = task_id;
    lf.width = width;
    lf.height = height;
    lf.cursor_x = cursor.x;
    lf.cursor_y = cursor.y;
    lf.time = wallSeconds();
    lf.jpeg = jpeg;
    lf.jpeg_base64 = base64;
    lf.marked = false;
    return lf;
}

LiveScreen::LiveScreen(int64_t task_id, std::string display, std::function<void(LiveFrame)> publish, double interval)
    : task_id_(task_id), publish_(std::move(publish)), display_(std::move(display)), interval_(interval) {
    thread_ = std::thread([this] { loop(); });
}

LiveScreen::LiveScreen(int64_t task_id, Device& device, std::function<void(LiveFrame)> publish, double interval)
    : task_id_(task_id), publish_(std::move(publish)), device_(&device), interval_(interval) {
    thread_ = std::thread([this] { loop(); });
}

LiveScreen::~LiveScreen() { stop(); }

void LiveScreen::stop() {
    {
        std::lock_guard<std::mutex> lock(mu_);
        stop_ = true;
    }
    cv_.notify_all();
    if (thread_.joinable()) thread_.join();
}

void LiveScreen::loop() {
    try {
        if (device_) {
            loopOn(*device_);
        } else {
            DeviceHandle h = openDevice(display_);
            loopOn(*h.device);
        }
    } catch (const std::exception&) {
        // The display or device went away (the task ended, Xvfb died): the task reports its own end.
    }
}

void LiveScreen::loopOn(Device& device) {
    cv::Mat last;
    Point last_cursor{-1, -1};
    uint64_t last_seq = 0;  // the device's encoded frame passed on last
    while (!stop_) {
        const double t0 = monotonicSeconds();
        Frame f;
        Point cursor;
        try {
            {
                // A frame the device encoded itself (a chromium page's screencast JPEG, sent
                // when the page drew something new): passed on as it is.
                Device::EncodedLiveFrame j = device.liveEncoded();
                if (j.jpeg) {
                    cursor = device.cursor();
                    ++captured_;
                    if (j.seq != last_seq || cursor.x != last_cursor.x || cursor.y != last_cursor.y) {
                        last_seq = j.seq;
                        last_cursor = cursor;
                        last.release();
                        const Size s = device.screenSize();
                        publish_(passLiveFrame(*j.jpeg, *j.base64, s.w, s.h, cursor, task_id_));
                        ++published_;
                    }
                    const double rest = interval_ - (monotonicSeconds() - t0);
                    std::unique_lock<std::mutex> lock(mu_);
                    if (rest > 0) cv_.wait_for(lock, std::chrono::duration<double>(rest), [&] { return stop_.load(); });
                    continue;
                }
                last_seq = 0;
            }
            f = device.captureLive();
            cursor = device.cursor();
        } catch (const std::exception&) {
            // A page between two documents (a navigation) answers no screenshot for a moment;
            // a display that went away fails each time until stop() (the task reports its end).
            std::unique_lock<std::mutex> lock(mu_);
            cv_.wait_for(lock, std::chrono::duration<double>(interval_), [&] { return stop_.load(); });
            continue;
        }
        ++captured_;
        if (!samePixels(f.bgr, last) || cursor.x != last_cursor.x || cursor.y != last_cursor.y) {
            last = f.bgr.clone();
            last_cursor = cursor;
            publish_(encodeLiveFrame(std::move(f), cursor, task_id_));
            ++published_;
        }
        const double rest = interval_ - (monotonicSeconds() - t0);
        std::unique_lock<std::mutex> lock(mu_);
        if (rest > 0) cv_.wait_for(lock, std::chrono::duration<double>(rest), [&] { return stop_.load(); });
    }
}

}  // namespace eacu::server
