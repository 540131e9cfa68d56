// xcalc under a benchmark (bench tap, bench settle): one set-up for both.
#pragma once
#include <memory>
#include <string>

#include "Cli.h"
#include "assets/AssetLibrary.h"
#include "device/Device.h"
#include "device/DeviceFactory.h"
#include "step/Session.h"
#include "vision/Locator.h"

namespace eacu {

/// A display with xcalc on it and a Session without a run log or limits. Members are
/// destroyed in reverse order: the session before the device, xcalc's display last.
struct XcalcBench {
    DeviceHandle dev;
    AssetLibrary assets;
    Locator locator;
    std::unique_ptr<Session> session;
};

/// Opens `display` ("" = a private Xvfb), loads the assets from eacuHome(), starts xcalc and
/// waits up to 10 s for its AC key. Throws what openDevice, AssetLibrary::loadFrom and
/// Session::wait throw (the key not found: StepError).
std::unique_ptr<XcalcBench> startXcalc(const std::string& display);

/// The xcalc key or display digit `name` of the calculator assets ("btn_1" -> the image
/// "calculator.btn_1", labelled "btn_1" in messages).
TargetSpec xcalcTarget(const std::string& name);

}  // namespace eacu
