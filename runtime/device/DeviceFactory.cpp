#include "device/DeviceFactory.h"

#include <cctype>
#include <cstdlib>
#include <stdexcept>

#include "device/adb/AdbDevice.h"
#include "device/agent/AgentDevice.h"
#include "device/atspi/AtspiAccessibility.h"
#include "device/chromium/ChromiumDevice.h"
#include "device/image/ImageDevice.h"
#include "device/x11/X11Device.h"

namespace eacu {

namespace {

constexpr const char* kExpected =
    "expected :N, virtual[:WxH], image:PATH, chromium[:WxH[@S]], cdp:http://HOST:PORT, adb[:SERIAL] or agent:HOST:PORT";

bool allDigits(const std::string& s) {
    if (s.empty()) return false;
    for (char c : s)
        if (!std::isdigit(static_cast<unsigned char>(c))) return false;
    return true;
}

// "[host]:N[.S]": an X display name (host: letters, digits, '.', '-', '_', '/').
bool isXDisplayName(const std::string& s) {
    size_t colon = s.rfind(':');
    if (colon == std::string::npos) return false;
    for (size_t i = 0; i < colon; ++i) {
        char c = s[i];
        if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '-' && c != '_' && c != '/')
            return false;
    }
    std::string rest = s.substr(colon + 1);
    size_t dot = rest.find('.');
    if (dot == std::string::npos) return allDigits(rest);
    return allDigits(rest.substr(0, dot)) && allDigits(rest.substr(dot + 1));
}

// "WxH" with W, H >= 64.
Size parseSize(const std::string& text, const std::string& spec, const char* form = "virtual:WxH") {
    size_t x = text.find('x');
    std::string w = x == std::string::npos ? "" : text.substr(0, x);
    std::string h = x == std::string::npos ? "" : text.substr(x + 1);
    if (allDigits(w) && allDigits(h) && w.size() <= 5 && h.size() <= 5) {
        Size s{std::stoi(w), std::stoi(h)};
        if (s.w >= 64 && s.h >= 64) return s;
    }
    throw std::invalid_argument("device \"" + spec + "\": " + form + " expects a size like 1280x800 "
                                "(each side at least 64 pixels), got \"" + text + "\"");
}

// "WxH" or "WxH@S" (S in [0.5, 4]) into d.size and d.scale.
void parseMetrics(const std::string& text, const std::string& spec, const char* form, DeviceSpec& d) {
    size_t at = text.find('@');
    d.size = parseSize(text.substr(0, at), spec, form);
    if (at == std::string::npos) return;
    std::string s = text.substr(at + 1);
    size_t end = 0;
    double v = 0;
    try {
        v = std::stod(s, &end);
    } catch (const std::exception&) {
        end = 0;
    }
    if (end == 0 || end != s.size() || !(v >= 0.5 && v <= 4))
        throw std::invalid_argument("device \"" + spec + "\": the scale after @ expects a device scale factor in "
                                    "[0.5, 4] (e.g. @2), got \"" + s + "\"");
    d.scale = v;
}

}  // namespace

DeviceSpec parseDeviceSpec(const std::string& spec) {
    DeviceSpec d;
    if (spec.empty()) return d;  // $DISPLAY
    if (spec.rfind("image:", 0) == 0) {
        d.kind = DeviceSpec::Kind::Image;
        d.image = spec.substr(6);
        if (d.image.empty())
            throw std::invalid_argument("device \"image:\": expected image:PATH with the path of a PNG "
                                        "or JPEG screenshot, got no path");
        return d;
    }
    if (spec == "virtual" || spec.rfind("virtual:", 0) == 0) {
        d.kind = DeviceSpec::Kind::Virtual;
        if (spec.size() > 8) d.size = parseSize(spec.substr(8), spec);
        else if (spec.size() == 8) d.size = parseSize("", spec);
        return d;
    }
    if (spec == "chromium" || spec.rfind("chromium:", 0) == 0) {
        d.kind = DeviceSpec::Kind::Chromium;
        if (spec.size() > 8) parseMetrics(spec.substr(9), spec, "chromium:WxH[@S]", d);
        return d;
    }
    if (spec.rfind("cdp:", 0) == 0) {
        d.kind = DeviceSpec::Kind::Cdp;
        std::string url = spec.substr(4);
        size_t hash = url.find('#');
        if (hash != std::string::npos) {
            parseMetrics(url.substr(hash + 1), spec, "cdp:URL#WxH[@S]", d);
            url = url.substr(0, hash);
        }
        size_t colon = url.rfind(':');
        if (url.rfind("http://", 0) != 0 || colon < 7 || colon + 1 >= url.size())
            throw std::invalid_argument("device \"" + spec + "\": expected cdp:http://HOST:PORT (a Chromium's "
                                        "--remote-debugging-port endpoint), got \"" + url + "\"");
        d.endpoint = url;
        return d;
    }
    if (spec == "adb" || spec.rfind("adb:", 0) == 0) {
        d.kind = DeviceSpec::Kind::Adb;
        if (spec.size() > 3) d.serial = spec.substr(4);
        if (spec.size() > 3 && d.serial.empty())
            throw std::invalid_argument("device \"adb:\": expected adb:SERIAL with a serial as `eacu devices` "
                                        "lists it, got no serial");
        return d;
    }
    if (spec.rfind("agent:", 0) == 0) {
        d.kind = DeviceSpec::Kind::Agent;
        d.endpoint = spec.substr(6);
        size_t colon = d.endpoint.rfind(':');
        std::string port = colon == std::string::npos ? "" : d.endpoint.substr(colon + 1);
        if (colon == 0 || colon == std::string::npos || !allDigits(port) || port.size() > 5 || std::stoi(port) < 1 ||
            std::stoi(port) > 65535)
            throw std::invalid_argument("device \"" + spec + "\": expected agent:HOST:PORT (where eacu-agent.exe "
                                        "listens, e.g. agent:127.0.0.1:7878), got \"" + d.endpoint + "\"");
        return d;
    }
    if (isXDisplayName(spec)) {
        d.display = spec;
        return d;
    }
    throw std::invalid_argument(std::string("device: ") + kExpected + ", got \"" + spec + "\"");
}

