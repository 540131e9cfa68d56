#include "base/Clock.h"

#include <chrono>
#include <ctime>

namespace eacu {

double monotonicSeconds() {
    using namespace std::chrono;
    return duration<double>(steady_clock::now().time_since_epoch()).count();
}

double wallSeconds() {
    using namespace std::chrono;
    return duration<double>(system_clock::now().time_since_epoch()).count();
}

std::string formatLocalTime(double t, const char* pattern) {
    std::time_t s = static_cast<std::time_t>(t);
    std::tm tm{};
    localtime_r(&s, &tm);
    char buf[128];
    size_t n = std::strftime(buf, sizeof buf, pattern, &tm);
    return std::string(buf, n);
}

std::string formatLocalTime(double t) {
    if (t <= 0) return "-";
    return formatLocalTime(t, "%Y-%m-%d %H:%M:%S");
}

}  // namespace eacu
