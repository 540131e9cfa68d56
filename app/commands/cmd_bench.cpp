// eacu bench tap|batch|page|settle|window|adb|agent|locate|ocr: picks the benchmark (app/bench/) and reads its options.
#include <cstdio>

#include "Cli.h"
#include "bench/BenchAdb.h"
#include "bench/BenchAgentTap.h"
#include "bench/BenchBatch.h"
#include "bench/BenchLocate.h"
#include "bench/BenchOcr.h"
#include "bench/BenchPageTap.h"
#include "bench/BenchSettle.h"
#include "bench/BenchTap.h"
#include "bench/BenchWindow.h"
#include "commands/Commands.h"

namespace eacu {

int cmdBench(int argc, char** argv) {
    try {
        CliOptions o = parseCli(argc, argv, 2, {"--n", "--out", "--threshold", "--lang", "--x11", "--tap", "--send", "--live"}, {"--no-learn", "--input-to-frame"});
        std::string what = o.positional.empty() ? "" : o.positional[0];
        if (what == "locate" || what == "ocr") {
            if (o.positional.size() != 2) {
                std::fprintf(stderr, "eacu bench %s: expected a CORPUS folder (see eacu bench --help)\n", what.c_str());
                return 2;
            }
            if (what == "ocr")
                return benchOcr(o.positional[1], o.flag("--out").value_or(""), o.flag("--lang").value_or("auto"));
            return benchLocate(o.positional[1], o.flag("--out").value_or(""), !o.flag("--no-learn"),
                               numberFlag("--threshold", o.flag("--threshold").value_or("0"), 0, 1, "[0, 1]"));
        }
        if (!o.wm.empty()) {
            std::fprintf(stderr, "eacu bench: expected no --wm (the benchmarks run without a window manager), got --wm %s\n",
                         o.wm.c_str());
            return 2;
        }
        if (what == "settle") return benchSettle(o.display);
        if (what == "adb") return benchAdb(o.display, integerFlag("--n", o.flag("--n").value_or("10"), 1, 100000),
                                             o.flag("--tap").value_or(""), o.flag("--send").value_or(""),
                                             numberFlag("--live", o.flag("--live").value_or("0"), 0, 600, "[0, 600] seconds"),
                                             o.flag("--input-to-frame").has_value());
        if (what == "agent")
            return benchAgentTap(o.display, o.flag("--x11").value_or(""),
                                 integerFlag("--n", o.flag("--n").value_or("20"), 3, 100000));
        if (what == "page") return benchPageTap(o.display, integerFlag("--n", o.flag("--n").value_or("20"), 3, 100000));
        if (what == "window") return benchWindow(o.display, integerFlag("--n", o.flag("--n").value_or("30"), 3, 100000));
        if (what == "batch") return benchBatch(o.display, integerFlag("--n", o.flag("--n").value_or("5"), 1, 100000));
        if (what == "tap") return benchTap(o.display, integerFlag("--n", o.flag("--n").value_or("30"), 3, 100000));
        std::fprintf(stderr, "eacu bench: expected a benchmark: tap, batch, page, settle, window, adb, agent, locate or ocr, got %s (see eacu bench --help)\n",
                     what.empty() ? "none" : ("\"" + what + "\"").c_str());
        return 2;
    } catch (const UsageError& e) {
        std::fprintf(stderr, "eacu bench: %s\n", e.what());
        return 2;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "eacu bench: %s\n", e.what());
        return 1;
    }
}

}  // namespace eacu
