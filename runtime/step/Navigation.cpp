#include "step/Navigation.h"

#include <nlohmann/json.hpp>

#include "base/Clock.h"
#include "device/AppControl.h"
#include "device/Device.h"
#include "step/AppSteps.h"
#include "step/DomainPolicy.h"
#include "step/Session.h"
#include "step/StepError.h"

namespace eacu {

namespace {

Navigator& pageOf(Session& s, const std::string& what) {
    Navigator* n = s.device().navigator();
    if (!n)
        throw StepError(failure::kInvalid,
                        what + ": this device (" + s.device().describe() + ") shows no web page; run with "
                        "--device chromium, --device cdp:http://HOST:PORT or --device adb, or on an X11 screen open the "
                        "browser app module (require(\"browser\").open(url))");
    return *n;
}

}  // namespace

void installNavigationPolicy(Device& device) {
    Navigator* n = device.navigator();
    if (!n) return;
    n->setPolicy([policy = domainPolicyFromEnv()](const std::string& url) { return urlRefusal(url, policy); });
}

void openUrl(Session& s, const std::string& url, double timeout) {
    AppControl* apps = s.device().navigator() ? nullptr : appsOf(s);
    if (apps) {
        // A device with apps (Android): the system opens the URL with the app it chooses.
        checkUrlAllowed(s, url);
        try {
            s.limits().beforeAction("open_url " + url);
        } catch (const LimitExceeded& e) {
            throw StepError(s.limits().timeUsedUp() ? failure::kTimeout : failure::kLimit, e.what());
        }
        StepRecord st = s.beginStep("open_url", url);
        st.method = "adb";
        st.params_json = nlohmann::json{{"url", url}}.dump();
        try {
            apps->openUrl(url);
            if (int64_t f = s.recordFrame(s.device().capture())) st.frame_after = f;
            s.commitStep(st);
            return;
        } catch (const DeviceError& e) {
            st.status = "failed";
            st.error = "open_url \"" + url + "\": " + e.what();
            int64_t id = s.commitStep(st);
            throw StepError(failure::kDevice, st.error, id, 0, url);
        }
    }
    Navigator& page = pageOf(s, "open_url \"" + url + "\"");
    checkUrlAllowed(s, url);
    try {
        s.limits().beforeAction("open_url " + url);
    } catch (const LimitExceeded& e) {
        throw StepError(s.limits().timeUsedUp() ? failure::kTimeout : failure::kLimit, e.what());
    }
    StepRecord st = s.beginStep("open_url", url);
    st.method = "cdp";
    nlohmann::json params{{"url", url}};
    const double t0 = monotonicSeconds();
    try {
        page.navigate(url, timeout);
        st.action_ms = (monotonicSeconds() - t0) * 1000;
        params["loaded"] = page.currentUrl();
        if (int64_t f = s.recordFrame(s.device().capture())) st.frame_after = f;
        st.params_json = params.dump();
        s.commitStep(st);
    } catch (const DeviceError& e) {
        st.action_ms = (monotonicSeconds() - t0) * 1000;
        st.status = "failed";
        st.error = "open_url \"" + url + "\": " + e.what();
        st.params_json = params.dump();
        int64_t id = s.commitStep(st);
        throw StepError(failure::kDevice, st.error, id, 0, url);
    }
}

std::string currentUrl(Session& s) {
    Navigator& page = pageOf(s, "current_url");
    StepRecord st = s.beginStep("current_url", "");
    st.method = "cdp";
    try {
        std::string url = page.currentUrl();
        st.target = url;
        st.params_json = nlohmann::json{{"url", url}}.dump();
        s.commitStep(st);
        return url;
    } catch (const DeviceError& e) {
        st.status = "failed";
        st.error = std::string("current_url: ") + e.what();
        int64_t id = s.commitStep(st);
        throw StepError(failure::kDevice, st.error, id);
    }
}

void reportRefusedNavigations(Session& s) {
    Navigator* n = s.device().navigator();
    if (!n) return;
    std::vector<std::string> refused = n->takeRefusals();
    if (refused.empty()) return;
    // "URL: reason" of the first; the others are counted.
    const std::string& first = refused.front();
    size_t sep = first.find(": ");
    std::string url = first.substr(0, sep);
    StepRecord st = s.beginStep("open_url", url);
    st.method = "policy";
    st.status = "failed";
    st.error = "navigation to " + url + " started by the page: refused: " + first.substr(sep + 2);
    if (refused.size() > 1) st.error += " (and " + std::to_string(refused.size() - 1) + " more)";
    nlohmann::json all = nlohmann::json::array();
    for (const auto& r : refused) all.push_back(r);
    st.params_json = nlohmann::json{{"refused", all}}.dump();
    int64_t id = s.commitStep(st);
    throw StepError(failure::kRefused, st.error, id, 0, url);
}

}  // namespace eacu
