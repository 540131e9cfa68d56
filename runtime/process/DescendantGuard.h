// Nothing an eacu process starts outlives it, however it ends (SIGKILL included).
#pragma once
#include <sys/types.h>

namespace eacu {

/// Guards this process's descendants (call once, early in main, before any thread starts):
/// - this process becomes a child subreaper (prctl PR_SET_CHILD_SUBREAPER): a descendant whose
///   parent exits (a daemon's double fork, Chromium's crashpad handler) is re-parented to it,
///   not to init, so it stays among its descendants; a thread reaps such adopted children
///   once they exit (zombie children that are not process groups it spawned, see
///   spawnedGroup);
/// - a watcher process (forked here, its stdio on /dev/null) holds the read end of a pipe
///   whose write end only this process has. Every 250 ms it records this process's
///   descendants from /proc (pid, start time, process group); process groups this process
///   spawns are also sent to it at once (noteSpawnedGroup). When the pipe reaches end of file
///   (this process is gone, whatever killed it) the watcher sends SIGTERM to every recorded
///   descendant still alive with the same start time and to every process in a recorded
///   group, SIGKILL 2 s later to those left, and exits.
/// PR_SET_PDEATHSIG alone cannot do this: it reaches only direct children, and only those
/// that keep it across their own exec and fork. Errors (no fork, no /proc) leave the process
/// unguarded and are reported on stderr once.
void guardDescendants();

/// Tells the watcher that `pgid` is a process group this process started (Process::spawn
/// calls it). Async-signal-safe (one write(2)); does nothing when there is no watcher.
void noteSpawnedGroup(pid_t pgid);

/// True when `pid` leads a live process group that Process::spawn started (not yet reaped).
/// Async-signal-safe. Defined in Process.cpp, which keeps that registry.
bool spawnedGroup(pid_t pid);

}  // namespace eacu
