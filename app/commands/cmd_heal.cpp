// eacu heal RUN [-o FILE.lua] [--apply]: the targets a run healed (eacu run --heal) written back
// into its script as a unified diff (docs/healing.md "The diff").
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include <nlohmann/json.hpp>
#include <opencv2/imgcodecs.hpp>

#include "Cli.h"
#include "base/ImageDecode.h"
#include "commands/Commands.h"
#include "heal/ScriptPatch.h"
#include "recorder/ScaledPng.h"
#include "recorder/TargetProof.h"
#include "runlog/RunReader.h"

namespace fs = std::filesystem;

namespace eacu {

namespace {

std::vector<std::string> readLines(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    if (!in) throw std::runtime_error("cannot read the script \"" + p.string() + "\"");
    std::vector<std::string> lines;
    std::string l;
    while (std::getline(in, l)) lines.push_back(l);
    return lines;
}

void writeLines(const fs::path& p, const std::vector<std::string>& lines) {
    std::ofstream out(p, std::ios::binary | std::ios::trunc);
    for (const std::string& l : lines) out << l << "\n";
    if (!out) throw std::runtime_error("cannot write \"" + p.string() + "\"");
}

}  // namespace

int cmdHeal(int argc, char** argv) {
    try {
        CliOptions o = parseCli(argc, argv, 2, {"-o", "--output"}, {"--apply"});
        if (o.positional.size() != 1) throw UsageError("expected one RUN (see eacu heal --help)");
        const int64_t id = parseRunId(o.positional[0]);
        RunReader log(runLogPath(o));
        auto run = log.run(id);
        if (!run) {
            std::fprintf(stderr, "eacu heal: no run %lld in %s\n", (long long)id, log.path().c_str());
            return 1;
        }
        const fs::path script = run->script;
        std::vector<std::string> before = readLines(script);
        std::vector<std::string> after = before;
        std::map<int, bool> done;
        std::vector<nlohmann::json> crops;
        int healed = 0, skipped = 0;
        for (const StepRecord& s : log.steps(id)) {
            nlohmann::json p = nlohmann::json::parse(s.params_json.empty() ? "{}" : s.params_json, nullptr, false);
            if (!p.is_object() || !p.contains("heal") || !p["heal"].value("healed", false) || s.status != "ok") continue;
            const nlohmann::json& h = p["heal"];
            const std::string where = h.value("where", "");
            const size_t colon = where.rfind(':');
            if (colon == std::string::npos || fs::path(where.substr(0, colon)) != script) {
                std::fprintf(stderr, "eacu heal: step %d healed %s at %s, not a line of %s: left out\n", s.idx,
                             s.target.c_str(), where.empty() ? "an unknown line" : where.c_str(), script.c_str());
                ++skipped;
                continue;
            }
            const int line = std::stoi(where.substr(colon + 1));
            if (line < 1 || line > int(after.size()) || done[line]) continue;
            done[line] = true;
            after[line - 1] = healLine(before[line - 1], h["new"].get<std::vector<std::string>>());
            for (const nlohmann::json& c : h.value("crops", nlohmann::json::array())) crops.push_back(c);
            ++healed;
        }
        const bool apply = o.flag("--apply").has_value();
        std::optional<std::string> out_flag = o.flag("-o") ? o.flag("-o") : o.flag("--output");
        const fs::path out = out_flag ? fs::absolute(*out_flag) : script;
        std::printf("%s", unifiedDiff(before, after, "a/" + script.filename().string(), "b/" + out.filename().string()).c_str());
        for (const nlohmann::json& c : crops)
            std::printf("# new asset %s (step's crop, frame %lld)\n", c.value("file", "").c_str(),
                        (long long)c.value("frame_id", 0LL));
        if (apply || out_flag) {
            for (const nlohmann::json& c : crops) {
                const fs::path file = out.parent_path() / c.value("file", "");
                cv::Mat px = decodeImage(log.framePng(c.value("frame_id", 0LL)), cv::IMREAD_COLOR);
                if (px.empty()) throw std::runtime_error("run " + std::to_string(id) + " holds no crop frame " +
                                                         std::to_string(c.value("frame_id", 0LL)));
                fs::create_directories(file.parent_path());
                writeScaledPng(file.string(), px, c.value("scale", 1.0));
            }
            writeLines(out, after);
            std::fprintf(stderr, "eacu heal: wrote %s: %d line(s) healed, %zu new asset(s)%s\n", out.c_str(), healed,
                         crops.size(), skipped ? (", " + std::to_string(skipped) + " left out").c_str() : "");
        } else {
            std::fprintf(stderr, "eacu heal: run %lld healed %d line(s) of %s (--apply writes them, -o FILE elsewhere)\n",
                         (long long)id, healed, script.c_str());
        }
        return 0;
    } catch (const UsageError& e) {
        std::fprintf(stderr, "eacu heal: %s\n", e.what());
        return 2;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "eacu heal: %s\n", e.what());
        return 1;
    }
}

}  // namespace eacu
