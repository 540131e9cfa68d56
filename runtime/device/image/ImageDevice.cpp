#include "device/image/ImageDevice.h"

#include "base/Utf8.h"

#include <opencv2/imgcodecs.hpp>

#include "device/KeyCombo.h"

namespace eacu {

ImageDevice::ImageDevice(const std::string& path, double scale) : path_(path), scale_(scale) {
    image_ = cv::imread(path, cv::IMREAD_COLOR);
    if (image_.empty())
        throw DeviceError("image device: cannot read screenshot \"" + path + "\" as PNG/JPEG");
}

std::string ImageDevice::describe() const {
    return "image " + path_ + " " + std::to_string(image_.cols) + "x" + std::to_string(image_.rows);
}

Size ImageDevice::screenSize() const { return {image_.cols, image_.rows}; }

Frame ImageDevice::capture() {
    Frame f;
    f.bgr = image_.clone();
    f.scale = scale_;
    f.timestamp = wallSeconds();
    f.monotonic = monotonicSeconds();
    return f;
}

void ImageDevice::move(Point p) {
    cursor_ = p;
    events_.push_back("move " + std::to_string(p.x) + "," + std::to_string(p.y));
}

void ImageDevice::click(MouseButton b, int count) {
    events_.push_back("click " + std::to_string(int(b)) + " x" + std::to_string(count) + " at " +
                      std::to_string(cursor_.x) + "," + std::to_string(cursor_.y));
}
void ImageDevice::press(MouseButton b) { events_.push_back("press " + std::to_string(int(b))); }
void ImageDevice::release(MouseButton b) { events_.push_back("release " + std::to_string(int(b))); }
void ImageDevice::scroll(int dx, int dy) {
    events_.push_back("scroll " + std::to_string(dx) + "," + std::to_string(dy));
}
void ImageDevice::typeText(const std::string& utf8) {
    decodeUtf8(utf8);  // same validation as a real device
    events_.push_back("type " + utf8);
}
void ImageDevice::keyCombo(const std::vector<uint32_t>& keysyms) {
    std::string s = "key";
    for (uint32_t k : keysyms) s += " " + std::to_string(k);
    events_.push_back(s);
}
void ImageDevice::keyDown(uint32_t k) { events_.push_back("keydown " + std::to_string(k)); }
void ImageDevice::keyUp(uint32_t k) { events_.push_back("keyup " + std::to_string(k)); }

}  // namespace eacu
