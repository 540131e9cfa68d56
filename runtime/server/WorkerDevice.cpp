#include "server/WorkerDevice.h"

#include <cstdio>
#include <stdexcept>

#include "device/DeviceFactory.h"
#include "device/chromium/ChromiumBrowser.h"
#include "device/chromium/OrphanPages.h"

namespace eacu::server {

namespace {

std::string metrics(const DeviceSpec& d) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%dx%d@%g", d.size.w, d.size.h, d.scale);
    return buf;
}

}  // namespace

WorkerDevice::WorkerDevice(const std::string& spec) {
    DeviceSpec d = parseDeviceSpec(spec);
    switch (d.kind) {
    case DeviceSpec::Kind::Chromium:
        browser_ = ChromiumBrowser::start(d.size);
        orphans_ = std::make_unique<OrphanPages>(browser_->webSocketUrl(), browser_->peer());
        run_spec_ = "cdp:" + browser_->endpoint() + "#" + metrics(d);
        kind_ = "chromium";
        shared_ = true;
        return;
    case DeviceSpec::Kind::Cdp:
        run_spec_ = spec;
        kind_ = "cdp";
        shared_ = true;
        return;
    case DeviceSpec::Kind::Adb:
        run_spec_ = spec;
        kind_ = "adb";
        return;
    case DeviceSpec::Kind::Agent:
        run_spec_ = spec;
        kind_ = "agent";
        return;
    default:
        throw std::invalid_argument("--device " + spec +
                                    ": expected chromium[:WxH[@S]], cdp:http://HOST:PORT, adb[:SERIAL] or "
                                    "agent:HOST:PORT (an X display is --display virtual[:WxH] or :N)");
    }
}

WorkerDevice::~WorkerDevice() = default;

void WorkerDevice::checkOptions(const std::string& spec, bool launch, const std::string& wm) {
    if (parseDeviceSpec(spec).kind == DeviceSpec::Kind::Image)
        throw std::invalid_argument("--device " + spec + ": expected virtual[:WxH], :N, chromium[:WxH[@S]], cdp:URL, "
                                    "adb[:SERIAL] or agent:HOST:PORT (tasks need a screen to act on)");
    if (launch) throw std::invalid_argument("--launch needs an X display (--display virtual or :N), got --device " + spec);
    if (!wm.empty() && wm != "none")
        throw std::invalid_argument("--wm " + wm + ": expected --display virtual, got --device " + spec);
}

}  // namespace eacu::server
