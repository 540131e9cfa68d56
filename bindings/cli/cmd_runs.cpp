// eacu runs: recent runs from the run log.
#include <cstdio>
#include <ctime>
#include <string>

#include "cli/Cli.h"
#include "record/RunLog.h"

namespace eacu {

std::string formatTime(double t) {
    if (t <= 0) return "-";
    std::time_t s = std::time_t(t);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S", std::localtime(&s));
    return buf;
}

int cmdRuns(int argc, char** argv) {
    try {
        CliOptions o = parseCli(argc, argv, 2, {"--status", "--script", "--limit", "--since"});
        RunFilter f;
        if (auto s = o.flag("--status")) f.status = *s;
        if (auto s = o.flag("--script")) f.script_contains = *s;
        if (auto s = o.flag("--limit")) f.limit = std::stoi(*s);
        if (auto s = o.flag("--since")) f.since = std::stod(*s);
        RunLog log(o.db.empty() ? RunLog::defaultPath() : o.db);
        auto runs = log.listRuns(f);
        if (runs.empty()) {
            std::printf("no runs in %s\n", log.path().c_str());
            return 0;
        }
        std::printf("%6s  %-11s  %-19s  %7s  %5s  %s\n", "RUN", "STATUS", "STARTED", "SECONDS",
                    "STEPS", "SCRIPT");
        for (const auto& r : runs) {
            double secs = r.ended_at > 0 ? r.ended_at - r.started_at : 0;
            std::printf("%6lld  %-11s  %-19s  %7.1f  %5lld  %s\n", (long long)r.id, r.status.c_str(),
                        formatTime(r.started_at).c_str(), secs, (long long)r.step_count,
                        r.script.c_str());
        }
        return 0;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "eacu runs: %s\n", e.what());
        return 1;
    }
}

}  // namespace eacu
