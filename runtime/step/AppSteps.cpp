#include "step/AppSteps.h"

#include <functional>

#include <nlohmann/json.hpp>

#include "base/Clock.h"
#include "device/AppControl.h"
#include "device/Device.h"
#include "step/Limits.h"
#include "step/Session.h"
#include "step/StepError.h"

namespace eacu {

namespace {

AppControl& need(Session& s, const std::string& what) {
    AppControl* a = appsOf(s);
    if (!a)
        throw StepError(failure::kInvalid, what + ": this device (" + s.device().describe() +
                                               ") has no installed apps; run with --device adb[:SERIAL] (an Android "
                                               "device), or start a program with launch(command)");
    return *a;
}

// One recorded step around `act`; `input` steps pass the run's action limit first.
std::string step(Session& s, const std::string& action, const std::string& target, bool input,
                 const std::function<std::string(AppControl&)>& act, int idx = 0) {
    AppControl& apps = need(s, action + (target.empty() ? "" : " \"" + target + "\""));
    if (input) {
        try {
            s.limits().beforeAction(action + " " + target);
        } catch (const LimitExceeded& e) {
            throw StepError(s.limits().timeUsedUp() ? failure::kTimeout : failure::kLimit, e.what());
        }
    }
    StepRecord st = s.beginStep(action, target, idx);
    st.method = "adb";
    const double t0 = monotonicSeconds();
    try {
        std::string out = act(apps);
        st.action_ms = (monotonicSeconds() - t0) * 1000;
        if (!out.empty()) st.params_json = nlohmann::json{{"app", out}}.dump();
        if (input)
            if (int64_t f = s.recordFrame(s.device().capture())) st.frame_after = f;
        s.commitStep(st);
        return out;
    } catch (const DeviceError& e) {
        st.action_ms = (monotonicSeconds() - t0) * 1000;
        st.status = "failed";
        st.error = action + (target.empty() ? "" : " \"" + target + "\"") + ": " + e.what();
        int64_t id = s.commitStep(st);
        throw StepError(failure::kDevice, st.error, id, 0, target);
    }
}

}  // namespace

AppControl* appsOf(Session& s) { return dynamic_cast<AppControl*>(&s.device()); }

void launchApp(Session& s, const std::string& package, int idx) {
    step(
        s, "launch_app", package, true,
        [&](AppControl& a) {
            a.launchApp(package);
            return std::string();
        },
        idx);
}

void stopApp(Session& s, const std::string& package, int idx) {
    step(
        s, "stop_app", package, true,
        [&](AppControl& a) {
            a.stopApp(package);
            return std::string();
        },
        idx);
}

std::string currentApp(Session& s) {
    return step(s, "current_app", "", false, [](AppControl& a) { return a.currentApp(); });
}

}  // namespace eacu
