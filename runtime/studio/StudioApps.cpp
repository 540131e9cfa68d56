// eacu studio: the app or window picker and the URL box (issue 37 item 2): what the device
// offers to open, and opening it as a line of the script.
#include "studio/Studio.h"

#include <algorithm>
#include <chrono>
#include <set>
#include <thread>

#include "device/AppControl.h"
#include "device/Navigator.h"
#include "recorder/TargetProof.h"
#include "server/ApiError.h"
#include "server/HttpFront.h"
#include "step/AppSteps.h"
#include "step/Navigation.h"
#include "step/StepError.h"

using nlohmann::json;

namespace eacu::studio {

using server::ApiError;

namespace {

// The Lua that finds window `w` again among `all` and fails clearly when it does not come:
// its class when no other window has it, else its class and title (the title alone when it has
// no class), looked for up to kWindowWait seconds (a replay reaches the line before a program
// it just started has mapped its window).
constexpr int kWindowWait = 10;
// How long a program started from the launch box is given to show its first window, in seconds.
constexpr double kLaunchWindowWait = 5;
std::string windowQuery(const WindowInfo& w, const std::vector<WindowInfo>& all) {
    const auto sameClass = std::count_if(all.begin(), all.end(), [&](const WindowInfo& o) { return o.cls == w.cls; });
    std::string q = "assert(window({";
    if (!w.cls.empty()) q += "class = " + luaQuote(w.cls);
    if (w.cls.empty() || sameClass > 1) q += std::string(w.cls.empty() ? "" : ", ") + "title = " + luaQuote(w.title);
    return q + "}, " + std::to_string(kWindowWait) + "))";
}

// A string field of the request, "" when it is absent (ApiError 400 when it is not a string).
std::string field(const json& request, const char* name) {
    return request.contains(name) ? server::stringField(request, name) : "";
}

}  // namespace

json Studio::places() {
    std::lock_guard<std::mutex> input(input_mu_);  // the session is used by one request at a time
    Device& d = session_.device();
    json j{{"device_kind", o_.device_kind}, {"launch", o_.device_kind == "x11" || dynamic_cast<AppControl*>(&d)}};
    try {
        if (Navigator* nav = d.navigator()) j["url"] = nav->currentUrl();
        if (o_.device_kind == "x11" || o_.device_kind == "agent") {
            json ws = json::array();
            for (const WindowInfo& w : session_.windows())
                ws.push_back({{"id", w.id}, {"title", w.title}, {"class", w.cls}, {"pid", w.pid}, {"focused", w.focused}});
            j["windows"] = std::move(ws);
        }
    } catch (const std::exception& e) {
        throw ApiError(409, std::string("the device did not say what it has open: ") + e.what());
    }
    return j;
}

json Studio::open(const json& request) {
    if (!request.is_object())
        throw ApiError(400, "expected {url}, {package}, {command} or {window}, got " + request.dump());
    const std::string url = field(request, "url"), package = field(request, "package"),
                      command = field(request, "command");
    const bool window = request.contains("window");
    if (int(!url.empty()) + int(!package.empty()) + int(!command.empty()) + int(window) != 1)
        throw ApiError(400, "expected exactly one of url, package, command or window, got " + request.dump());
    std::lock_guard<std::mutex> input(input_mu_);
    {
        std::lock_guard<std::mutex> lock(mu_);
        if (running_) throw ApiError(409, "the script is playing back: wait for it to end");
    }
    Device& d = session_.device();
    StudioLine l;
    history_.inputSent(monotonicSeconds());
    try {
        if (!url.empty()) {
            if (!d.navigator() && !dynamic_cast<AppControl*>(&d))
                throw ApiError(400, "this device shows no web page and has no apps to open a URL with: " + d.describe());
            openUrl(session_, url, 30);
            l.verb = "open_url";
            l.lua = "open_url(" + luaQuote(url) + ")";
        } else if (!package.empty()) {
            if (!appsOf(session_)) throw ApiError(400, "this device has no installed apps to launch: " + d.describe());
            launchApp(session_, package);
            l.verb = "launch";
            l.lua = "launch(" + luaQuote(package) + ")";
        } else if (!command.empty()) {
            if (o_.device_kind != "x11")
                throw ApiError(400, "a command is started only on an X11 display (here: " + d.describe() +
                                        "); on a device with apps, choose a package");
            // The program's first window, when it shows one within kLaunchWindowWait: the line
            // waits for it too, as the person did before acting on the screen again (a replay
            // that raised another window before this one mapped would see it covered).
            std::set<uint64_t> had;
            for (const WindowInfo& w : session_.windows()) had.insert(w.id);
            session_.launch({"/bin/sh", "-c", "exec " + command});
            std::optional<WindowInfo> shown;
            std::vector<WindowInfo> now;
            for (const double end = monotonicSeconds() + kLaunchWindowWait; !shown && monotonicSeconds() < end;) {
                now = session_.windows();
                for (const WindowInfo& w : now)
                    if (!had.count(w.id)) shown = w;
                if (!shown) std::this_thread::sleep_for(std::chrono::milliseconds(100));
            }
            l.verb = "launch";
            l.lua = "launch(" + luaQuote(command) + ")";
            if (shown) l.lua += "; " + windowQuery(*shown, now);
        } else {
            if (!request["window"].is_number_unsigned())
                throw ApiError(400, "expected \"window\" to be a window id from /api/studio/places, got " +
                                        request["window"].dump());
            const uint64_t id = request["window"].get<uint64_t>();
            const std::vector<WindowInfo> all = session_.windows();
            auto w = std::find_if(all.begin(), all.end(), [&](const WindowInfo& o) { return o.id == id; });
            if (w == all.end()) throw ApiError(404, "no window " + std::to_string(id) + " on " + d.describe());
            session_.windowOp("focus", id);
            l.verb = "window";
            l.lua = windowQuery(*w, all) + ":focus()";
        }
    } catch (const StepError& e) {
        throw ApiError(409, std::string("the device did not do it: ") + e.what());
    } catch (const DeviceError& e) {
        throw ApiError(409, std::string("the device did not do it: ") + e.what());
    }
    std::lock_guard<std::mutex> lock(mu_);
    l.id = next_id_++;
    l.at = monotonicSeconds();
    l.state = "proven";
    lines_.push_back(std::move(l));
    bump();
    return {{"line", lines_.back().id}, {"lua", lines_.back().lua}};
}

}  // namespace eacu::studio
