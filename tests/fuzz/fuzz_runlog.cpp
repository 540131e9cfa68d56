// Run logs as eacu meets them on disk: corrupt files, files of an unknown (newer or older)
// schema version, truncated ones, any bytes. Each input is written as a run log and opened
// the way `eacu runs/show/report` open it; every run is listed, shown and rendered as a report.
// Invariants: only std::runtime_error (naming the file) is thrown; what is read is consistent
// (a run's steps belong to it).
#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <string>

#include "FuzzCommon.h"
#include "runlog/HtmlReport.h"
#include "runlog/RunReader.h"

using namespace eacu;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    std::string path = (fuzz::scratch() / "runs.db").string();
    for (const char* ext : {"-wal", "-shm", "-journal"}) std::filesystem::remove(path + ext);
    path = fuzz::writeInput("runs.db", data, size);
    try {
        RunReader log(path);
        (void)log.schemaVersion();
        (void)log.latestRunId();
        RunFilter all;
        int shown = 0;
        for (const RunRecord& r : log.listRuns(all)) {
            if (++shown > 4) break;
            (void)log.run(r.id);
            for (const StepRecord& s : log.steps(r.id))
                if (s.run_id != r.id) fuzz::broken("a step listed for a run belongs to another");
            (void)log.stepCount(r.id);
            std::vector<FrameRecord> frames = log.frames(r.id);
            if (!frames.empty()) (void)log.framePng(frames.front().id);
            (void)log.modelCalls(r.id);
            (void)log.replaysOf(r.id);
            (void)renderHtmlReport(log, r.id);
        }
    } catch (const std::runtime_error& e) {
        if (std::string(e.what()).find(path) == std::string::npos) {
            std::fprintf(stderr, "error: %s\n", e.what());
            fuzz::broken("a run log error does not name the file");
        }
    }
    return 0;
}