std::string specForRecordedDevice(const std::string& d) {
    auto metricsAfter = [&](size_t pos) {
        size_t end = d.find(' ', pos);
        return d.substr(pos, end == std::string::npos ? std::string::npos : end - pos);
    };
    if (d.rfind("agent ", 0) == 0) return "agent:" + metricsAfter(6);
    const std::string chromium = "chromium headless ";
    if (d.rfind(chromium, 0) == 0) return "chromium:" + metricsAfter(chromium.size());
    if (d.rfind("cdp ", 0) == 0) {
        size_t page = d.find(" page ");
        if (page == std::string::npos) return "";
        return "cdp:" + d.substr(4, page - 4) + "#" + metricsAfter(page + 6);
    }
    if (d.rfind("adb ", 0) == 0) return "adb:" + metricsAfter(4);
    return "";
}

DeviceHandle openDevice(const std::string& spec, const std::string& wm) {
    DeviceSpec s = parseDeviceSpec(spec);
    if (!wm.empty() && wm != "none" && s.kind != DeviceSpec::Kind::Virtual)
        throw std::invalid_argument("window manager \"" + wm + "\": expected a virtual display (eacu "
                                    "starts it only on its own Xvfb, --display virtual), got device \"" +
                                    spec + "\"");
    DeviceHandle h;
    switch (s.kind) {
    case DeviceSpec::Kind::Image:
        h.device = std::make_unique<ImageDevice>(s.image);
        return h;
    case DeviceSpec::Kind::Chromium:
        h.device = ChromiumDevice::launch(PageMetrics{s.size, s.scale});
        return h;
    case DeviceSpec::Kind::Cdp:
        h.device = ChromiumDevice::attach(s.endpoint, PageMetrics{s.size, s.scale});
        return h;
    case DeviceSpec::Kind::Adb:
        h.device = AdbDevice::open(s.serial);
        return h;
    case DeviceSpec::Kind::Agent: {
        size_t colon = s.endpoint.rfind(':');
        std::string host = s.endpoint.substr(0, colon);
        if (host.size() > 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
        const char* token = std::getenv("EACU_AGENT_TOKEN");
        h.device = AgentDevice::connect(host, std::stoi(s.endpoint.substr(colon + 1)), token ? token : "");
        return h;
    }
    case DeviceSpec::Kind::Virtual:
        h.virtual_display = VirtualDisplay::start(s.size.w, s.size.h);
        s.display = h.virtual_display->name();
        h.virtual_display->startWindowManager(wm);
        h.virtual_display->startSessionBus();
        break;
    case DeviceSpec::Kind::X11:
        if (s.display.empty()) {
            const char* env = std::getenv("DISPLAY");
            if (!env || !*env)
                throw std::runtime_error(std::string("no display: $DISPLAY is not set (") + kExpected +
                                         "; \"virtual\" starts a private Xvfb)");
            s.display = env;
        }
        break;
    }
    auto x11 = std::make_unique<X11Device>(s.display);
    h.display = x11->displayName();
    h.env["DISPLAY"] = h.display;
    if (h.virtual_display) {
        const SessionBus& bus = *h.virtual_display->sessionBus();
        x11->setAccessibility(std::make_unique<AtspiAccessibility>(bus.a11yAddress(), h.display));
        for (const auto& [k, v] : bus.environment()) h.env[k] = v;
    }
    h.device = std::move(x11);
    return h;
}

}  // namespace eacu
