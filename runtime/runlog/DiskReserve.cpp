#include "runlog/DiskReserve.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <system_error>
#include <vector>

#include "process/ProcessIdentity.h"

namespace fs = std::filesystem;

namespace eacu {

namespace {

// Removes "<name>.reserve-<host>-<pid>-<ticks>" files of this host whose process is gone.
void removeStale(const fs::path& path) {
    std::error_code ec;
    fs::path dir = path.parent_path().empty() ? fs::path(".") : path.parent_path();
    const std::string prefix = path.filename().string() + ".reserve-" + hostName() + "-";
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
        std::string name = it->path().filename().string();
        if (name.rfind(prefix, 0) != 0) continue;
        long long pid = 0, ticks = 0;
        if (std::sscanf(name.c_str() + prefix.size(), "%lld-%lld", &pid, &ticks) != 2) continue;
        if (!processAlive({pid, ticks, hostName()})) fs::remove(it->path(), ec);
    }
}

}  // namespace

DiskReserve::DiskReserve(const std::string& path, size_t bytes) {
    removeStale(fs::path(path));
    ProcessIdentity me = currentProcess();
    std::string file = path + ".reserve-" + me.host + "-" + std::to_string(me.pid) + "-" + std::to_string(me.start_ticks);
    std::FILE* f = std::fopen(file.c_str(), "wb");
    if (!f) return;
    // Pseudo-random bytes (xorshift32), not zeros: a compressing file system (Btrfs, ZFS)
    // would store zeros in no space at all.
    std::vector<unsigned char> block(64 * 1024);
    uint32_t x = 2463534242u;
    for (unsigned char& b : block) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        b = static_cast<unsigned char>(x);
    }
    bool ok = true;
    for (size_t left = bytes; ok && left > 0;) {
        size_t n = std::min(left, block.size());
        ok = std::fwrite(block.data(), 1, n, f) == n;
        left -= n;
    }
    ok = std::fclose(f) == 0 && ok;
    std::error_code ec;
    if (ok)
        file_ = file;
    else
        fs::remove(file, ec);
}

DiskReserve::~DiskReserve() { release(); }

bool DiskReserve::release() {
    if (file_.empty()) return false;
    std::error_code ec;
    bool removed = fs::remove(file_, ec);
    file_.clear();
    return removed;
}

}  // namespace eacu
