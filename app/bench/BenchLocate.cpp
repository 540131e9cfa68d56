#include "bench/BenchLocate.h"

#include <cstdio>
#include <fstream>
#include <map>

#include <nlohmann/json.hpp>
#include <opencv2/imgcodecs.hpp>

#include "bench/BenchLocateSweep.h"
#include "bench/Corpus.h"
#include "base/Frame.h"
#include "vision/Locator.h"
#include "vision/ScaleEstimator.h"

namespace eacu {

namespace {

struct ScaleStats {
    int positives = 0, hits = 0, negatives = 0, false_positives = 0;
    std::vector<double> ms;
};

}  // namespace

int benchLocate(const std::string& corpus_dir, const std::string& out_path, bool learn_scale,
                double threshold) {
    std::vector<CorpusCase> cases;
    try {
        cases = loadCorpus(corpus_dir);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "eacu bench locate: %s\n", e.what());
        return 1;
    }
    std::ofstream out;
    if (!out_path.empty()) {
        out.open(out_path);
        if (!out) {
            std::fprintf(stderr, "eacu bench locate: cannot write %s\n", out_path.c_str());
            return 1;
        }
    }
    Locator locator;
    std::map<std::string, cv::Mat> shots;
    std::map<std::string, ScaleEstimator> device_scale;  // learned per screenshot file
    std::map<double, ScaleStats> by_scale;
    ScaleStats all;
    std::vector<double> relocate_ms;  // a second locate of a hit on a new frame, from last seen
    for (const CorpusCase& c : cases) {
        if (c.kind != "positive" && c.kind != "negative") continue;
        auto it = shots.find(c.screenshot);
        if (it == shots.end()) {
            cv::Mat img = cv::imread(c.screenshot, cv::IMREAD_COLOR);
            if (img.empty()) {
                std::fprintf(stderr, "eacu bench locate: cannot read %s\n", c.screenshot.c_str());
                return 1;
            }
            it = shots.emplace(c.screenshot, img).first;
        }
        Template tpl = Template::load(c.tmpl);
        if (threshold > 0) tpl.threshold = threshold;
        LocateHints hints;
        if (learn_scale) hints.expected_scale = device_scale[c.screenshot].expectedScale(tpl.scale);
        double t0 = monotonicSeconds();
        PreparedFrame frame(it->second);
        LocateReport r = locator.locate(frame, {tpl}, hints);
        double ms = (monotonicSeconds() - t0) * 1000;
        const Match& m = r.match;
        if (learn_scale) device_scale[c.screenshot].observe(m, tpl.scale);
        if (m.found) {
            // The same target on a new frame (a fresh copy of the screenshot), starting where
            // it was last seen, as a session does for a target it has found before.
            cv::Mat copy = it->second.clone();
            LocateHints again;
            again.last_seen = m.box;
            again.last_scale = m.scale;
            double r0 = monotonicSeconds();
            PreparedFrame next(copy);
            LocateReport r2 = locator.locate(next, {tpl}, again);
            if (r2.match.found) relocate_ms.push_back((monotonicSeconds() - r0) * 1000);
        }

        ScaleStats& st = by_scale[c.scale];
        for (ScaleStats* s : {&st, &all}) {
            s->ms.push_back(ms);
            if (c.kind == "positive") {
                s->positives++;
                if (m.found && isHit(m.box, c)) s->hits++;
            } else {
                s->negatives++;
                if (m.found) s->false_positives++;
            }
        }
        nlohmann::json line = {{"kind", c.kind}, {"screenshot", c.screenshot}, {"template", c.tmpl},
                               {"found", m.found}, {"score", m.score}, {"ms", ms}};
        if (c.kind == "positive") line["hit"] = m.found && isHit(m.box, c);
        line["best"] = {m.box.x, m.box.y, m.box.w, m.box.h, m.scale, m.method};
        if (m.found) {
            line["x"] = m.box.x;
            line["y"] = m.box.y;
            line["w"] = m.box.w;
            line["h"] = m.box.h;
            line["scale"] = m.scale;
            line["method"] = m.method;
        }
        if (out) out << line.dump() << "\n";
    }
    std::printf("eacu bench locate: %s (%s)\n", corpus_dir.c_str(),
                learn_scale ? "device scale learned per screenshot from earlier hits" : "no learned scale");
    std::printf("%7s  %9s  %8s  %7s  %9s  %9s\n", "scale", "positives", "hit rate", "FP/neg", "median ms", "p90 ms");
    auto row = [](const char* label, const ScaleStats& s) {
        Percentiles p = percentiles(s.ms);
        std::printf("%7s  %9d  %7.1f%%  %3d/%-3d  %9.1f  %9.1f\n", label, s.positives,
                    s.positives ? 100.0 * s.hits / s.positives : 0.0, s.false_positives, s.negatives,
                    p.median, p.p90);
    };
    for (const auto& [scale, s] : by_scale) {
        char label[16];
        std::snprintf(label, sizeof label, "%.2f", scale);
        row(label, s);
    }
    row("all", all);
    Percentiles rp = percentiles(relocate_ms);
    std::printf("last-seen relocate on a new frame: %zu hits, median %.2f ms, p90 %.2f ms\n",
                relocate_ms.size(), rp.median, rp.p90);

    // The cost against the template's size: exact crops located blind.
    std::vector<std::string> shot_paths;
    for (const auto& [path, img] : shots) shot_paths.push_back(path);
    std::vector<SweepRow> sweep;
    try {
        sweep = templateSizeSweep(shot_paths);
    } catch (const std::exception& e) {
        std::printf("template-size sweep: skipped (%s)\n", e.what());
        return 0;
    }
    std::printf("template-size sweep (exact crops at scale 1.0, located blind):\n");
    std::printf("%-22s  %9s  %7s  %9s  %9s\n", "frame", "crop", "hits", "median ms", "max ms");
    for (const SweepRow& r : sweep) {
        char crop[32];
        std::snprintf(crop, sizeof crop, "%dx%d", r.w, r.h);
        std::printf("%-22s  %9s  %3d/%-3d  %9.1f  %9.1f\n", r.frame.c_str(), crop, r.hits, r.located, r.median_ms,
                    r.max_ms);
        if (out)
            out << nlohmann::json{{"sweep", r.frame}, {"w", r.w}, {"h", r.h}, {"located", r.located},
                                  {"hits", r.hits}, {"median_ms", r.median_ms}, {"max_ms", r.max_ms}}
                       .dump()
                << "\n";
    }
    return 0;
}

}  // namespace eacu
