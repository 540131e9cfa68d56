#include "run/ServeChannel.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <stdexcept>

#include "base/Clock.h"
#include "base/Utf8.h"
#include "step/StepError.h"

namespace eacu {

using json = nlohmann::json;

namespace {

constexpr double kWriteTimeout = 5.0;      // seconds a line may wait for a peer that does not read
constexpr size_t kMaxLine = 1 << 20;       // longest line accepted from the server
constexpr const char* kDefaultAck = "我已经操作";

std::string firstLineOf(const std::string& s) { return s.substr(0, s.find('\n')); }

json optInt(const std::optional<int64_t>& v) { return v ? json(*v) : json(nullptr); }

}  // namespace

json stepJson(const StepRecord& s) {
    json params = json::parse(s.params_json.empty() ? "{}" : s.params_json, nullptr, false);
    if (params.is_discarded() || !params.is_object()) params = json::object();
    return {{"id", s.id},
            {"idx", s.idx},
            {"parent_id", optInt(s.parent_id)},
            {"action", s.action},
            {"target", s.target},
            {"method", s.method},
            {"status", s.status},
            {"error", s.error},
            {"input", s.input ? json{s.input->x, s.input->y} : json(nullptr)},
            {"box", s.box ? json{s.box->x, s.box->y, s.box->w, s.box->h} : json(nullptr)},
            {"frame_before", optInt(s.frame_before)},
            {"frame_after", optInt(s.frame_after)},
            {"params", params},
            {"started_at", s.started_at},
            {"ended_at", s.ended_at},
            {"actor", s.actor.empty() ? std::string("script") : s.actor}};
}

int serveFdFromArg(const std::string& value) {
    size_t used = 0;
    int fd = -1;
    try {
        fd = std::stoi(value, &used);
    } catch (const std::exception&) {
        used = 0;
    }
    if (used != value.size() || value.empty() || fd < 0)
        throw std::invalid_argument("--serve-fd expects a file descriptor number (e.g. 3), got \"" + value + "\"");
    if (::fcntl(fd, F_GETFD) < 0)
        throw std::invalid_argument("--serve-fd " + value + ": descriptor " + value +
                                    " is not open (the server passes one end of a socketpair as it)");
    return fd;
}

ServeChannel::ServeChannel(int fd) : fd_(fd) {
    if (fd < 0 || ::fcntl(fd, F_GETFD) < 0)
        throw std::invalid_argument("serve channel: expected an open file descriptor, got " + std::to_string(fd));
    ::fcntl(fd, F_SETFD, FD_CLOEXEC);  // programs the run launches do not inherit it
    reader_ = std::thread([this] { readLoop(); });
}

ServeChannel::~ServeChannel() {
    quit_ = true;
    if (reader_.joinable()) reader_.join();
    ::close(fd_);
}

void ServeChannel::setInputHandler(InputHandler h) {
    std::lock_guard<std::mutex> lock(mu_);
    input_handler_ = std::move(h);
}

void ServeChannel::setStopHandler(std::function<void(const std::string&)> h) {
    std::lock_guard<std::mutex> lock(mu_);
    stop_handler_ = std::move(h);
}

void ServeChannel::markBroken(const std::string& why) {
    if (!broken_.exchange(true)) std::fprintf(stderr, "eacu: the serve channel is gone (%s); the run goes on\n", why.c_str());
}

bool ServeChannel::send(const json& line) {
    std::lock_guard<std::mutex> lock(write_mu_);
    if (ended_) return false;
    return writeLine(line);
}

bool ServeChannel::writeLine(const json& line) {
    if (broken_.load()) return false;
    const std::string data = line.dump(-1, ' ', false, json::error_handler_t::replace) + "\n";
    const double deadline = monotonicSeconds() + kWriteTimeout;
    size_t off = 0;
    bool socket = true;
    while (off < data.size()) {
        ssize_t n = socket ? ::send(fd_, data.data() + off, data.size() - off, MSG_NOSIGNAL | MSG_DONTWAIT)
                           : ::write(fd_, data.data() + off, data.size() - off);
        if (n > 0) {
            off += size_t(n);
            continue;
        }
        if (n < 0 && errno == ENOTSOCK && socket) {
            socket = false;
            continue;
        }
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            double left = deadline - monotonicSeconds();
            if (left <= 0) {
                markBroken("the server did not read for " + std::to_string(int(kWriteTimeout)) + " s");
                return false;
            }
            pollfd p{fd_, POLLOUT, 0};
            ::poll(&p, 1, int(left * 1000) + 1);
            continue;
        }
        markBroken(n < 0 ? std::strerror(errno) : "nothing written");
        return false;
    }
    return true;
}

