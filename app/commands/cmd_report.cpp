// eacu report RUN [-o FILE.html] [--assets DIR]: a run as one self-contained HTML page.
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "assets/AssetLibrary.h"
#include "Cli.h"
#include "commands/Commands.h"
#include "runlog/HtmlReport.h"
#include "runlog/RunReader.h"

namespace fs = std::filesystem;

namespace eacu {

/// The reference image a recorded step's target names: `"AC"` -> the asset's PNG path, or an
/// image file relative to the script's folder; nullopt for points and other targets.
std::optional<std::string> referenceImageOf(const AssetLibrary& assets, const std::string& script_dir,
                                            const StepRecord& s) {
    const std::string& t = s.target;
    if (t.size() < 3 || t.front() != '"' || t.back() != '"') return std::nullopt;
    try {
        Template tpl = assets.resolve(t.substr(1, t.size() - 2), script_dir);
        if (!tpl.path.empty() && fs::is_regular_file(tpl.path)) return tpl.path;
    } catch (const std::exception&) {
    }
    return std::nullopt;
}

int cmdReport(int argc, char** argv) {
    try {
        CliOptions o = parseCli(argc, argv, 2, {"-o", "--output", "--assets"}, {"--quiet"});
        RunReader log(runLogPath(o));
        if (o.positional.size() > 1) {
            std::fprintf(stderr, "eacu report: expected at most one RUN, got %zu (see eacu report --help)\n",
                         o.positional.size());
            return 2;
        }
        int64_t id = o.positional.empty() ? log.latestRunId() : parseRunId(o.positional[0]);
        auto run = log.run(id);
        if (!run) {
            std::fprintf(stderr, "eacu report: no run %lld in %s\n", (long long)id, log.path().c_str());
            return 1;
        }
        std::string out = o.flag("-o").value_or(o.flag("--output").value_or("eacu-run-" + std::to_string(id) + ".html"));
        ReportOptions ro;
        ro.html_dir = fs::absolute(out).parent_path().string();
        if (auto a = o.flag("--assets")) ro.assets_dir = *a;
        AssetLibrary assets;
        try {
            assets = AssetLibrary::loadFrom(eacuHome());
        } catch (const std::exception&) {
        }
        std::string script_dir = fs::path(run->script).parent_path().string();
        ro.reference_image = [&](const StepRecord& s) { return referenceImageOf(assets, script_dir, s); };
        ReportStats st;
        std::string html = renderHtmlReport(log, id, ro, &st);
        std::ofstream f(out, std::ios::binary);
        f << html;
        if (!f) {
            std::fprintf(stderr, "eacu report: cannot write \"%s\"\n", out.c_str());
            return 1;
        }
        if (!o.flag("--quiet"))
            std::printf("%s: run %lld, %zu steps, %zu frames, %zu reference images, %.1f MB, built in %.0f ms\n",
                        out.c_str(), (long long)id, st.steps, st.frames, st.references,
                        double(st.html_bytes) / 1e6, st.ms);
        return 0;
    } catch (const UsageError& e) {
        std::fprintf(stderr, "eacu report: %s\n", e.what());
        return 2;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "eacu report: %s\n", e.what());
        return 1;
    }
}

}  // namespace eacu
