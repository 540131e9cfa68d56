// eacu bench tap: how long a tap takes on a real program (capture + locate + inject), measured.
#include <algorithm>
#include <cstdio>
#include <vector>

#include "assets/AssetLibrary.h"
#include "bench/BenchLocate.h"
#include "bench/BenchOcr.h"
#include "bench/BenchSettle.h"
#include "Cli.h"
#include "device/Device.h"
#include "device/virtual/VirtualDisplay.h"
#include "process/Process.h"
#include "task/Session.h"
#include "vision/Locator.h"

namespace eacu {
namespace {

struct Stats {
    double median, p90, mean;
};

Stats stats(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    double sum = 0;
    for (double x : v) sum += x;
    return {v[v.size() / 2], v[std::min(v.size() - 1, v.size() * 9 / 10)], sum / double(v.size())};
}

void print(const char* what, const std::vector<double>& v) {
    Stats s = stats(v);
    std::printf("  %-26s median %7.2f ms   p90 %7.2f ms   mean %7.2f ms\n", what, s.median, s.p90, s.mean);
}

}  // namespace

int cmdBench(int argc, char** argv) {
    try {
        CliOptions o = parseCli(argc, argv, 2, {"--n", "--out", "--threshold", "--lang"}, {"--no-learn"});
        std::string what = o.positional.empty() ? "" : o.positional[0];
        if (what == "locate") {
            if (o.positional.size() != 2) {
                std::fprintf(stderr, "eacu bench locate: expected a CORPUS folder\n");
                return 2;
            }
            return benchLocate(o.positional[1], o.flag("--out").value_or(""), !o.flag("--no-learn"),
                               numberFlag("--threshold", o.flag("--threshold").value_or("0"), 0, 1, "[0, 1]"));
        }
        if (what == "ocr") {
            if (o.positional.size() != 2) {
                std::fprintf(stderr, "eacu bench ocr: expected a CORPUS folder\n");
                return 2;
            }
            return benchOcr(o.positional[1], o.flag("--out").value_or(""), o.flag("--lang").value_or("auto"));
        }
        if (what == "settle") return benchSettle(o.display);  // bench/BenchSettle.cpp
        if (what != "tap") {
            std::fprintf(stderr, "eacu bench: expected a benchmark: tap, locate, ocr, settle (usage: eacu bench "
                                 "tap [--display ...] [--n 30] | eacu bench locate|ocr CORPUS [--out F.jsonl])\n");
            return 2;
        }
        int n = integerFlag("--n", o.flag("--n").value_or("30"), 3, 100000);
        OpenDevice dev = openDevice(o.display.empty() ? "virtual" : o.display);
        AssetLibrary assets = AssetLibrary::loadFrom(eacuHome());
        Locator locator;
        Session session(*dev.device, assets, locator, nullptr, 0, {});
        session.launch({"xcalc"});
        TargetSpec clear;
        clear.label = "\"AC\"";
        clear.image = "calculator.btn_clear";
        session.wait(clear, 10);
        Size size = dev.device->screenSize();
        std::printf("eacu bench tap: %d taps on xcalc's \"1\" key, frame %dx%d, %s\n", n, size.w,
                    size.h, dev.device->describe().c_str());

        std::vector<double> capture, locate, inject, tap_total, settle;
        TargetSpec one;
        one.label = "\"1\"";
        one.image = "calculator.btn_1";
        for (int i = 0; i < n; ++i) {
            double t0 = monotonicSeconds();
            Frame f = dev.device->capture();
            double t1 = monotonicSeconds();
            // The session's locate: capture + the locator with the session's hints (last seen
            // place, expected scale), as a tap does.
            Match m = session.locate(one);
            double t2 = monotonicSeconds();
            if (!m.found) throw std::runtime_error("the \"1\" key was not found");
            dev.device->move(m.target);
            dev.device->click(MouseButton::Left, 1);
            dev.device->sync();
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
    } catch (const std::exception& e) {
        std::fprintf(stderr, "eacu bench: %s\n", e.what());
        return 1;
    }
}

}  // namespace eacu
