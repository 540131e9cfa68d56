// guardDescendants: a subreaper and a watcher process, so that nothing eacu started outlives it.
#include "process/DescendantGuard.h"

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>


namespace eacu {

namespace {

int g_note_fd = -1;  // the write end of the watcher's pipe

struct ProcEntry {
    pid_t pid = 0, ppid = 0, pgid = 0;
    unsigned long long start = 0;  // start time, clock ticks since boot (field 22 of stat)
    char state = '?';
};

// Fields of /proc/PID/stat; false when the process is gone.
bool readStat(pid_t pid, ProcEntry& e) {
    char path[64];
    std::snprintf(path, sizeof path, "/proc/%d/stat", int(pid));
    int fd = ::open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return false;
    char buf[1024];
    ssize_t n = ::read(fd, buf, sizeof buf - 1);
    ::close(fd);
    if (n <= 0) return false;
    buf[n] = 0;
    const char* rp = std::strrchr(buf, ')');  // the command name may hold spaces and ')'
    if (!rp) return false;
    std::istringstream in(rp + 2);
    std::string skip;
    long ppid = 0, pgid = 0;
    in >> e.state >> ppid >> pgid;
    for (int field = 6; field < 22 && in; ++field) in >> skip;  // session .. itrealvalue
    in >> e.start;
    if (!in) return false;
    e.pid = pid;
    e.ppid = pid_t(ppid);
    e.pgid = pid_t(pgid);
    return true;
}

std::vector<ProcEntry> allProcesses() {
    std::vector<ProcEntry> out;
    DIR* d = ::opendir("/proc");
    if (!d) return out;
    while (dirent* de = ::readdir(d)) {
        char* end = nullptr;
        long pid = std::strtol(de->d_name, &end, 10);
        if (pid <= 0 || *end) continue;
        ProcEntry e;
        if (readStat(pid_t(pid), e)) out.push_back(e);
    }
    ::closedir(d);
    return out;
}

// The watcher: records the owner's descendants until the owner is gone, then ends them.
[[noreturn]] void watch(int rd, pid_t owner) {
    const pid_t self = ::getpid();
    std::map<pid_t, ProcEntry> seen;  // descendants recorded, by pid
    std::set<pid_t> groups;           // process groups the owner spawned
    std::string partial;
    for (;;) {
        pollfd p{rd, POLLIN, 0};
        int r = ::poll(&p, 1, 250);
        if (r < 0 && errno != EINTR) break;
        if (r > 0) {
            char buf[4096];
            ssize_t n = ::read(rd, buf, sizeof buf);
            if (n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN)) break;  // owner gone
            if (n > 0) {
                partial.append(buf, size_t(n));
                size_t whole = partial.size() / sizeof(pid_t) * sizeof(pid_t);
                for (size_t i = 0; i < whole; i += sizeof(pid_t)) {
                    pid_t g;
                    std::memcpy(&g, partial.data() + i, sizeof g);
                    if (g > 1) groups.insert(g);
                }
                partial.erase(0, whole);
            }
        }
        std::vector<ProcEntry> procs = allProcesses();
        // A group with no member left is gone for good: forget it before its number is reused.
        std::set<pid_t> live_groups;
        for (const auto& e : procs) live_groups.insert(e.pgid);
        std::erase_if(groups, [&](pid_t g) { return !live_groups.count(g); });
        std::multimap<pid_t, const ProcEntry*> kids;
        for (const auto& e : procs) kids.emplace(e.ppid, &e);
        std::map<pid_t, ProcEntry> now;
        std::vector<pid_t> todo{owner};
        while (!todo.empty()) {
            pid_t at = todo.back();
            todo.pop_back();
            auto [b, e] = kids.equal_range(at);
            for (auto it = b; it != e; ++it) {
                const ProcEntry& k = *it->second;
                if (k.pid == self || now.count(k.pid)) continue;
                now[k.pid] = k;
                todo.push_back(k.pid);
            }
        }
        // Keep the ones still alive as recorded (an orphan re-parented away stays recorded).
        for (const auto& e : procs) {
            auto it = seen.find(e.pid);
            if (it != seen.end() && it->second.start == e.start) now.emplace(e.pid, it->second);
        }
        seen.swap(now);
    }

