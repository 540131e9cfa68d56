#include "process/Process.h"

#include "process/DescendantGuard.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string_view>
#include <utility>

extern char** environ;

namespace eacu {

namespace {

// ---- process-wide registry of live child process groups -----------------------------------
// A fixed array of lock-free atomics, so the signal handler can read it async-signal-safely.
constexpr int kSlots = 1024;
std::atomic<pid_t> g_groups[kSlots];
std::once_flag g_atexit_once;

int registerGroup(pid_t pgid) {
    for (int i = 0; i < kSlots; ++i) {
        pid_t expected = 0;
        if (g_groups[i].compare_exchange_strong(expected, pgid)) return i;
    }
    return -1;  // registry full: this child is still stopped by its Process, not by signals
}

void unregisterGroup(int slot) {
    if (slot >= 0) g_groups[slot].store(0);
}

void killRegistered(int sig) {  // async-signal-safe: atomics and kill() only
    for (int i = 0; i < kSlots; ++i) {
        pid_t pg = g_groups[i].load(std::memory_order_relaxed);
        if (pg > 0) ::kill(-pg, sig);
    }
}

extern "C" void eacuFatalSignalHandler(int sig) {
    int saved = errno;
    killRegistered(SIGTERM);
    // SA_RESETHAND restored the default disposition; SA_NODEFER lets raise() act at once.
    ::signal(sig, SIG_DFL);
    ::raise(sig);
    errno = saved;
}

extern "C" void eacuAtExitCleanup() { killRegistered(SIGTERM); }

double now() {
    using namespace std::chrono;
    return duration<double>(steady_clock::now().time_since_epoch()).count();
}

// Sleeps a growing step (0.5 ms .. 10 ms), never past `deadline` (< 0: no deadline).
void backoffSleep(double& step, double deadline) {
    double d = step;
    if (deadline >= 0) d = std::min(d, std::max(0.0, deadline - now()));
    std::this_thread::sleep_for(std::chrono::duration<double>(d));
    step = std::min(step * 2, 0.010);
}

void closeFd(int& fd) {
    if (fd >= 0) ::close(fd);
    fd = -1;
}

// What the child reports through the CLOEXEC pipe when it fails before/at exec.
struct ChildFailure {
    int stage;  // 1 = chdir, 2 = exec
    int err;
};

[[noreturn]] void childFail(int fd, int stage) {
    ChildFailure f{stage, errno};
    ssize_t r;
    do {
        r = ::write(fd, &f, sizeof f);
    } while (r < 0 && errno == EINTR);
    ::_exit(127);
}

}  // namespace

std::unique_ptr<Process> Process::spawn(const std::vector<std::string>& argv,
                                        const ProcessOptions& options) {
    if (argv.empty() || argv[0].empty())
        throw std::invalid_argument("Process::spawn: empty command line");
    std::call_once(g_atexit_once, [] { std::atexit(eacuAtExitCleanup); });

    // Everything the child needs is prepared before fork(): after fork only
    // async-signal-safe calls are allowed (the reader threads may hold malloc locks).
    std::vector<char*> cargv;
    for (const auto& a : argv) cargv.push_back(const_cast<char*>(a.c_str()));
    cargv.push_back(nullptr);

    std::vector<std::string> envStrings;
    for (char** e = environ; e && *e; ++e) {
        std::string_view kv(*e);
        std::string key(kv.substr(0, kv.find('=')));
        if (options.env.count(key)) continue;
        bool unset = false;
        for (const auto& u : options.unset_env) unset = unset || u == key;
        if (!unset) envStrings.emplace_back(kv);
    }
    for (const auto& [k, v] : options.env) envStrings.push_back(k + "=" + v);
    std::vector<char*> cenv;
    for (auto& s : envStrings) cenv.push_back(s.data());
    cenv.push_back(nullptr);

    const char* workdir = options.working_dir.empty() ? nullptr : options.working_dir.c_str();
    const int passFd = options.pass_fd;

    int execPipe[2] = {-1, -1}, outPipe[2] = {-1, -1}, errPipe[2] = {-1, -1};
    auto closeAll = [&] {
        for (int* p : {execPipe, outPipe, errPipe}) closeFd(p[0]), closeFd(p[1]);
    };
    if (::pipe2(execPipe, O_CLOEXEC) != 0 ||
        (options.capture_stdout && ::pipe2(outPipe, O_CLOEXEC) != 0) ||
        (options.stderr_mode == StderrMode::Capture && ::pipe2(errPipe, O_CLOEXEC) != 0)) {
        int e = errno;
        closeAll();
        throw std::runtime_error("cannot start \"" + argv[0] + "\": pipe: " + std::strerror(e));
    }
    int devNull = ::open("/dev/null", O_RDWR | O_CLOEXEC);
    if (devNull < 0) {
        int e = errno;
        closeAll();
        throw std::runtime_error("cannot start \"" + argv[0] + "\": /dev/null: " +
                                 std::strerror(e));
    }

    // Block signals across fork() so the child cannot run our handlers before exec.
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    const pid_t parent = ::getpid();
    const pid_t pid = ::fork();
    if (pid == 0) {
        // ---- child ----
        ::setpgid(0, 0);
        ::prctl(PR_SET_PDEATHSIG, SIGTERM);
        if (::getppid() != parent) ::_exit(127);  // the parent died before prctl()
        // The exec-error pipe moves above fd 3, which may be given to the child.
        int execFd = passFd >= 0 ? ::fcntl(execPipe[1], F_DUPFD_CLOEXEC, 10) : execPipe[1];
        ::dup2(devNull, 0);
        if (outPipe[1] >= 0) ::dup2(outPipe[1], 1);
        if (options.stderr_mode == StderrMode::Null) ::dup2(devNull, 2);
        if (errPipe[1] >= 0) ::dup2(errPipe[1], 2);
        if (workdir && ::chdir(workdir) != 0) childFail(execFd, 1);
        if (passFd == 3)
            ::fcntl(3, F_SETFD, 0);  // dup2 onto itself would keep close-on-exec
        else if (passFd >= 0)
            ::dup2(passFd, 3);
        for (int s : {SIGINT, SIGTERM, SIGHUP, SIGPIPE, SIGQUIT, SIGCHLD}) ::signal(s, SIG_DFL);
        sigset_t none;
        sigemptyset(&none);
        ::sigprocmask(SIG_SETMASK, &none, nullptr);
        ::execvpe(cargv[0], cargv.data(), cenv.data());
        childFail(execFd, 2);
    }
    int forkErr = errno;
    pthread_sigmask(SIG_SETMASK, &old, nullptr);
    ::close(devNull);
    if (pid < 0) {
        closeAll();
        throw std::runtime_error("cannot start \"" + argv[0] + "\": fork: " +
                                 std::strerror(forkErr));
    }
    ::setpgid(pid, pid);  // also done in the child; whichever runs first wins the race
    closeFd(execPipe[1]);
    closeFd(outPipe[1]);
    closeFd(errPipe[1]);

    ChildFailure failure{};
    ssize_t got;
    do {
        got = ::read(execPipe[0], &failure, sizeof failure);
    } while (got < 0 && errno == EINTR);
    closeFd(execPipe[0]);
    if (got > 0) {
        int st;
        while (::waitpid(pid, &st, 0) < 0 && errno == EINTR) {
        }
        closeAll();
        std::string what = "cannot start \"" + argv[0] + "\": ";
        if (failure.stage == 1)
            what += "cannot change directory to \"" + options.working_dir + "\": ";
        throw std::runtime_error(what + std::strerror(failure.err));
    }

    std::unique_ptr<Process> p(new Process());
    p->name_ = argv[0];
    p->pid_ = pid;
    p->registry_slot_ = registerGroup(pid);
    noteSpawnedGroup(pid);
    p->out_fd_ = outPipe[0];
    p->err_fd_ = errPipe[0];
    p->out_eof_ = p->out_fd_ < 0;
    p->err_eof_ = p->err_fd_ < 0;
    p->startReader();
    return p;
}

void Process::startReader() {
    if (out_fd_ < 0 && err_fd_ < 0) return;
    int w[2];
    if (::pipe2(w, O_CLOEXEC) != 0)
        throw std::runtime_error("Process: pipe: " + std::string(std::strerror(errno)));
    wake_r_ = w[0];
    wake_w_ = w[1];
    reader_ = std::thread([this] { readerLoop(); });
}

void Process::readerLoop() {
    char buf[65536];
    while (true) {
        pollfd fds[3];
        int n = 0;
        int outIdx = -1, errIdx = -1;
        {
            std::lock_guard lk(mu_);
            if (out_eof_ && err_eof_) return;
            if (!out_eof_) outIdx = n, fds[n++] = {out_fd_, POLLIN, 0};
            if (!err_eof_) errIdx = n, fds[n++] = {err_fd_, POLLIN, 0};
        }
        int wakeIdx = n;
        fds[n++] = {wake_r_, POLLIN, 0};
        int r = ::poll(fds, nfds_t(n), -1);
        if (r < 0) {
            if (errno == EINTR) continue;
            break;
        }
        if (fds[wakeIdx].revents) break;
        for (int idx : {outIdx, errIdx}) {
            if (idx < 0 || !fds[idx].revents) continue;
            ssize_t got = ::read(fds[idx].fd, buf, sizeof buf);
            if (got < 0 && (errno == EINTR || errno == EAGAIN)) continue;
            std::lock_guard lk(mu_);
            std::string& dst = idx == outIdx ? out_buf_ : err_buf_;
            if (got > 0) {
                dst.append(buf, size_t(got));
            } else {
                (idx == outIdx ? out_eof_ : err_eof_) = true;
            }
            cv_.notify_all();
        }
    }
    std::lock_guard lk(mu_);
    out_eof_ = err_eof_ = true;
    cv_.notify_all();
}

Process::~Process() {
    stop();
    if (reader_.joinable()) {
        // The group is dead, so the pipes normally hit EOF by themselves; the wake-up pipe
        // covers a grandchild that left the group while holding our pipe open.
        char c = 1;
        ssize_t r = ::write(wake_w_, &c, 1);
        (void)r;
        reader_.join();
    }
    closeFd(out_fd_);
    closeFd(err_fd_);
    closeFd(wake_r_);
    closeFd(wake_w_);
}

void Process::onReaped(int raw) {
    if (WIFEXITED(raw))
        status_ = WEXITSTATUS(raw);
    else if (WIFSIGNALED(raw))
        status_ = 128 + WTERMSIG(raw);
    else
        status_ = -1;
    unregisterGroup(registry_slot_);
    registry_slot_ = -1;
}

bool Process::tryReap(bool block) {
    if (status_) return true;
    int st = 0;
    while (true) {
        pid_t r = ::waitpid(pid_, &st, block ? 0 : WNOHANG);
        if (r == pid_) {
            onReaped(st);
            return true;
        }
        if (r == 0) return false;
        if (errno == EINTR) continue;
        // ECHILD: somebody else reaped it (e.g. SIGCHLD set to SIG_IGN); status unknown.
        status_ = -1;
        unregisterGroup(registry_slot_);
        registry_slot_ = -1;
        return true;
    }
}

bool Process::running() { return !tryReap(false); }

std::optional<int> Process::wait(double timeout_seconds) {
    if (timeout_seconds < 0) {
        tryReap(true);
        return status_;
    }
    const double deadline = now() + timeout_seconds;
    double step = 0.0005;
    while (!tryReap(false)) {
        if (now() >= deadline) return std::nullopt;
        backoffSleep(step, deadline);
    }
    return status_;
}

std::string Process::readStdout(double timeout_seconds) {
    std::unique_lock lk(mu_);
    auto deadline = std::chrono::steady_clock::now() +
                    std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                        std::chrono::duration<double>(std::max(0.0, timeout_seconds)));
    cv_.wait_until(lk, deadline, [&] { return out_eof_; });
    return std::exchange(out_buf_, std::string());
}

