// A device over static screenshots: capture returns an image file, input is logged, not sent.
#pragma once
#include <string>
#include <vector>

#include "device/Device.h"

namespace eacu {

/// A Device whose screen is a fixed image (for offline work on saved screenshots and for tests
/// of locate on real screenshots). Input calls change nothing on screen; each is appended to
/// `events()` as text ("click 1 x1 at 10,20", "key Control t"; buttons by their run-log number),
/// so a script's intent can be checked offline. It knows eacu's key names and characters, not
/// platform key names (Key::Platform): those throw DeviceError("unknown key ...").
class ImageDevice : public Device {
public:
    /// Loads the screenshot at `path` (PNG/JPEG). `scale` is its device scale factor.
    /// Throws DeviceError when the file cannot be read as an image.
    explicit ImageDevice(const std::string& path, double scale = 1.0);

    std::string describe() const override;
    Size screenSize() const override;
    double scaleFactor() const override { return scale_; }
    Frame capture() override;
    void move(Point p) override;
    Point cursor() const override { return cursor_; }
    void click(MouseButton button, int count) override;
    void press(MouseButton button) override;
    void release(MouseButton button) override;
    void scroll(int dx, int dy) override;
    void typeText(const std::string& utf8) override;
    void keyCombo(const std::vector<Key>& keys) override;
    void checkKeys(const std::vector<Key>& keys) const override;
    void keyDown(const Key& key) override;
    void keyUp(const Key& key) override;
    void sync() override {}

    const std::vector<std::string>& events() const { return events_; }

private:
    std::string path_;
    cv::Mat image_;
    double scale_;
    Point cursor_;
    std::vector<std::string> events_;
};

}  // namespace eacu
