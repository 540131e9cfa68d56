#include "process/ProcessIdentity.h"

#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <fstream>
#include <sstream>
#include <string>

namespace eacu {

const std::string& hostName() {
    static const std::string name = [] {
        char buf[256] = {};
        if (::gethostname(buf, sizeof buf - 1) != 0) return std::string();
        return std::string(buf);
    }();
    return name;
}

std::optional<int64_t> processStartTicks(int64_t pid) {
    if (pid <= 0) return std::nullopt;
    std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
    std::string line;
    if (!in || !std::getline(in, line)) return std::nullopt;
    // "pid (comm) state ppid ...": comm may hold spaces and ')', so fields count from the
    // last ')'. After it come field 3 (state) ... field 22 (starttime).
    size_t close = line.rfind(')');
    if (close == std::string::npos) return std::nullopt;
    std::istringstream fields(line.substr(close + 1));
    std::string state;
    fields >> state;
    if (state == "Z" || state == "X") return std::nullopt;
    std::string skip;
    for (int f = 4; f < 22; ++f) fields >> skip;
    long long start = 0;
    if (!(fields >> start)) return std::nullopt;
    return int64_t(start);
}

ProcessIdentity currentProcess() {
    ProcessIdentity id;
    id.pid = int64_t(::getpid());
    id.start_ticks = processStartTicks(id.pid).value_or(0);
    id.host = hostName();
    return id;
}

bool processAlive(const ProcessIdentity& id) {
    if (id.pid <= 0) return false;
    if (auto start = processStartTicks(id.pid)) return id.start_ticks == 0 || *start == id.start_ticks;
    // No readable /proc entry (no procfs mounted, or it is gone): ask the kernel; EPERM means
    // it exists under another user.
    if (::access("/proc/self/stat", R_OK) == 0) return false;
    return ::kill(pid_t(id.pid), 0) == 0 || errno == EPERM;
}

}  // namespace eacu
