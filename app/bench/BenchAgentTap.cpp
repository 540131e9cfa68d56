#include "bench/BenchAgentTap.h"

#include <cstdio>
#include <filesystem>
#include <functional>
#include <optional>
#include <stdexcept>
#include <unistd.h>
#include <vector>

#include <opencv2/imgcodecs.hpp>

#include "Cli.h"
#include "assets/AssetLibrary.h"
#include "base/Clock.h"
#include "bench/Corpus.h"
#include "device/DeviceFactory.h"
#include "step/Session.h"
#include "vision/Locator.h"

namespace fs = std::filesystem;

namespace eacu {
namespace {

struct TapTimes {
    std::vector<double> capture, locate, input, tap;
};

void printAgentRow(const char* device, const char* what, const std::vector<double>& v) {
    Percentiles p = percentiles(v);
    double sum = 0;
    for (double x : v) sum += x;
    std::printf("  %-6s %-24s median %7.2f ms   p90 %7.2f ms   mean %7.2f ms\n", device, what, p.median, p.p90,
                v.empty() ? 0.0 : sum / double(v.size()));
}

// The first element with role "label" and a non-empty box, depth first.
std::optional<A11yElement> firstLabel(const A11yElement& e) {
    if (e.role == "label" && e.bounds.w > 0 && e.bounds.h > 0) return e;
    for (const A11yElement& c : e.children)
        if (auto f = firstLabel(c)) return f;
    return std::nullopt;
}

void tapOnce(Device& device, Session& session, const TargetSpec& target, const char* name, TapTimes& t) {
    double t0 = monotonicSeconds();
    Frame f = device.capture();
    double t1 = monotonicSeconds();
    Match m = session.locate(target);
    double t2 = monotonicSeconds();
    if (!m.found)
        throw std::runtime_error(std::string("the label's image was not found on the ") + name + " device (best score " +
                                 std::to_string(m.score) + ")");
    device.move(m.target);
    device.click(MouseButton::Left, 1);
    device.sync();
    double t3 = monotonicSeconds();
    t.capture.push_back((t1 - t0) * 1000);
    t.locate.push_back((t2 - t1) * 1000);
    t.input.push_back((t3 - t2) * 1000);
    t.tap.push_back((t3 - t1) * 1000);  // the locate captures its own frame, as a tap does
}

}  // namespace

int benchAgentTap(const std::string& agent_spec, const std::string& x11_display, int n) {
    if (parseDeviceSpec(agent_spec).kind != DeviceSpec::Kind::Agent)
        throw std::invalid_argument("eacu bench agent: expected --device agent:HOST:PORT, got \"" + agent_spec + "\"");
    if (x11_display.empty() || x11_display[0] != ':')
        throw std::invalid_argument("eacu bench agent: expected --x11 :N (the X display showing the agent's screen), got \"" +
                                    x11_display + "\"");
    DeviceHandle agent = openDevice(agent_spec);
    DeviceHandle x11 = openDevice(x11_display);
    AssetLibrary assets = AssetLibrary::loadFrom(eacuHome());
    Locator locator;
    SessionOptions so;
    so.limits = {};  // a benchmark may take more actions and time than a run's defaults
    Session on_agent(*agent.device, assets, locator, nullptr, 0, so);
    so.display = x11.display;
    Session on_x11(*x11.device, assets, locator, nullptr, 0, so);

    // The label's window may still be opening: looked for up to 10 s.
    std::optional<A11yElement> label;
    for (double deadline = monotonicSeconds() + 10; !(label = firstLabel(on_agent.a11ySnapshot()));) {
        if (monotonicSeconds() > deadline) break;
        on_agent.sleep(0.1);
    }
    if (!label)
        throw std::runtime_error("eacu bench agent: the agent's element tree has no label to tap within 10 s (show "
                                 "a window with a static text, e.g. eacu-test-form.exe)");
    on_agent.waitStable(10);
    Frame first = agent.device->capture();
    Rect b = label->bounds;
    cv::Rect r = cv::Rect(b.x - 4, b.y - 4, b.w + 8, b.h + 8) & cv::Rect(0, 0, first.width(), first.height());
    std::error_code ec;
    fs::path png = fs::temp_directory_path(ec) / ("eacu-bench-agent-" + std::to_string(getpid()) + ".png");
    if (!cv::imwrite(png.string(), first.bgr(r))) throw std::runtime_error("cannot write " + png.string());
    struct Cleanup {
        fs::path p;
        ~Cleanup() {
            std::error_code e;
            fs::remove(p, e);
        }
    } cleanup{png};
    TargetSpec target;
    target.image = png.string();
    target.label = "the label \"" + label->name + "\"";

    std::printf("eacu bench agent: %d rounds, a tap on %s (%dx%d) through each device\n  agent: %s\n  x11:   %s\n", n,
                target.label.c_str(), r.width, r.height, agent.device->describe().c_str(),
                x11.device->describe().c_str());
    TapTimes on_a, on_x;
    for (int i = 0; i < n; ++i) {
        // Apart by more than a double-click interval, so that taps in a row are single clicks.
        if (i) on_x11.sleep(0.6);
        tapOnce(*x11.device, on_x11, target, "X11", on_x);
        on_agent.sleep(0.6);
        tapOnce(*agent.device, on_agent, target, "agent", on_a);
    }
    printAgentRow("x11", "capture alone", on_x.capture);
    printAgentRow("x11", "locate (capture+match)", on_x.locate);
    printAgentRow("x11", "input (move+click+sync)", on_x.input);
    printAgentRow("x11", "tap = locate+input", on_x.tap);
    printAgentRow("agent", "capture alone", on_a.capture);
    printAgentRow("agent", "locate (capture+match)", on_a.locate);
    printAgentRow("agent", "input (move+click+sync)", on_a.input);
    printAgentRow("agent", "tap = locate+input", on_a.tap);
    double floor = percentiles(on_x.tap).median;
    std::printf("BENCH agent_tap_ms=%.2f x11_tap_ms=%.2f ratio=%.2f (agent / x11, medians of %d)\n",
                percentiles(on_a.tap).median, floor, floor > 0 ? percentiles(on_a.tap).median / floor : 0.0, n);
    return 0;
}

}  // namespace eacu
