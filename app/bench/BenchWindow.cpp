#include "bench/BenchWindow.h"

#include <cstdio>
#include <stdexcept>
#include <vector>

#include "base/Clock.h"
#include "bench/Corpus.h"
#include "bench/Xcalc.h"

namespace eacu {
namespace {

void printRow(const char* what, const std::vector<double>& v) {
    Percentiles p = percentiles(v);
    double sum = 0;
    for (double x : v) sum += x;
    std::printf("  %-38s median %7.2f ms   p90 %7.2f ms   mean %7.2f ms\n", what, p.median, p.p90,
                v.empty() ? 0.0 : sum / double(v.size()));
}

}  // namespace

int benchWindow(const std::string& display, int n) {
    std::unique_ptr<XcalcBench> bench = startXcalc(display);
    Session& session = *bench->session;
    Device& device = *bench->dev.device;
    Windows& windows = device.windows();
    std::optional<WindowInfo> calc;
    for (const WindowInfo& w : windows.list())
        if (w.cls == "XCalc") calc = w;
    if (!calc) throw std::runtime_error("xcalc's window is not listed");
    Size size = device.screenSize();
    std::printf("eacu bench window: xcalc's window %dx%d against the screen %dx%d, %d times, %s\n", calc->w,
                calc->h, size.w, size.h, n, device.describe().c_str());

    double t0 = monotonicSeconds();
    WindowCapture first = windows.capture(calc->id);
    double first_ms = (monotonicSeconds() - t0) * 1000;
    std::vector<double> window_capture, screen_capture, window_locate, screen_locate, send;
    TargetSpec one = xcalcTarget("btn_1");
    TargetSpec one_in_window = one;
    one_in_window.window = calc->id;
    for (int i = 0; i < n; ++i) {
        double a = monotonicSeconds();
        WindowCapture wc = windows.capture(calc->id);
        double b = monotonicSeconds();
        Frame f = device.capture();
        double c = monotonicSeconds();
        window_capture.push_back((b - a) * 1000);
        screen_capture.push_back((c - b) * 1000);
        c = monotonicSeconds();
        Match mw = session.locate(one_in_window);
        double d = monotonicSeconds();
        Match ms = session.locate(one);
        double e = monotonicSeconds();
        if (!mw.found) {
            std::fprintf(stderr, "eacu bench window: the \"1\" key was not found in xcalc's window\n");
            return 1;
        }
        window_locate.push_back((d - c) * 1000);
        screen_locate.push_back((e - d) * 1000);
        double g = monotonicSeconds();
        windows.sendClick(calc->id, mw.target, MouseButton::Left, 1);
        device.sync();
        send.push_back((monotonicSeconds() - g) * 1000);
        if (i % 10 == 9) windows.sendClick(calc->id, session.locate(xcalcTarget("btn_clear")).target, MouseButton::Left, 1);
    }
    std::printf("  %-38s %7.2f ms (redirect + the program's redraw)\n", "first window capture", first_ms);
    printRow("window capture (XComposite)", window_capture);
    printRow("screen capture (MIT-SHM)", screen_capture);
    printRow("locate in the window (capture+match)", window_locate);
    printRow("locate on the screen (capture+match)", screen_locate);
    printRow("click sent as events (XSendEvent)", send);
    return 0;
}

}  // namespace eacu
