#include "base/Clock.h"

#include <chrono>
#include <ctime>

namespace eacu {

namespace {

// Unix seconds of 0001-01-01 and 9999-12-31 (UTC): the dates strftime's %Y writes as four digits.
constexpr double kMinLocalTime = -62135596800.0;
constexpr double kMaxLocalTime = 253402300799.0;

}  // namespace

double monotonicSeconds() {
    using namespace std::chrono;
    return duration<double>(steady_clock::now().time_since_epoch()).count();
}

double wallSeconds() {
    using namespace std::chrono;
    return duration<double>(system_clock::now().time_since_epoch()).count();
}

std::string formatLocalTime(double t, const char* pattern) {
    // A time read from a run log may be anything: beyond years 1..9999 (or NaN) it is no date,
    // and converting it to time_t would be undefined behaviour (found by fuzz_runlog).
    if (!(t >= kMinLocalTime && t <= kMaxLocalTime)) return "?";
    std::time_t s = static_cast<std::time_t>(t);
    std::tm tm{};
    if (!localtime_r(&s, &tm)) return "?";
    char buf[128];
    size_t n = std::strftime(buf, sizeof buf, pattern, &tm);
    return std::string(buf, n);
}

std::string formatLocalTime(double t) {
    if (t <= 0) return "-";
    return formatLocalTime(t, "%Y-%m-%d %H:%M:%S");
}

}  // namespace eacu
