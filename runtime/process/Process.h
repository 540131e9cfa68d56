// Child processes that eacu owns (Xvfb, apps under test): spawn, read output, wait, stop.
#pragma once
#include <sys/types.h>

#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace eacu {

/// Where a child's stderr goes.
enum class StderrMode {
    Null,     ///< /dev/null (default)
    Inherit,  ///< the parent's stderr
    Capture,  ///< a pipe drained into a buffer, see Process::stderrText()
};

/// How to start a child process.
struct ProcessOptions {
    /// Environment overrides applied on top of the parent's environment, e.g. {"DISPLAY", ":99"}.
    std::map<std::string, std::string> env;
    /// Variables removed from the child's environment (e.g. NO_AT_BRIDGE).
    std::vector<std::string> unset_env;
    /// Capture stdout in a pipe (read with readStdout/readLine); false: inherit the parent's.
    bool capture_stdout = true;
    StderrMode stderr_mode = StderrMode::Null;
    /// Working directory of the child; empty: the parent's.
    std::string working_dir;
    /// A descriptor of the parent that the child gets as its fd 3 (e.g. one end of a
    /// socketpair for a worker protocol); -1: none. The parent keeps its own copy.
    int pass_fd = -1;
};

/// A child process in its own process group. The child gets PR_SET_PDEATHSIG(SIGTERM) so it
/// dies with the thread that spawned it, stdin from /dev/null, and is registered in a
/// process-wide list so that installSignalCleanup()/exit terminate it. A background thread
/// drains stdout/stderr pipes so the child never blocks on a full pipe.
/// Use from one thread (the object is not meant to be shared between threads).
class Process {
public:
    /// Starts `argv[0]` (searched in PATH) with arguments argv[1..].
    /// Throws std::invalid_argument for an empty argv, std::runtime_error when the program
    /// cannot be started, e.g. `cannot start "xcalc": No such file or directory`.
    static std::unique_ptr<Process> spawn(const std::vector<std::string>& argv,
                                          const ProcessOptions& options = {});

    /// Calls stop().
    ~Process();
    Process(const Process&) = delete;
    Process& operator=(const Process&) = delete;

    /// The child's pid (also its process group id).
    pid_t pid() const { return pid_; }
    /// argv[0] as given to spawn().
    const std::string& name() const { return name_; }
    /// True while the child has not exited (reaps it if it has).
    bool running();
    /// Waits up to `timeout_seconds` (< 0: forever) for the child to exit. Returns its exit
    /// code, or 128 + signal number if a signal killed it; std::nullopt on timeout.
    std::optional<int> wait(double timeout_seconds);
    /// Exit status as wait() reports it, if the child has already been reaped.
    std::optional<int> exitStatus() const { return status_; }

    /// Waits until stdout reaches end-of-file or `timeout_seconds` pass, then returns (and
    /// consumes) everything read so far. Empty when stdout is not captured.
    std::string readStdout(double timeout_seconds);
    /// Waits up to `timeout_seconds` for one complete line of stdout and returns it without
    /// the '\n'. At end-of-file returns the unterminated rest if non-empty. std::nullopt on
    /// timeout or at end-of-file with nothing left.
    std::optional<std::string> readLine(double timeout_seconds);
    /// True once stdout has reached end-of-file (or is not captured).
    bool stdoutClosed() const;
    /// Waits up to `timeout_seconds` until every captured pipe (stdout, stderr) has reached
    /// end-of-file, e.g. after the child exited, so stderrText() is complete. True if so.
    bool waitOutputClosed(double timeout_seconds);
    /// Everything the child wrote to stderr so far (StderrMode::Capture only; not consumed).
    std::string stderrText() const;

    /// Stops the child: SIGTERM to its process group, up to `grace_seconds` for it to exit,
    /// then SIGKILL to the group. Reaps it. Idempotent; no-op once the child has exited.
    void stop(double grace_seconds = 2.0);
    /// After the child was reaped (stop(), or it died): waits up to `timeout_seconds` until no
    /// process is left in its process group (helpers that outlive it for a moment, such as
    /// Chromium's zygote and renderers, which end when they see it gone and may still write into
    /// its files meanwhile). Sends no signal: once the child is reaped its group id may, when the
    /// group is empty, be another's. True when no member is left; false while the child is not
    /// reaped or members remain.
    bool waitGroupGone(double timeout_seconds);

    /// Installs SIGINT/SIGTERM/SIGHUP handlers that send SIGTERM to every live child's
    /// process group, then re-raise the signal with its default disposition. Signals the
    /// host ignores (SIG_IGN, e.g. under nohup) stay ignored. Call once, early, from main().
    static void installSignalCleanup();
    /// Sends SIGTERM to the process group of every live child (also run at exit()).
    static void killAllChildren();

private:
    Process() = default;
    void startReader();
    void readerLoop();
    void onReaped(int raw_status);
    bool tryReap(bool block);

    std::string name_;
    pid_t pid_ = -1;
    std::optional<int> status_;
    int registry_slot_ = -1;

    // Pipes read by the reader thread (-1 when not captured) and a wake-up pipe to stop it.
    int out_fd_ = -1;
    int err_fd_ = -1;
    int wake_r_ = -1;
    int wake_w_ = -1;
    std::thread reader_;

    mutable std::mutex mu_;
    std::condition_variable cv_;
    std::string out_buf_;
    std::string err_buf_;
    bool out_eof_ = true;
    bool err_eof_ = true;
};

}  // namespace eacu
