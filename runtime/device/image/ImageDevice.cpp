#include "device/image/ImageDevice.h"

#include "base/Utf8.h"

#include <opencv2/imgcodecs.hpp>
#include <stdexcept>

namespace eacu {

namespace {

// The key as event text; a platform key name is refused (this device has no platform).
std::string checkedKey(const Key& key) {
    if (key.kind == Key::Kind::Platform)
        throw std::invalid_argument("unknown key \"" + key.platform_name +
                          "\" (expected a key name such as ctrl, shift, Return, F5 or one character; "
                          "the image device knows no platform key names)");
    return describeKey(key);
}

}  // namespace

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
    events_.push_back("click " + std::to_string(buttonNumber(b)) + " x" + std::to_string(count) + " at " +
                      std::to_string(cursor_.x) + "," + std::to_string(cursor_.y));
}
void ImageDevice::press(MouseButton b) { events_.push_back("press " + std::to_string(buttonNumber(b))); }
void ImageDevice::release(MouseButton b) { events_.push_back("release " + std::to_string(buttonNumber(b))); }
void ImageDevice::scroll(int dx, int dy) {
    events_.push_back("scroll " + std::to_string(dx) + "," + std::to_string(dy));
}
void ImageDevice::typeText(const std::string& utf8) {
    decodeUtf8(utf8);  // same validation as a real device
    events_.push_back("type " + utf8);
}
void ImageDevice::checkKeys(const std::vector<Key>& keys) const {
    for (const Key& k : keys) checkedKey(k);
}
void ImageDevice::keyCombo(const std::vector<Key>& keys) {
    std::string s = "key";
    for (const Key& k : keys) s += " " + checkedKey(k);  // every key is checked before the event
    events_.push_back(s);
}
void ImageDevice::keyDown(const Key& k) { events_.push_back("keydown " + checkedKey(k)); }
void ImageDevice::keyUp(const Key& k) { events_.push_back("keyup " + checkedKey(k)); }

}  // namespace eacu
