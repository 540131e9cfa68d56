// Naming a process so that a later look can tell whether it still runs: its pid, its start
// time (a pid is reused; pid and start time together are not) and its host.
#pragma once
#include <cstdint>
#include <optional>
#include <string>

namespace eacu {

/// A process as another process (or a later look) can recognise it.
/// - `pid`: its process id on `host`.
/// - `start_ticks`: its start time, field 22 of /proc/PID/stat (clock ticks since boot,
///   proc(5)); 0 when unknown.
/// - `host`: gethostname(2) of the machine it runs on.
struct ProcessIdentity {
    int64_t pid = 0;
    int64_t start_ticks = 0;
    std::string host;
};

/// This process's identity (the host name is read once).
ProcessIdentity currentProcess();

/// gethostname(2), read once per process ("" if it fails).
const std::string& hostName();

/// The start time of process `pid` on this machine (field 22 of /proc/PID/stat, clock ticks
/// since boot), or nullopt when no such process runs (a zombie, which has ended and only waits
/// for its parent to reap it, counts as gone). Never throws.
std::optional<int64_t> processStartTicks(int64_t pid);

/// True while the process named by `id` runs on this machine: a process with that pid exists,
/// is not a zombie, and (when id.start_ticks is known) started at that time, so a later
/// process that reuses the pid is not mistaken for it. Says nothing about other hosts (the
/// caller compares id.host with hostName()).
bool processAlive(const ProcessIdentity& id);

}  // namespace eacu