std::optional<std::string> Process::readLine(double timeout_seconds) {
    std::unique_lock lk(mu_);
    auto deadline = std::chrono::steady_clock::now() +
                    std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                        std::chrono::duration<double>(std::max(0.0, timeout_seconds)));
    cv_.wait_until(lk, deadline,
                   [&] { return out_eof_ || out_buf_.find('\n') != std::string::npos; });
    size_t nl = out_buf_.find('\n');
    if (nl != std::string::npos) {
        std::string line = out_buf_.substr(0, nl);
        out_buf_.erase(0, nl + 1);
        return line;
    }
    if (out_eof_ && !out_buf_.empty()) return std::exchange(out_buf_, std::string());
    return std::nullopt;
}

bool Process::stdoutClosed() const {
    std::lock_guard lk(mu_);
    return out_eof_;
}

bool Process::waitOutputClosed(double timeout_seconds) {
    std::unique_lock lk(mu_);
    auto deadline = std::chrono::steady_clock::now() +
                    std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                        std::chrono::duration<double>(std::max(0.0, timeout_seconds)));
    return cv_.wait_until(lk, deadline, [&] { return out_eof_ && err_eof_; });
}

std::string Process::stderrText() const {
    std::lock_guard lk(mu_);
    return err_buf_;
}

