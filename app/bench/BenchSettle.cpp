#include "bench/BenchSettle.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <string>
#include <vector>

#include "base/Clock.h"
#include "bench/Xcalc.h"

namespace eacu {
namespace {

// Reads the digits on xcalc's display (the calculator module's read_display, in C++).
std::string readDisplay(Session& s) {
    Match ac = s.wait(xcalcTarget("btn_clear"), 2);
    std::vector<std::pair<int, char>> found;
    for (int d = 0; d <= 9; ++d) {
        TargetSpec t = xcalcTarget("display_" + std::to_string(d));
        t.region = std::array<double, 4>{double(std::max(0, ac.box.x - 200)), double(std::max(0, ac.box.y - 65)), 240, 60};
        for (const Match& m : s.findAll(t, 32)) found.push_back({m.box.x, char('0' + d)});
    }
    std::sort(found.begin(), found.end());
    std::string out;
    for (auto& f : found) out += f.second;
    return out;
}

}  // namespace

int benchSettle(const std::string& display) {
    std::unique_ptr<XcalcBench> bench = startXcalc(display);
    Session& session = *bench->session;
    // 12 actions: AC 1 2 × 3 4 = (408), then × 2 = (816), then AC ... the second AC is the 12th.
    const std::vector<std::string> keys = {"btn_clear", "btn_1", "btn_2", "btn_multiply", "btn_3", "btn_4",
                                           "btn_equals", "btn_multiply", "btn_2", "btn_equals"};
    auto task = [&](bool fixed) -> std::pair<double, std::string> {
        SessionOptions& o = session.options();
        SessionOptions saved = o;
        if (fixed) {
            // The baseline: act, then sleep 1 s; no change-and-settle wait, no effect retries.
            o.effect_timeout = 0;
            o.settle_interval = 0;
            o.settle_timeout = 0;
            o.tap_retries = 0;
        }
        double t0 = monotonicSeconds();
        for (const auto& k : keys) {
            session.tap(xcalcTarget(k));
            if (fixed) session.sleep(1.0);
        }
        std::string shown = readDisplay(session);  // action 11: look
        session.tap(xcalcTarget("btn_clear"));     // action 12: clear for the next round
        if (fixed) session.sleep(1.0);
        double secs = monotonicSeconds() - t0;
        o = saved;
        return {secs, shown};
    };
    std::printf("eacu bench settle: 12 actions on xcalc (AC 1 2 x 3 4 = x 2 = read AC), %s\n",
                bench->dev.device->describe().c_str());
    auto [settle_s, settle_shown] = task(false);
    auto [fixed_s, fixed_shown] = task(true);
    std::printf("  change-and-settle waits : %6.2f s   display %s\n", settle_s, settle_shown.c_str());
    std::printf("  fixed 1 s after each    : %6.2f s   display %s\n", fixed_s, fixed_shown.c_str());
    std::printf("  speed-up                : %6.1fx   same outcome: %s\n", fixed_s / settle_s,
                settle_shown == fixed_shown && settle_shown == "816" ? "yes (816)" : "NO");
    return settle_shown == "816" && fixed_shown == "816" ? 0 : 1;
}

}  // namespace eacu