void ServeChannel::readLoop() {
    std::string buf;
    char chunk[4096];
    while (!quit_) {
        pollfd p{fd_, POLLIN, 0};
        int n = ::poll(&p, 1, 50);
        if (n < 0 && errno != EINTR) break;
        if (n <= 0) continue;
        busy_ = true;
        ssize_t got = ::read(fd_, chunk, sizeof chunk);
        if (got < 0 && (errno == EINTR || errno == EAGAIN)) {
            busy_ = false;
            continue;
        }
        if (got <= 0) {
            std::lock_guard<std::mutex> lock(mu_);
            closed_ = true;
            busy_ = false;
            cv_.notify_all();
            break;
        }
        buf.append(chunk, size_t(got));
        for (size_t nl; (nl = buf.find('\n')) != std::string::npos;) {
            std::string line = buf.substr(0, nl);
            buf.erase(0, nl + 1);
            if (!line.empty() && line.back() == '\r') line.pop_back();
            if (!line.empty()) onLine(line);
        }
        if (buf.size() > kMaxLine) {
            onLine(buf.substr(0, 200) + "... (" + std::to_string(buf.size()) + " bytes without a newline)");
            buf.clear();
        }
        busy_ = false;
    }
}

void ServeChannel::onLine(const std::string& line) {
    json j = json::parse(line, nullptr, false);
    std::unique_lock<std::mutex> lock(mu_);
    if (j.is_discarded() || !j.is_object() || !j.contains("type") || !j["type"].is_string()) {
        if (waiting_ != Wait::None) bad_line_ = line;
        else std::fprintf(stderr, "eacu: serve channel: ignoring a line that is not a protocol line: %s\n",
                          clipUtf8(line, 200).c_str());
        cv_.notify_all();
        return;
    }
    const std::string type = j["type"];
    if (type == "ack") {
        // An ack while nobody waits is left over from an earlier wait: discarded.
        if (waiting_ != Wait::None) ack_ = j.contains("text") && j["text"].is_string() ? j["text"].get<std::string>() : "";
    } else if (type == "take_over") {
        // Kept until the run's next step boundary (also when it came during a wait for the
        // person, just before its ack: the run pauses right after that wait).
        if (waiting_ != Wait::Paused) take_over_ = true;
    } else if (type == "hand_back") {
        if (waiting_ == Wait::Paused) hand_back_ = true;
        take_over_ = false;
    } else if (type == "input") {
        if (waiting_ != Wait::None) {
            inputs_.push_back(std::move(j));
        } else {
            json seq = j.value("seq", json());
            lock.unlock();
            send({{"type", "input_refused"}, {"seq", seq},
                  {"reason", "the run neither awaits the person nor is taken over"}});
            return;
        }
    } else if (type == "lease") {
        // Seconds left, not a time: the two machines' clocks need not agree.
        if (j.contains("seconds") && j["seconds"].is_number()) lease_until_ = monotonicSeconds() + j["seconds"].get<double>();
        return;
    } else if (type == "stop") {
        auto h = stop_handler_;
        lock.unlock();
        if (h) h(j.contains("reason") && j["reason"].is_string() ? j["reason"].get<std::string>() : "stopped by the server");
        return;
    } else {
        std::fprintf(stderr, "eacu: serve channel: ignoring a %s line\n", j["type"].dump().c_str());
        return;
    }
    cv_.notify_all();
}

void ServeChannel::performInput(const json& line) {
    json seq = line.value("seq", json());
    InputHandler h;
    {
        std::lock_guard<std::mutex> lock(mu_);
        h = input_handler_;
    }
    try {
        checkLease();
        if (!h) throw std::runtime_error("this run takes no input from the page");
        const json& event = line.contains("event") ? line["event"] : json();
        if (!event.is_object())
            throw std::invalid_argument("expected \"event\" to be an object {kind, x, y, ...}, got " + event.dump());
        json step = h(event);
        send({{"type", "input_done"}, {"seq", seq}, {"step", step}});
    } catch (const Cancelled& e) {
        send({{"type", "input_refused"}, {"seq", seq}, {"reason", std::string("the run stopped: ") + e.what()}});
        throw;
    } catch (const std::exception& e) {
        send({{"type", "input_refused"}, {"seq", seq}, {"reason", e.what()}});
    }
}

