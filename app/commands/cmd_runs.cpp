// eacu runs: recent runs from the run log.
#include <cstdio>
#include <ctime>
#include <string>
#include <stdexcept>

#include "base/Clock.h"
#include "Cli.h"
#include "commands/Commands.h"
#include "runlog/RunReader.h"

namespace eacu {


/// Parses --since: "90s", "30m", "2h", "3d" (that long ago), "YYYY-MM-DD", "YYYY-MM-DD HH:MM[:SS]"
/// (local time) or Unix seconds. Throws UsageError with what it expected.
double parseSince(const std::string& v, double now) {
    char unit = 0;
    double n = 0;
    int used = 0;
    if (std::sscanf(v.c_str(), "%lf%c%n", &n, &unit, &used) == 2 && used == int(v.size()) &&
        (unit == 's' || unit == 'm' || unit == 'h' || unit == 'd'))
        return now - n * (unit == 's' ? 1 : unit == 'm' ? 60 : unit == 'h' ? 3600 : 86400);
    std::tm tm{};
    int Y, M, D, h = 0, mi = 0, sec = 0;
    int fields = std::sscanf(v.c_str(), "%d-%d-%d%*[ T]%d:%d:%d", &Y, &M, &D, &h, &mi, &sec);
    if (fields >= 3 && v.size() >= 10 && v[4] == '-') {
        tm.tm_year = Y - 1900;
        tm.tm_mon = M - 1;
        tm.tm_mday = D;
        tm.tm_hour = h;
        tm.tm_min = mi;
        tm.tm_sec = sec;
        tm.tm_isdst = -1;
        return double(std::mktime(&tm));
    }
    size_t end = 0;
    try {
        double t = std::stod(v, &end);
        if (end == v.size()) return t;
    } catch (const std::exception&) {
    }
    throw UsageError("--since expects a duration (90s, 30m, 2h, 3d), a date (2026-11-22, "
                                "\"2026-11-22 10:30\") or Unix seconds, got \"" + v + "\"");
}

int cmdRuns(int argc, char** argv) {
    try {
        CliOptions o = parseCli(argc, argv, 2, {"--status", "--script", "--limit", "--since"}, {"--replays"});
        RunFilter f;
        if (auto s = o.flag("--status")) {
            if (*s != "passed" && *s != "failed" && *s != "running" && *s != "interrupted" && *s != "timed_out" &&
                *s != "crashed")
                throw UsageError("--status expects passed, failed, running, crashed, interrupted or timed_out, got \"" +
                                 *s + "\"");
            f.status = *s;
        }
        if (auto s = o.flag("--script")) f.script_contains = *s;
        f.limit = integerFlag("--limit", o.flag("--limit").value_or("20"), 1, 1000000);
        if (auto s = o.flag("--since")) f.since = parseSince(*s, double(std::time(nullptr)));
        f.replays_only = o.flag("--replays").has_value();
        RunReader log(runLogPath(o));
        auto runs = log.listRuns(f);
        if (runs.empty()) {
            std::printf("no runs in %s\n", log.path().c_str());
            return 0;
        }
        std::printf("%6s  %-11s  %-19s  %7s  %5s  %-14s  %s\n", "RUN", "STATUS", "STARTED", "SECONDS",
                    "STEPS", "REPLAY OF", "SCRIPT");
        for (const auto& r : runs) {
            // A crashed run has no end: its last heartbeat is the last sign of life.
            double secs = r.ended_at > 0 ? r.ended_at - r.started_at
                          : r.status == "crashed" && r.heartbeat_at > 0 ? r.heartbeat_at - r.started_at : 0;
            std::string of = r.replay_of ? std::to_string(*r.replay_of) + " (" + r.replay_mode + ")" : "-";
            std::printf("%6lld  %-11s  %-19s  %7.1f  %5lld  %-14s  %s\n", (long long)r.id, r.status.c_str(),
                        formatLocalTime(r.started_at).c_str(), secs, (long long)r.step_count, of.c_str(),
                        r.script.c_str());
        }
        return 0;
    } catch (const UsageError& e) {
        std::fprintf(stderr, "eacu runs: %s\n", e.what());
        return 2;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "eacu runs: %s\n", e.what());
        return 1;
    }
}

}  // namespace eacu
