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

/// After the frames were read: each (with the languages it was read with) is read again with
/// one line inverted (as a tap's highlight or a selection draws it), as the one frame after the
/// other, the way a run reads a screen after a tap. Prints the time of that read, the lines
/// recognised again, and whether the changed line was found and the rest agrees with reading
/// the changed frame from scratch.
void benchChangedFrames(const std::map<std::string, cv::Mat>& images, const std::map<std::string, std::string>& langs) {
    std::vector<double> ms, read, laid;
    int found = 0, n = 0, same = 0, total = 0;
    for (const auto& [path, img] : images) {
        auto frame_langs = langs.find(path);
        OcrEngine& engine = OcrEngine::shared(frame_langs == langs.end() ? "eng" : frame_langs->second);
        engine.forgetLastPage();
        OcrResult before = engine.recognize(img);
        // The line to change: its words read with confidence (an icon beside a label reads as
        // junk, differently each time), at least 4 letters of them.
        std::vector<std::pair<const OcrLine*, std::string>> candidates;
        for (const OcrLine& l : before.lines) {
            std::string phrase;
            for (const OcrWord& w : l.words)
                if (w.confidence >= 0.8) phrase += (phrase.empty() ? "" : " ") + w.text;
            if (foldText(phrase).size() >= 4) candidates.emplace_back(&l, phrase);
        }
        if (candidates.empty()) continue;
        const OcrLine& target = *candidates[candidates.size() / 2].first;
        const std::string phrase = candidates[candidates.size() / 2].second;
        cv::Mat tapped = img.clone();
        Rect box = target.box.grown(3).intersect(Rect{0, 0, img.cols, img.rows});
        cv::Mat roi = tapped(cv::Rect(box.x, box.y, box.w, box.h));
        cv::bitwise_not(roi, roi);
        OcrResult after = engine.recognize(tapped);
        ms.push_back(after.ms);
        read.push_back(after.lines_read);
        laid.push_back(100 * after.laid_out);
        ++n;
        bool hit = false;
        for (const TextMatch& m : findText(after, phrase)) hit = hit || target.box.intersect(m.box).area() * 2 > m.box.area();
        found += hit;
        // The same frame read whole (its lines from the line cache): the lines both read.
        engine.forgetLastPage();
        OcrResult fresh = engine.recognize(tapped);
        std::multiset<std::string> texts;
        for (const OcrLine& l : after.lines) texts.insert(l.text);
        for (const OcrLine& l : fresh.lines) {
            auto it = texts.find(l.text);
            if (it != texts.end()) ++same, texts.erase(it);
        }
        total += int(fresh.lines.size());
        if (!hit && std::getenv("EACU_BENCH_VERBOSE"))
            std::printf("  changed line not found: %s \"%s\" %s\n", path.c_str(), phrase.c_str(), target.box.str().c_str());
    }
    Percentiles t = percentiles(ms), r = percentiles(read), l = percentiles(laid);
    std::printf("  changed frame (one line inverted, %d frames): OCR median %5.1f ms  p90 %5.1f ms   lines read again median "
                "%.0f   laid out again median %.1f %%   changed line found %d/%d   lines as a whole read %.1f %%\n",
                n, t.median, t.p90, r.median, l.median, found, n, total ? 100.0 * same / total : 100.0);
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
        std::map<std::string, std::string> frame_langs;  // the widest language set a frame was read with
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
            if (frame_langs[c.screenshot].size() < case_langs.size()) frame_langs[c.screenshot] = case_langs;
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
        benchChangedFrames(images, frame_langs);
        return 0;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "eacu bench ocr: %s\n", e.what());
        return 1;
    }
}

}  // namespace eacu
