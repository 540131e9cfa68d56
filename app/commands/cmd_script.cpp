// eacu script [RUN] -o FILE.lua: a recorded run's steps written as a runnable script.
#include <cstdio>

#include "Cli.h"
#include "ScriptFile.h"
#include "commands/Commands.h"
#include "runlog/RunReader.h"
#include "recorder/RecordedScript.h"
#include "recorder/RunScript.h"
#include "vision/Locator.h"

namespace eacu {

int cmdScript(int argc, char** argv) {
    try {
        CliOptions o = parseCli(argc, argv, 2, {"-o", "--output", "--assets"});
        if (o.positional.size() > 1 || !(o.flag("-o") || o.flag("--output"))) {
            std::fprintf(stderr, "eacu script: expected [RUN] -o FILE.lua (see eacu script --help)\n");
            return 2;
        }
        ScriptFile file = scriptFileOf(o);
        RunReader log(runLogPath(o));
        int64_t id = o.positional.empty() ? log.latestRunId() : parseRunId(o.positional[0]);
        auto run = log.run(id);
        if (!run) {
            std::fprintf(stderr, "eacu script: no run %lld in %s\n", (long long)id, log.path().c_str());
            return 1;
        }
        std::vector<ScriptItem> items = itemsFromRun(log, id);
        Locator locator;
        WrittenScript w = writeScriptFile(
            file, items, locator,
            {"Written by eacu script from run " + std::to_string(id) + " (" + run->script + ", " + run->device + ").",
             "Each line says why its target was chosen and whose step it was; no model is needed to run it."});
        std::printf("eacu script: wrote %s from run %lld: %zu lines of actions (%d kept from the script, %d a11y, %d text, "
                    "%d image, %d coordinates)\n",
                    file.script.string().c_str(), (long long)id, items.size(), w.known, w.a11y + w.relative, w.text, w.image,
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
