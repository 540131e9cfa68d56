// eacu script [RUN] -o FILE.lua: a recorded run's steps written as a runnable script.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "Cli.h"
#include "commands/Commands.h"
#include "record/RunReader.h"
#include "task/RecordedScript.h"
#include "task/RunScript.h"
#include "vision/Locator.h"

namespace fs = std::filesystem;

namespace eacu {

int cmdScript(int argc, char** argv) {
    try {
        CliOptions o = parseCli(argc, argv, 2, {"-o", "--output", "--assets"});
        auto file = o.flag("-o") ? o.flag("-o") : o.flag("--output");
        if (!file || o.positional.size() > 1) {
            std::fprintf(stderr, "eacu script: expected [RUN] -o FILE.lua (see eacu script --help)\n");
            return 2;
        }
        RunReader log(runLogPath(o));
        int64_t id = o.positional.empty() ? log.latestRunId() : parseRunId(o.positional[0]);
        auto run = log.run(id);
        if (!run) {
            std::fprintf(stderr, "eacu script: no run %lld in %s\n", (long long)id, log.path().c_str());
            return 1;
        }
        fs::path script = fs::absolute(*file);
        std::string assets_ref = script.stem().string() + "_assets";
        fs::path assets_dir = script.parent_path() / assets_ref;
        if (auto a = o.flag("--assets")) {
            assets_dir = fs::absolute(*a);
            assets_ref = fs::relative(assets_dir, script.parent_path()).string();
        }
        std::vector<ScriptItem> items = itemsFromRun(log, id);
        ScriptOptions opts;
        opts.assets_dir = assets_dir.string();
        opts.assets_ref = assets_ref;
        opts.header = {"Written by eacu script from run " + std::to_string(id) + " (" + run->script + ", " + run->device + ").",
                       "Each line says why its target was chosen and whose step it was; no model is needed to run it."};
        Locator locator;
        WrittenScript w = writeScript(items, locator, opts);
        std::ofstream out(script, std::ios::trunc);
        out << w.lua;
        if (!out) throw std::runtime_error("cannot write \"" + script.string() + "\"");
        std::printf("eacu script: wrote %s from run %lld: %zu lines of actions (%d kept from the script, %d a11y, %d text, "
                    "%d image, %d coordinates)\n",
                    script.string().c_str(), (long long)id, items.size(), w.known, w.a11y + w.relative, w.text, w.image,
                    w.points);
        return 0;
    } catch (const UsageError& e) {
        std::fprintf(stderr, "eacu script: %s\n", e.what());
        return 2;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "eacu script: %s\n", e.what());
        return 1;
    }
}

}  // namespace eacu