void Process::stop(double grace_seconds) {
    if (status_ || tryReap(false)) return;
    // The leader is not reaped yet, so the group id cannot have been recycled.
    ::kill(-pid_, SIGTERM);
    ::kill(-pid_, SIGCONT);  // a stopped process would not act on SIGTERM
    const double deadline = now() + std::max(0.0, grace_seconds);
    double step = 0.0005;
    bool exited = false;
    while (true) {
        siginfo_t info{};
        // WNOWAIT: look without reaping, so the group id stays ours for the SIGKILL below.
        if (::waitid(P_PID, id_t(pid_), &info, WEXITED | WNOHANG | WNOWAIT) == 0 &&
            info.si_pid == pid_) {
            exited = true;
            break;
        }
        if (now() >= deadline) break;
        backoffSleep(step, deadline);
    }
    if (!exited) ::kill(-pid_, SIGKILL);
    tryReap(true);
}

bool Process::waitGroupGone(double timeout_seconds) {
    if (!status_ && !tryReap(false)) return false;
    const double deadline = now() + std::max(0.0, timeout_seconds);
    double step = 0.0005;
    while (true) {
        if (::kill(-pid_, 0) != 0 && errno == ESRCH) return true;
        if (now() >= deadline) return false;
        backoffSleep(step, deadline);
    }
}

void Process::killAllChildren() { killRegistered(SIGTERM); }

bool spawnedGroup(pid_t pid) {
    for (int i = 0; i < kSlots; ++i)
        if (g_groups[i].load(std::memory_order_relaxed) == pid) return true;
    return false;
}

void Process::installSignalCleanup() {
    for (int sig : {SIGINT, SIGTERM, SIGHUP}) {
        struct sigaction old{};
        if (::sigaction(sig, nullptr, &old) == 0 && old.sa_handler == SIG_IGN) continue;
        struct sigaction sa{};
        sa.sa_handler = eacuFatalSignalHandler;
        sigemptyset(&sa.sa_mask);
        sa.sa_flags = SA_RESETHAND | SA_NODEFER;
        ::sigaction(sig, &sa, nullptr);
    }
}

}  // namespace eacu
