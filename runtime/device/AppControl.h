// What a device whose programs are installed apps adds to the Device interface: starting and
// stopping an app by its package, the app in front, and opening a URL with the system's handler.
#pragma once
#include <string>

namespace eacu {

/// The apps of a device (AdbDevice: Android packages). A Device that has them also derives from
/// AppControl (found with dynamic_cast). Methods throw DeviceError when the device refuses
/// (an unknown package: the message names it) or is gone.
class AppControl {
public:
    virtual ~AppControl() = default;
    /// Starts the launcher activity of `package` ("com.example.chat"), or brings it to the front.
    virtual void launchApp(const std::string& package) = 0;
    /// Stops every process of `package` (Android: am force-stop).
    virtual void stopApp(const std::string& package) = 0;
    /// The focused window's "package/activity" ("com.example.chat/.MainActivity"); "" when none.
    virtual std::string currentApp() = 0;
    /// Opens `url` with the app the system chooses for it (Android: an ACTION_VIEW intent).
    virtual void openUrl(const std::string& url) = 0;
};

}  // namespace eacu
