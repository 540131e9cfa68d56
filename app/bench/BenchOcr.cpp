#include "bench/BenchOcr.h"

#include <chrono>
#include <cstdio>
#include <fstream>
#include <map>
#include <set>

#include <nlohmann/json.hpp>
#include <opencv2/imgcodecs.hpp>

#include "bench/Corpus.h"
#include "vision/ocr/OcrCache.h"
#include "vision/ocr/OcrEngine.h"
#include "vision/ocr/TextFinder.h"

namespace eacu {

namespace {

double msSince(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

struct Group {
    int n = 0, hits = 0, wrong = 0;  // wrong: found somewhere that is not the label
    std::vector<double> ocr_ms, lookup_ms;
};

void printGroup(const std::string& name, const Group& g) {
    Percentiles o = percentiles(g.ocr_ms), l = percentiles(g.lookup_ms);
    std::printf("  %-10s %4d cases  hit %6.1f%%  wrong %3d   OCR/frame median %7.0f ms  p90 %7.0f ms (%zu frames)   "
                "lookup median %5.2f ms  p90 %5.2f ms\n",
                name.c_str(), g.n, g.n ? 100.0 * g.hits / g.n : 0.0, g.wrong, o.median, o.p90, g.ocr_ms.size(), l.median,
                l.p90);
}

/// "chars" for a phrase of one or two characters (after folding: "OK", "确定"), else "words".
std::string lengthGroup(const std::string& phrase) {
    return foldText(phrase).size() <= 2 ? "chars" : "words";
}

}  // namespace

int benchOcr(const std::string& corpus_dir, const std::string& out_path, const std::string& langs) {
    try {
        std::vector<CorpusCase> cases = loadCorpus(corpus_dir);
        std::ofstream out;
        if (!out_path.empty()) {
            out.open(out_path);
            if (!out) throw std::runtime_error("cannot write " + out_path);
        }
        OcrCache cache(4);
        std::map<std::string, cv::Mat> images;
        std::map<double, Group> by_scale;
        std::map<std::string, Group> by_toolkit, by_length;
        Group total;
        int ntext = 0;
        for (const auto& c : cases) ntext += c.kind == "text";
        std::printf("eacu bench ocr: %d text cases in %s, languages %s\n", ntext, corpus_dir.c_str(),
                    langs == "auto" ? "auto (eng, or eng+chi_sim for a phrase with CJK)" : langs.c_str());
        std::fflush(stdout);
        for (const auto& c : cases) {
            if (c.kind != "text") continue;
            auto& img = images[c.screenshot];
            if (img.empty()) {
                img = cv::imread(c.screenshot, cv::IMREAD_COLOR);
                if (img.empty()) throw std::runtime_error("cannot read " + c.screenshot);
            }
            const std::string case_langs = langs == "auto" ? OcrEngine::langsFor(c.text) : langs;
            bool hit_cache = false;
            auto result = cache.get(img, std::nullopt, case_langs, &hit_cache);
            double ocr_ms = hit_cache ? 0.0 : result->ms;
            // The cached path, as a second lookup on this frame costs: fingerprint, lookup, find.
            auto t0 = std::chrono::steady_clock::now();
            auto again = cache.get(img, std::nullopt, case_langs);
            std::vector<TextMatch> found = findText(*again, c.text);
            double lookup_ms = msSince(t0);

            nlohmann::json j;
            bool hit = false;
            if (!found.empty()) {
                const TextMatch& m = found.front();
                hit = isHit(m.box, c);  // on `expect` or any `also` box
                j = {{"found", true}, {"x", m.box.x}, {"y", m.box.y}, {"w", m.box.w}, {"h", m.box.h},
                     {"score", m.score}, {"confidence", m.confidence}, {"text", m.text}};
            } else {
                j = {{"found", false}};
            }
            j["ms"] = ocr_ms;
            j["lookup_ms"] = lookup_ms;
            j["hit"] = hit;
            if (out) out << j.dump() << "\n";
            std::vector<Group*> groups{&by_scale[c.scale], &total};
            if (!c.toolkit.empty()) {
                groups.push_back(&by_toolkit[c.toolkit]);
                groups.push_back(&by_length[lengthGroup(c.text)]);
            }
            for (Group* g : groups) {
                g->n++;
                g->hits += hit;
                g->wrong += !found.empty() && !hit;
                if (!hit_cache) g->ocr_ms.push_back(ocr_ms);
                g->lookup_ms.push_back(lookup_ms);
            }
            if (!hit && std::getenv("EACU_BENCH_VERBOSE"))
                std::printf("  miss: %s \"%s\" expect %s got %s\n", c.screenshot.c_str(), c.text.c_str(),
                            c.expect ? c.expect->str().c_str() : "-",
                            found.empty() ? "nothing" : (found.front().box.str() + " \"" + found.front().text + "\"").c_str());
        }
        for (const auto& [scale, g] : by_scale) {
            char name[32];
            std::snprintf(name, sizeof name, "x%.2f", scale);
            printGroup(name, g);
        }
        for (const auto& [toolkit, g] : by_toolkit) printGroup(toolkit, g);
        for (const auto& [length, g] : by_length) printGroup(length, g);
        printGroup("total", total);
        return 0;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "eacu bench ocr: %s\n", e.what());
        return 1;
    }
}

}  // namespace eacu
