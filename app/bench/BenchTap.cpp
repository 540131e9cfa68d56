#include "bench/BenchTap.h"

#include <cstdio>
#include <stdexcept>
#include <vector>

#include "base/Clock.h"
#include "bench/Corpus.h"
#include "bench/Xcalc.h"

namespace eacu {
namespace {

void print(const char* what, const std::vector<double>& v) {
    Percentiles p = percentiles(v);
    double sum = 0;
    for (double x : v) sum += x;
    std::printf("  %-26s median %7.2f ms   p90 %7.2f ms   mean %7.2f ms\n", what, p.median, p.p90,
                v.empty() ? 0.0 : sum / double(v.size()));
}

}  // namespace

int benchTap(const std::string& display, int n) {
    std::unique_ptr<XcalcBench> bench = startXcalc(display);
    Session& session = *bench->session;
    Device& device = *bench->dev.device;
    Size size = device.screenSize();
    std::printf("eacu bench tap: %d taps on xcalc's \"1\" key, frame %dx%d, %s\n", n, size.w,
                size.h, device.describe().c_str());

    std::vector<double> capture, locate, inject, tap_total, settle;
    const TargetSpec clear = xcalcTarget("btn_clear"), one = xcalcTarget("btn_1");
    for (int i = 0; i < n; ++i) {
        double t0 = monotonicSeconds();
        Frame f = device.capture();
        double t1 = monotonicSeconds();
        // The session's locate: capture + the locator with the session's hints (last seen
        // place, expected scale), as a tap does.
        Match m = session.locate(one);
        double t2 = monotonicSeconds();
        if (!m.found) throw std::runtime_error("the \"1\" key was not found");
        device.move(m.target);
        device.click(MouseButton::Left, 1);
        device.sync();
        double t3 = monotonicSeconds();
        Settle s = session.waitSettled(f);
        capture.push_back((t1 - t0) * 1000);
        locate.push_back(m.ms);
        inject.push_back((t3 - t2) * 1000);
        tap_total.push_back((t3 - t1) * 1000);
        settle.push_back(s.ms);
        if (i % 10 == 9) session.tap(clear);  // keep the display from overflowing
    }
    print("capture (MIT-SHM)", capture);
    print("locate (locator only)", locate);
    print("inject (move+click+sync)", inject);
    print("tap = capture+locate+inject", tap_total);
    print("settle after the tap", settle);
    return 0;
}

}  // namespace eacu
