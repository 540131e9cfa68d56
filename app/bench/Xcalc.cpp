#include "bench/Xcalc.h"

namespace eacu {

TargetSpec xcalcTarget(const std::string& name) {
    TargetSpec t;
    t.image = "calculator." + name;
    t.label = "\"" + name + "\"";
    return t;
}

std::unique_ptr<XcalcBench> startXcalc(const std::string& display) {
    auto b = std::make_unique<XcalcBench>();
    b->dev = openDevice(display.empty() ? "virtual" : display);
    b->assets = AssetLibrary::loadFrom(eacuHome());
    SessionOptions so;
    so.limits = {};  // a benchmark may take more actions and time than a run's defaults
    so.display = b->dev.display;
    b->session = std::make_unique<Session>(*b->dev.device, b->assets, b->locator, nullptr, 0, so);
    b->session->launch({"xcalc"});
    b->session->wait(xcalcTarget("btn_clear"), 10);
    return b;
}

}  // namespace eacu