std::string ServeChannel::serveWait(Wait kind, const std::string& what, const json& first, const CancelToken& cancel) {
    std::lock_guard<std::mutex> one(wait_mu_);
    if (broken_.load())
        throw StepError(failure::kBlocked, what + ": the serve channel is closed, nobody can answer (failing closed)");
    // Lines that came before the wait (a second ack of an earlier one) are stale: let the reader
    // take in what is already readable, then forget it.
    const double settle_end = monotonicSeconds() + 0.2;
    for (int avail = 0; monotonicSeconds() < settle_end;) {
        if (::ioctl(fd_, FIONREAD, &avail) != 0) avail = 0;
        if (avail <= 0 && !busy_) break;
        CancelToken().sleep(0.002);
    }
    std::unique_lock<std::mutex> lock(mu_);
    ack_.reset();
    hand_back_ = false;
    bad_line_.clear();
    inputs_.clear();
    waiting_ = kind;
    struct Reset {
        ServeChannel* c;
        ~Reset() {
            c->waiting_ = Wait::None;
            c->inputs_.clear();
        }
    };
    lock.unlock();
    if (!send(first)) {
        lock.lock();
        waiting_ = Wait::None;
        throw StepError(failure::kBlocked, what + ": the serve channel is closed, nobody can answer (failing closed)");
    }
    lock.lock();
    Reset reset{this};  // runs with mu_ held (declared after the lock)
    for (;;) {
        cv_.wait_for(lock, std::chrono::milliseconds(50), [&] {
            return !inputs_.empty() || ack_ || hand_back_ || closed_ || !bad_line_.empty();
        });
        if (!inputs_.empty()) {
            json in = std::move(inputs_.front());
            inputs_.pop_front();
            lock.unlock();
            try {
                performInput(in);
            } catch (...) {
                lock.lock();
                throw;
            }
            lock.lock();
            continue;
        }
        if (ack_) return *ack_;
        if (kind == Wait::Paused && hand_back_) return "";
        if (!bad_line_.empty())
            throw StepError(failure::kBlocked, what + ": expected an ack line {\"type\":\"ack\",\"text\":...} "
                                                      "from the server, got " + clipUtf8(bad_line_, 200));
        if (closed_) {
            lock.unlock();
            markBroken("the server closed it");
            lock.lock();
            throw StepError(failure::kBlocked, what + ": the server closed the serve channel while the run waited "
                                                      "for the person (no ack came)");
        }
        lock.unlock();
        try {
            cancel.check();
        } catch (...) {
            lock.lock();
            throw;
        }
        lock.lock();
    }
}

void ServeChannel::checkLease() {
    const double until = lease_until_.load();
    // Once lost, lost for good: the task may be another worker's by now, whatever comes later.
    if (!lease_lost_.load() && (until <= 0 || monotonicSeconds() < until)) return;
    const std::string why = "lost the lease: the worker did not renew it in time (it ran out " +
                            std::to_string(int((monotonicSeconds() - until) * 1000)) + " ms ago): no further input";
    if (!lease_lost_.exchange(true)) {
        std::fprintf(stderr, "eacu: %s\n", why.c_str());
        std::function<void(const std::string&)> h;
        {
            std::lock_guard<std::mutex> lock(mu_);
            h = stop_handler_;
        }
        if (h) h(why);
    }
    throw Cancelled(why, false);
}

bool ServeChannel::checkpoint(const CancelToken& cancel) {
    checkLease();
    {
        std::lock_guard<std::mutex> lock(mu_);
        if (!take_over_ || waiting_ != Wait::None) return false;
        take_over_ = false;
    }
    serveWait(Wait::Paused, "taken over", {{"type", "paused"}}, cancel);
    send({{"type", "resumed"}});
    return true;
}

void ServeChannel::run(int64_t run_id) { send({{"type", "run"}, {"run_id", run_id}}); }

void ServeChannel::intent(const std::string& text) {
    if (!text.empty()) send({{"type", "intent"}, {"text", text}});
}

void ServeChannel::step(const StepRecord& s) { send({{"type", "step"}, {"step", stepJson(s)}}); }

void ServeChannel::answer(const std::string& text) {
    std::lock_guard<std::mutex> lock(write_mu_);
    if (answered_ || ended_) return;
    answered_ = true;
    writeLine({{"type", "answer"}, {"text", text}});
}

void ServeChannel::end(const std::string& status, const std::string& error) {
    std::lock_guard<std::mutex> lock(write_mu_);
    if (ended_) return;  // the run's thread and its watchdog may both end it: one end line
    ended_ = true;
    writeLine({{"type", "end"}, {"status", status}, {"error", firstLineOf(error)}});
}

std::string ServeChannel::awaitAck(const std::string& kind, const std::string& text, const CancelToken& cancel) {
    return serveWait(Wait::Person, kind + " \"" + clipUtf8(text, 120) + "\"",
                     {{"type", "awaiting_user"}, {"kind", kind}, {"text", text}}, cancel);
}

std::string ServeChannel::confirm(const std::string& what, const CancelToken& cancel) {
    try {
        awaitAck("confirm", what, cancel);
        return "";
    } catch (const StepError& e) {
        return e.what();
    }
}

std::string ServeChannel::ask(const std::string& text, const CancelToken& cancel) {
    return awaitAck("ask", text, cancel);
}

std::string ServeChannel::awaitAction(const std::string& kind, const std::string& text, const CancelToken& cancel) {
    std::string ack = awaitAck(kind, text, cancel);
    return ack.empty() ? std::string(kDefaultAck) : ack;
}

}  // namespace eacu
