// What a device that shows web pages adds to the Device interface: opening a URL, reading the
// page's URL, and a policy that every navigation passes, the page's own ones included.
#pragma once
#include <functional>
#include <string>
#include <vector>

namespace eacu {

/// A web page a device drives (ChromiumDevice). Methods throw DeviceError when the browser is
/// gone or refuses.
class Navigator {
public:
    /// Why a navigation to a URL may not happen ("" when it may).
    using Policy = std::function<std::string(const std::string& url)>;

    virtual ~Navigator() = default;
    /// Loads `url` in the page and waits up to `timeout` seconds for its load event. Throws
    /// DeviceError when the browser reports an error (e.g. "net::ERR_NAME_NOT_RESOLVED"), when the
    /// policy refuses it, or when the load does not finish in time.
    virtual void navigate(const std::string& url, double timeout) = 0;
    /// The page's current URL (the main frame's).
    virtual std::string currentUrl() = 0;
    /// Sets the policy every top-level or frame navigation of the page is checked against before
    /// any request is sent; a refused one is stopped (the request fails as blocked by the client)
    /// and kept for takeRefusals(). An empty function allows all.
    virtual void setPolicy(Policy policy) = 0;
    /// The navigations the page started itself that the policy stopped since the last call, each
    /// as "URL: reason"; clears the list.
    virtual std::vector<std::string> takeRefusals() = 0;
};

}  // namespace eacu
