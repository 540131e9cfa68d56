// eacu show RUN: the steps of a run as a table.
#include <algorithm>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "Cli.h"
#include "base/Clock.h"
#include "base/Format.h"
#include "base/Utf8.h"
#include "commands/Commands.h"
#include "runlog/ReplayDiff.h"
#include "runlog/RunReader.h"

namespace eacu {

namespace {

// "in window 0x600016 "Calculator" (XCalc), raised, sent as events" for a window-bound step
// (params.window), "" otherwise.
std::string windowLine(const std::string& params_json) {
    if (params_json.empty()) return "";
    nlohmann::json p = nlohmann::json::parse(params_json, nullptr, false);
    if (!p.is_object() || !p.contains("window") || !p["window"].is_object()) return "";
    const nlohmann::json& w = p["window"];
    char id[32];
    std::snprintf(id, sizeof id, "0x%llx", static_cast<unsigned long long>(w.value("id", uint64_t(0))));
    std::string out = std::string("in window ") + id + " \"" + w.value("title", std::string()) + "\" (" +
                      w.value("class", std::string()) + ")";
    if (p.value("raised", false)) out += ", raised";
    if (p.value("delivery", std::string()) == "events") out += ", sent as events";
    if (p.contains("covered_by") && p["covered_by"].is_object())
        out += ", covered by \"" + p["covered_by"].value("title", std::string()) + "\" (" +
               p["covered_by"].value("class", std::string()) + ")";
    return out;
}

// `v` with `digits` decimals, or "-" when absent.
std::string opt(const std::optional<double>& v, int digits = 3) { return v ? fixed(*v, digits) : "-"; }

// Terminal columns of a code point: 2 for East Asian wide and fullwidth forms, else 1.
int columns(uint32_t cp) {
    bool wide = (cp >= 0x1100 && cp <= 0x115F) || (cp >= 0x2E80 && cp <= 0xA4CF) ||
                (cp >= 0xAC00 && cp <= 0xD7A3) || (cp >= 0xF900 && cp <= 0xFAFF) ||
                (cp >= 0xFE30 && cp <= 0xFE4F) || (cp >= 0xFF00 && cp <= 0xFF60) ||
                (cp >= 0xFFE0 && cp <= 0xFFE6) || (cp >= 0x20000 && cp <= 0x3FFFD);
    return wide ? 2 : 1;
}

// `s` cut to at most `width` terminal columns ("..." marks a cut) and padded with spaces to
// exactly `width`, counting UTF-8 code points by their display width (invalid UTF-8 is read
// byte by byte as Latin-1).
std::string fit(const std::string& s, int width) {
    std::u32string cps;
    try {
        cps = decodeUtf8(s);
    } catch (const std::exception&) {
        cps.assign(s.begin(), s.end());
        for (auto& c : cps) c &= 0xFF;
    }
    int total = 0;
    for (char32_t c : cps) total += columns(c);
    int limit = total <= width ? width : width - 3;
    std::u32string kept;
    int used = 0;
    for (char32_t c : cps) {
        if (used + columns(c) > limit) break;
        kept += c;
        used += columns(c);
    }
    std::string out = encodeUtf8(kept);
    if (total > width) {
        out += "...";
        used += 3;
    }
    return out + std::string(std::max(0, width - used), ' ');
}

const char* statusColour(const std::string& st) {
    return st == "ok" || st == "passed" ? "32" : st == "running" ? "33" : "31";
}

}  // namespace

int cmdShow(int argc, char** argv) {
    try {
        CliOptions o = parseCli(argc, argv, 2, {}, {"--color", "--no-color"});
        bool colour = useColour(o);
        RunReader log(runLogPath(o));
        int64_t id = o.positional.empty() ? log.latestRunId() : parseRunId(o.positional[0]);
        auto run = log.run(id);
        if (!run) {
            std::fprintf(stderr, "eacu show: no run %lld in %s\n", (long long)id, log.path().c_str());
            return 1;
        }
        std::printf("run %lld  %s  %s\n  script  %s %s\n  device  %s (%dx%d, scale %.2f)\n  started %s",
                    (long long)run->id, paint(colour, statusColour(run->status), run->status).c_str(), log.path().c_str(), run->script.c_str(),
                    run->args_json.c_str(), run->device.c_str(), run->screen_w, run->screen_h,
                    run->scale, formatLocalTime(run->started_at).c_str());
        if (run->ended_at > 0) std::printf(", %.1f s", run->ended_at - run->started_at);
        std::printf("\n");
        if (run->pid > 0)
            std::printf("  process pid %lld on %s, last heartbeat %s%s\n", (long long)run->pid, run->host.c_str(),
                        formatLocalTime(run->heartbeat_at).c_str(),
                        run->status == "crashed" ? " (the process is gone: crashed)" : "");
        if (!run->error.empty())
            std::printf("  error   %s\n", paint(colour, "31", firstLine(run->error)).c_str());
        // A replay: where it differs from the run it replays.
        std::map<int, std::vector<std::string>> diffs;
        if (run->replay_of) {
            auto orig = log.run(*run->replay_of);
            std::printf("  replay  of run %lld (%s mode)", (long long)*run->replay_of,
                        run->replay_mode.empty() ? "?" : run->replay_mode.c_str());
            if (!orig) {
                std::printf(": that run is no longer in the log\n");
            } else {
                auto d = diffSteps(log.steps(*run->replay_of), log.steps(id));
                for (const auto& x : d) diffs[x.idx].push_back(x.what);
                std::string summary = d.empty() ? "every step agrees with the original"
                                                : std::to_string(d.size()) + " difference" + (d.size() == 1 ? "" : "s") +
                                                      " from the original (marked ≠ below)";
                std::printf(": %s\n", paint(colour, d.empty() ? "32" : "33", summary).c_str());
            }
        }
        {
            // Replays of this run.
            std::string by;
            for (const auto& r : log.replaysOf(id))
                by += (by.empty() ? "" : ", ") + std::to_string(r.id) + " (" + r.replay_mode + ", " + r.status + ")";
            if (!by.empty()) std::printf("  replays %s\n", by.c_str());
        }
        std::printf("\n%4s  %-10s  %-24s  %-14s  %6s  %5s  %-20s  %-11s  %6s  %7s  %7s  %-7s  %s\n", "#",
                    "ACTION", "TARGET", "METHOD", "SCORE", "THR", "BOX", "INPUT", "CHANGE",
                    "LOC_MS", "SETTLE", "STATUS", "FRAMES");
        for (const auto& s : log.steps(id)) {
            std::string box = s.box ? s.box->str() : "-";
            std::string in = s.input ? "(" + std::to_string(s.input->x) + "," + std::to_string(s.input->y) + ")" : "-";
            std::string frames = (s.frame_before ? std::to_string(*s.frame_before) : "-") + "/" +
                                 (s.frame_after ? std::to_string(*s.frame_after) : "-");
            char score[16], status[16];
            std::snprintf(score, sizeof score, "%6s", opt(s.score).c_str());
            std::snprintf(status, sizeof status, "%-7s", s.status.c_str());
            bool low = s.score && s.threshold && *s.score < *s.threshold;
            std::printf("%4d  %-10s  %s  %-14s  %s  %5s  %-20s  %-11s  %6s  %7s  %7s  %s  %s\n",
                        s.idx, s.action.c_str(), fit(s.target, 24).c_str(), s.method.c_str(),
                        paint(colour && low, "31", score).c_str(), opt(s.threshold, 2).c_str(), box.c_str(),
                        in.c_str(), opt(s.change_ratio, 4).c_str(), opt(s.locate_ms, 1).c_str(),
                        opt(s.settle_ms, 0).c_str(), paint(colour, statusColour(s.status), status).c_str(),
                        frames.c_str());
            if (!s.error.empty()) std::printf("      error: %s\n", paint(colour, "31", s.error).c_str());
            if (s.actor == "user") std::printf("      %s\n", paint(colour, "33", "by the person (eacu serve's page)").c_str());
            if (std::string w = windowLine(s.params_json); !w.empty()) std::printf("      %s\n", w.c_str());
            if (auto d = diffs.find(s.idx); d != diffs.end())
                for (const auto& w : d->second) std::printf("      %s\n", paint(colour, "33", "≠ " + w).c_str());
        }
        return 0;
    } catch (const UsageError& e) {
        std::fprintf(stderr, "eacu show: %s\n", e.what());
        return 2;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "eacu show: %s\n", e.what());
        return 1;
    }
}

}  // namespace eacu
