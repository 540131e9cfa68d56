// A Device for unit tests that does nothing: a 64x48 grey screen at scale 1, the pointer kept,
// every input accepted and dropped. A test derives from it and overrides what it watches
// (capture, click, scroll, accessibility ...).
#pragma once
#include <opencv2/core.hpp>
#include <string>
#include <vector>

#include "base/Clock.h"
#include "device/Device.h"

namespace eacu {

class NullDevice : public Device {
public:
    std::string describe() const override { return "null"; }
    Size screenSize() const override { return {64, 48}; }
    double scaleFactor() const override { return 1.0; }
    /// A frame of screenSize() in one grey, stamped now.
    Frame capture() override {
        const Size s = screenSize();
        return stamped(cv::Mat(s.h, s.w, CV_8UC3, cv::Scalar(90, 90, 90)));
    }
    void move(Point p) override { cursor_ = p; }
    Point cursor() const override { return cursor_; }
    void click(MouseButton, int) override {}
    void press(MouseButton) override {}
    void release(MouseButton) override {}
    void scroll(int, int) override {}
    void typeText(const std::string&) override {}
    void keyCombo(const std::vector<Key>&) override {}
    void checkKeys(const std::vector<Key>&) const override {}
    void keyDown(const Key&) override {}
    void keyUp(const Key&) override {}
    void sync() override {}

protected:
    /// `bgr` as a frame taken now (wall and monotonic clocks).
    static Frame stamped(cv::Mat bgr) {
        Frame f;
        f.bgr = std::move(bgr);
        f.timestamp = wallSeconds();
        f.monotonic = monotonicSeconds();
        return f;
    }
    Point cursor_{0, 0};
};

}  // namespace eacu
