#include "task/ServeChannel.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <stdexcept>

#include "base/Clock.h"
#include "base/Utf8.h"
#include "task/StepError.h"

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
            {"ended_at", s.ended_at}};
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
}

ServeChannel::~ServeChannel() { ::close(fd_); }

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

void ServeChannel::drainStale() {
    char buf[4096];
    for (;;) {
        pollfd p{fd_, POLLIN, 0};
        if (::poll(&p, 1, 0) <= 0 || !(p.revents & POLLIN)) break;
        ssize_t n = ::read(fd_, buf, sizeof buf);
        if (n <= 0) break;  // an end of input is seen again by the wait
    }
    inbuf_.clear();
}

std::string ServeChannel::awaitAck(const std::string& kind, const std::string& text, const CancelToken& cancel) {
    std::lock_guard<std::mutex> lock(read_mu_);
    const std::string what = kind + " \"" + clipUtf8(text, 120) + "\"";
    if (broken_.load())
        throw StepError(failure::kBlocked, what + ": the serve channel is closed, nobody can answer (failing closed)");
    drainStale();
    if (!send({{"type", "awaiting_user"}, {"kind", kind}, {"text", text}}))
        throw StepError(failure::kBlocked, what + ": the serve channel is closed, nobody can answer (failing closed)");
    for (;;) {
        size_t nl;
        while ((nl = inbuf_.find('\n')) != std::string::npos) {
            std::string line = inbuf_.substr(0, nl);
            inbuf_.erase(0, nl + 1);
            if (!line.empty() && line.back() == '\r') line.pop_back();
            if (line.empty()) continue;
            json j = json::parse(line, nullptr, false);
            if (j.is_discarded() || !j.is_object() || !j.contains("type"))
                throw StepError(failure::kBlocked, what + ": expected an ack line {\"type\":\"ack\",\"text\":...} "
                                                          "from the server, got " + clipUtf8(line, 200));
            if (j["type"] != "ack") {
                std::fprintf(stderr, "eacu: serve channel: ignoring a %s line while waiting for an ack\n",
                             j["type"].dump().c_str());
                continue;
            }
            return j.contains("text") && j["text"].is_string() ? j["text"].get<std::string>() : std::string();
        }
        if (inbuf_.size() > kMaxLine)
            throw StepError(failure::kBlocked, what + ": expected an ack line from the server, got " +
                                                   std::to_string(inbuf_.size()) + " bytes without a newline");
        cancel.check();
        pollfd p{fd_, POLLIN, 0};
        int n = ::poll(&p, 1, 50);
        if (n < 0 && errno != EINTR) {
            markBroken(std::strerror(errno));
            throw StepError(failure::kBlocked, what + ": cannot read the serve channel: " + std::strerror(errno));
        }
        if (n <= 0) continue;
        char buf[4096];
        ssize_t got = ::read(fd_, buf, sizeof buf);
        if (got < 0 && (errno == EINTR || errno == EAGAIN)) continue;
        if (got <= 0) {
            markBroken("the server closed it");
            throw StepError(failure::kBlocked, what + ": the server closed the serve channel while the run waited "
                                                      "for the person (no ack came)");
        }
        inbuf_.append(buf, size_t(got));
    }
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