    // The owner is gone: end what it started. Targets: recorded descendants (same start time),
    // members of its groups and of groups a recorded descendant led, and their descendants.
    std::set<pid_t> led;
    for (const auto& [pid, e] : seen)
        if (e.pgid == pid) led.insert(pid);
    auto targets = [&] {
        std::vector<ProcEntry> procs = allProcesses();
        std::set<pid_t> hit;
        for (const auto& e : procs) {
            if (e.pid == self || e.pid == 1 || e.state == 'Z') continue;
            auto it = seen.find(e.pid);
            if ((it != seen.end() && it->second.start == e.start) || groups.count(e.pgid) || led.count(e.pgid))
                hit.insert(e.pid);
        }
        for (bool grew = true; grew;) {  // and whatever those started since the last look
            grew = false;
            for (const auto& e : procs)
                if (e.state != 'Z' && e.pid != self && hit.count(e.ppid) && hit.insert(e.pid).second) grew = true;
        }
        return hit;
    };
    for (pid_t pid : targets()) ::kill(pid, SIGTERM);
    auto until = std::chrono::steady_clock::now() + std::chrono::seconds(2);
    std::set<pid_t> left = targets();
    while (!left.empty() && std::chrono::steady_clock::now() < until) {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        left = targets();
    }
    for (pid_t pid : left) ::kill(pid, SIGKILL);
    ::_exit(0);
}

// The owner's reaper of adopted children: zombies among its children that are not process
// groups it spawned (those are reaped by their Process) nor in its own group (children that
// libraries start, reaped by them).
[[noreturn]] void reapAdopted() {
    const pid_t self = ::getpid();
    for (;;) {
        std::this_thread::sleep_for(std::chrono::seconds(1));
        std::set<pid_t> children;
        if (DIR* d = ::opendir("/proc/self/task")) {
            while (dirent* de = ::readdir(d)) {
                if (de->d_name[0] == '.') continue;
                std::ifstream in(std::string("/proc/self/task/") + de->d_name + "/children");
                for (long pid; in >> pid;) children.insert(pid_t(pid));
            }
            ::closedir(d);
        }
        const pid_t ownGroup = ::getpgrp();
        for (pid_t pid : children) {
            ProcEntry e;
            if (!readStat(pid, e) || e.state != 'Z' || e.ppid != self) continue;
            if (e.pgid == ownGroup || spawnedGroup(pid)) continue;
            ::waitpid(pid, nullptr, WNOHANG);
        }
    }
}

}  // namespace

void guardDescendants() {
    static bool done = false;
    if (done) return;
    done = true;
    if (::prctl(PR_SET_CHILD_SUBREAPER, 1) != 0)
        std::fprintf(stderr, "eacu: cannot become a subreaper (%s): orphans of its programs may outlive it\n",
                     std::strerror(errno));
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) {
        std::fprintf(stderr, "eacu: no watcher of its programs (pipe: %s)\n", std::strerror(errno));
        return;
    }
    const pid_t owner = ::getpid();
    const pid_t w = ::fork();
    if (w < 0) {
        std::fprintf(stderr, "eacu: no watcher of its programs (fork: %s)\n", std::strerror(errno));
        ::close(fds[0]);
        ::close(fds[1]);
        return;
    }
    if (w == 0) {
        ::prctl(PR_SET_NAME, "eacu-guard");
        // It outlives the owner on purpose: no signal a terminal or a group kill sends ends it
        // before it has done its job; the pipe's end of file does.
        for (int s : {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE}) ::signal(s, SIG_IGN);
        ::dup2(fds[0], 3);
        int null = ::open("/dev/null", O_RDWR);
        for (int fd : {0, 1, 2}) ::dup2(null, fd);
        ::close_range(4, ~0U, 0);
        watch(3, owner);
    }
    ::close(fds[0]);
    ::fcntl(fds[1], F_SETFL, O_NONBLOCK);  // a full pipe drops a note, never blocks a spawn
    g_note_fd = fds[1];
    // The reaper thread takes no asynchronous signal: it starts with every signal blocked, so
    // SIGTERM and SIGINT reach the threads that wait for them (serve's and worker's sigwait,
    // the run's handlers) instead of ending the process with their default action here.
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    std::thread(reapAdopted).detach();
    pthread_sigmask(SIG_SETMASK, &old, nullptr);
}

void noteSpawnedGroup(pid_t pgid) {
    if (g_note_fd < 0) return;
    ssize_t n = ::write(g_note_fd, &pgid, sizeof pgid);
    (void)n;
}

}  // namespace eacu
