// launch_app, stop_app and current_app: recorded steps on a device with installed apps
// (device/AppControl.h: the adb device).
#pragma once
#include <string>

namespace eacu {

class AppControl;
class Session;

/// The session device's apps, or nullptr when it has none (an X11 screen, an image, a page).
AppControl* appsOf(Session& session);

/// Starts the app `package` as a recorded "launch_app" step (target the package, method "adb",
/// the frame after). Throws StepError "invalid" on a device without apps, "device" when the
/// device refuses (an unknown package) or is gone, "limit"/"timeout" at the run's limits.
/// `idx`: the step's index when it is given (a replay), else the next.
void launchApp(Session& session, const std::string& package, int idx = 0);
/// Stops the app `package` as a recorded "stop_app" step. Throws like launchApp.
void stopApp(Session& session, const std::string& package, int idx = 0);
/// The app in front ("package/activity"; "" when none) as a recorded "current_app" step.
/// Throws StepError "invalid" on a device without apps, "device" when it is gone.
std::string currentApp(Session& session);

}  // namespace eacu
