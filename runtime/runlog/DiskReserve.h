// Room kept for the run log's last write: a file beside it, removed when the disk
// fills, so that a run can still record how it ended (the "ballast file" practice).
#pragma once
#include <cstddef>
#include <string>

namespace eacu {

/// A reserve of `bytes` bytes of disk beside the file at `path`: "<path>.reserve-<host>-<pid>-
/// <start ticks>" in the same folder (the same file system), written (incompressible bytes) when made and
/// removed by release() or the destructor. Making one first removes the reserves of this host's
/// processes that are gone (runs killed before they could remove theirs). Best effort: a reserve
/// that cannot be written (the disk is full already) is none (held() is false). Never throws.
class DiskReserve {
public:
    DiskReserve(const std::string& path, size_t bytes);
    ~DiskReserve();
    DiskReserve(const DiskReserve&) = delete;
    DiskReserve& operator=(const DiskReserve&) = delete;

    /// Removes the file, freeing its space for the next write. True when it held some.
    bool release();
    bool held() const { return !file_.empty(); }

private:
    std::string file_;  // "" when no reserve is held
};

}  // namespace eacu
