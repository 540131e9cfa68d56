#include "bench/BenchBatch.h"

#include <cstdio>
#include <vector>

#include <opencv2/core.hpp>

#include "base/Clock.h"
#include "bench/Corpus.h"
#include "bench/Xcalc.h"

namespace eacu {

int benchBatch(const std::string& display, int rounds) {
    std::unique_ptr<XcalcBench> bench = startXcalc(display);
    Session& session = *bench->session;
    Device& device = *bench->dev.device;
    const char* const keys[] = {"btn_1", "btn_2", "btn_plus",  "btn_3", "btn_4", "btn_multiply",
                                "btn_5", "btn_6", "btn_minus", "btn_7", "btn_8", "btn_equals"};
    std::vector<BatchAction> actions;
    for (const char* k : keys) {
        BatchAction b;
        b.action = "tap";
        b.target = xcalcTarget(k);
        actions.push_back(std::move(b));
    }
    Size size = device.screenSize();
    std::printf("eacu bench batch: %d rounds of 12 xcalc keys (1 2 + 3 4 x 5 6 - 7 8 =), frame %dx%d, %s\n",
                rounds, size.w, size.h, device.describe().c_str());

    const TargetSpec clear = xcalcTarget("btn_clear");
    std::vector<double> stepwise, batched, locate;
    int same = 0;
    for (int r = 0; r < rounds; ++r) {
        session.tap(clear);
        double t0 = monotonicSeconds();
        for (const BatchAction& b : actions) session.tap(*b.target);
        stepwise.push_back((monotonicSeconds() - t0) * 1000);
        Frame one_by_one = device.capture();

        session.tap(clear);
        double t1 = monotonicSeconds();
        BatchResult br = session.batch(actions);
        batched.push_back((monotonicSeconds() - t1) * 1000);
        locate.push_back(br.locate_ms);
        Frame as_batch = device.capture();
        bool equal = one_by_one.bgr.size() == as_batch.bgr.size() &&
                     cv::norm(one_by_one.bgr, as_batch.bgr, cv::NORM_INF) == 0;
        same += equal;
        std::printf("  round %d: stepwise %7.1f ms, batch %7.1f ms (locate %6.1f ms, settle %6.1f ms), %s\n", r + 1,
                    stepwise.back(), batched.back(), br.locate_ms, br.settle.ms,
                    equal ? "same display" : "DIFFERENT display");
    }
    Percentiles ps = percentiles(stepwise), pb = percentiles(batched), pl = percentiles(locate);
    std::printf("  stepwise (12 steps)        median %7.1f ms   p90 %7.1f ms\n", ps.median, ps.p90);
    std::printf("  batch (one frame, 1 settle) median %7.1f ms   p90 %7.1f ms   (locating all 12: median %.1f ms)\n",
                pb.median, pb.p90, pl.median);
    std::printf("  speed-up: %.1fx; ending on the same display: %d of %d rounds\n",
                pb.median > 0 ? ps.median / pb.median : 0.0, same, rounds);
    return same == rounds ? 0 : 1;
}

}  // namespace eacu
