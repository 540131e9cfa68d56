// open_url and current_url: the recorded steps on a device that shows a web page
// (device/Navigator.h: the chromium and cdp: devices), under the run's domain policy.
#pragma once
#include <string>

namespace eacu {

class Device;
class Session;

/// Opens `url` in the device's page and waits up to `timeout` seconds for it to load, as a
/// recorded "open_url" step (method "cdp", params {url, loaded}, the frame after). The URL is
/// checked first (checkUrlAllowed: a refusal is a StepError "refused" before any request).
/// On a device with apps and no page (Android, device/AppControl.h) the system opens it with
/// the app it chooses (method "adb", no load wait).
/// Throws StepError "invalid" on a device without a page (an X11 screen: use the browser app
/// module there), "device" when the browser fails to load it, "limit"/"timeout" at the run's
/// limits.
void openUrl(Session& session, const std::string& url, double timeout);

/// The page's current URL, recorded as a "current_url" step (params {url}). Throws StepError
/// "invalid" on a device without a page, "device" when the browser is gone.
std::string currentUrl(Session& session);

/// Installs the domain policy (domainPolicyFromEnv, urlRefusal) on a device that shows a web
/// page, so the page's own navigations (links, scripts, redirects) pass it too; nothing on
/// other devices.
void installNavigationPolicy(Device& device);

/// Reports the navigations the page started itself that the policy stopped since the last
/// check: records one failed "open_url" step (method "policy") and throws StepError "refused"
/// ("navigation to URL started by the page: refused: the domain ... is blocked by
/// EACU_BLOCK_DOMAINS (...)"). Nothing when there were none or the device shows no page.
void reportRefusedNavigations(Session& session);

}  // namespace eacu
