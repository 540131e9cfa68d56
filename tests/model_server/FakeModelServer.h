// A real HTTP/1.1 server on 127.0.0.1 (random free port) that speaks the Anthropic Messages API
// (POST /v1/messages) and OpenAI chat completions (POST /v1/chat/completions) from a script.
// Header-only, for tests. Every request is recorded (path, headers, JSON body, arrival time)
// so tests can check that it was well formed.
//
// It is written on POSIX sockets rather than cpp-httplib: Debian's libcpp-httplib-dev ships
// httplib.h as declarations only (the code is in libcpp-httplib.so, built with OpenSSL/zlib/
// brotli defines that must match), and the unit-test target does not link it. One connection
// per request (Connection: close), which is all libcurl needs.
#pragma once
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

namespace eacu::testing {

/// One scripted answer: status, body, extra headers, and a delay before answering (seconds).
struct FakeReply {
    FakeReply() = default;
    FakeReply(int status_, std::string body_, std::map<std::string, std::string> headers_ = {}, double delay = 0,
              std::string type = "application/json")
        : status(status_), body(std::move(body_)), headers(std::move(headers_)), delay_s(delay),
          content_type(std::move(type)) {}
    int status = 200;
    std::string body;
    std::map<std::string, std::string> headers;
    double delay_s = 0;
    std::string content_type = "application/json";
};

/// One received request; header() looks names up case-insensitively.
struct FakeRequest {
    std::string path;
    std::map<std::string, std::string> headers;  // names lower-cased
    std::string body;
    nlohmann::json json;  // discarded when the body is not JSON
    double t = 0;         // steady-clock seconds at arrival

    std::string header(std::string name) const {
        std::transform(name.begin(), name.end(), name.begin(), ::tolower);
        auto it = headers.find(name);
        return it == headers.end() ? "" : it->second;
    }
};

class FakeModelServer {
public:
    FakeModelServer() {
        listen_fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
        int one = 1;
        ::setsockopt(listen_fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
        sockaddr_in a{};
        a.sin_family = AF_INET;
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        a.sin_port = 0;  // the kernel picks a free port
        if (listen_fd_ < 0 || ::bind(listen_fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 ||
            ::listen(listen_fd_, 16) != 0)
            throw std::runtime_error("FakeModelServer: cannot listen on 127.0.0.1");
        socklen_t len = sizeof a;
        ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&a), &len);
        port_ = ntohs(a.sin_port);
        accept_thread_ = std::thread([this] { acceptLoop(); });
    }
    ~FakeModelServer() { stop(); }

    /// Stops serving: wakes delayed handlers, closes the socket, joins every thread. Idempotent.
    void stop() {
        {
            std::lock_guard<std::mutex> l(m_);
            if (stopping_) return;
            stopping_ = true;
        }
        cv_.notify_all();
        ::shutdown(listen_fd_, SHUT_RDWR);
        ::close(listen_fd_);
        if (accept_thread_.joinable()) accept_thread_.join();
        std::vector<std::thread> workers;
        {
            std::lock_guard<std::mutex> l(m_);
            workers.swap(workers_);
        }
        for (auto& t : workers) t.join();
    }

    int port() const { return port_; }
    /// "http://127.0.0.1:PORT" (the Anthropic base URL) — add "/v1" for OpenAI's.
    std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }

    /// Queues replies for a path ("/v1/messages", "/v1/chat/completions"), answered in order.
    void script(const std::string& path, FakeReply r) {
        std::lock_guard<std::mutex> l(m_);
        script_[path].push_back(std::move(r));
    }
    /// Answers every request not covered by the script (e.g. choose an element by content).
    void respond(std::function<FakeReply(const FakeRequest&)> f) {
        std::lock_guard<std::mutex> l(m_);
        responder_ = std::move(f);
    }

    std::vector<FakeRequest> requests() const {
        std::lock_guard<std::mutex> l(m_);
        return requests_;
    }
    size_t count() const {
        std::lock_guard<std::mutex> l(m_);
        return requests_.size();
    }
    /// Waits until at least `n` requests arrived, or `timeout_s` passed; returns whether they did.
    bool waitForRequests(size_t n, double timeout_s) {
        std::unique_lock<std::mutex> l(m_);
        return cv_.wait_for(l, std::chrono::duration<double>(timeout_s), [&] { return requests_.size() >= n; });
    }

    // ---- bodies in each API's shape

    static std::string anthropicText(const std::string& text, int in = 120, int out = 12) {
        return nlohmann::json{{"id", "msg_1"}, {"type", "message"}, {"role", "assistant"}, {"model", "claude-test"},
                              {"content", {{{"type", "text"}, {"text", text}}}}, {"stop_reason", "end_turn"},
                              {"usage", {{"input_tokens", in}, {"output_tokens", out},
                                         {"cache_read_input_tokens", 100}, {"cache_creation_input_tokens", 7}}}}
            .dump();
    }
    static std::string anthropicToolUse(const std::string& id, const std::string& name, const nlohmann::json& input) {
        return nlohmann::json{{"id", "msg_2"}, {"type", "message"}, {"role", "assistant"}, {"model", "claude-test"},
                              {"content", {{{"type", "text"}, {"text", "Clicking."}},
                                           {{"type", "tool_use"}, {"id", id}, {"name", name}, {"input", input}}}},
                              {"stop_reason", "tool_use"},
                              {"usage", {{"input_tokens", 50}, {"output_tokens", 20}}}}
            .dump();
    }
    static std::string anthropicError(const std::string& type, const std::string& message) {
        return nlohmann::json{{"type", "error"}, {"error", {{"type", type}, {"message", message}}}}.dump();
    }
    static std::string openaiText(const std::string& text) {
        return nlohmann::json{{"id", "chatcmpl-1"}, {"object", "chat.completion"}, {"model", "qwen-test"},
                              {"choices", {{{"index", 0}, {"message", {{"role", "assistant"}, {"content", text}}},
                                            {"finish_reason", "stop"}}}},
                              {"usage", {{"prompt_tokens", 80}, {"completion_tokens", 9}, {"total_tokens", 89}}}}
            .dump();
    }
    static std::string openaiToolCall(const std::string& id, const std::string& name, const std::string& arguments) {
        return nlohmann::json{
            {"id", "chatcmpl-2"}, {"object", "chat.completion"}, {"model", "qwen-test"},
            {"choices", {{{"index", 0},
                          {"message", {{"role", "assistant"}, {"content", nullptr},
                                       {"tool_calls", {{{"id", id}, {"type", "function"},
                                                        {"function", {{"name", name}, {"arguments", arguments}}}}}}}},
                          {"finish_reason", "tool_calls"}}}}}
            .dump();
    }
    static std::string openaiError(const std::string& message) {
        return nlohmann::json{{"error", {{"message", message}, {"type", "invalid_request_error"}}}}.dump();
    }

private:
    void acceptLoop() {
        for (;;) {
            int fd = ::accept(listen_fd_, nullptr, nullptr);
            std::lock_guard<std::mutex> l(m_);
            if (stopping_) {
                if (fd >= 0) ::close(fd);
                return;
            }
            if (fd < 0) continue;
            workers_.emplace_back([this, fd] {
                serve(fd);
                ::close(fd);
            });
        }
    }

    static const char* reason(int status) {
        switch (status) {
        case 200: return "OK";
        case 400: return "Bad Request";
        case 401: return "Unauthorized";
        case 429: return "Too Many Requests";
        case 500: return "Internal Server Error";
        case 502: return "Bad Gateway";
        case 503: return "Service Unavailable";
        default: return "Status";
        }
    }

    void serve(int fd) {
        timeval tv{5, 0};
        ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
        std::string in;
        char buf[65536];
        size_t head_end;
        while ((head_end = in.find("\r\n\r\n")) == std::string::npos) {
            ssize_t n = ::recv(fd, buf, sizeof buf, 0);
            if (n <= 0) return;
            in.append(buf, size_t(n));
        }
        FakeRequest r;
        std::string head = in.substr(0, head_end);
        size_t eol = head.find("\r\n");
        std::string line = head.substr(0, eol);
        size_t sp1 = line.find(' '), sp2 = line.find(' ', sp1 + 1);
        r.path = line.substr(sp1 + 1, sp2 - sp1 - 1);
        size_t pos = eol == std::string::npos ? head.size() : eol + 2;
        while (pos < head.size()) {
            size_t e = head.find("\r\n", pos);
            if (e == std::string::npos) e = head.size();
            std::string h = head.substr(pos, e - pos);
            size_t c = h.find(':');
            if (c != std::string::npos) {
                std::string name = h.substr(0, c), value = h.substr(c + 1);
                std::transform(name.begin(), name.end(), name.begin(), ::tolower);
                value.erase(0, value.find_first_not_of(' '));
                r.headers[name] = value;
            }
            pos = e + 2;
        }
        size_t want = r.headers.count("content-length") ? std::stoul(r.headers["content-length"]) : 0;
        r.body = in.substr(head_end + 4);
        while (r.body.size() < want) {
            ssize_t n = ::recv(fd, buf, sizeof buf, 0);
            if (n <= 0) return;
            r.body.append(buf, size_t(n));
        }
        r.json = nlohmann::json::parse(r.body, nullptr, false);
        r.t = std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();

        FakeReply reply;
        std::function<FakeReply(const FakeRequest&)> responder;
        bool scripted = false;
        {
            std::lock_guard<std::mutex> l(m_);
            requests_.push_back(r);
            auto it = script_.find(r.path);
            if (it != script_.end() && !it->second.empty()) {
                reply = it->second.front();
                it->second.pop_front();
                scripted = true;
            }
            responder = responder_;
        }
        cv_.notify_all();
        if (!scripted) {
            if (responder) reply = responder(r);
            else reply = FakeReply{500, anthropicError("api_error", "no scripted reply for " + r.path), {}, 0};
        }
        if (reply.delay_s > 0) {
            std::unique_lock<std::mutex> l(m_);
            cv_.wait_for(l, std::chrono::duration<double>(reply.delay_s), [&] { return stopping_; });
            if (stopping_) return;
        }
        std::string out = "HTTP/1.1 " + std::to_string(reply.status) + " " + reason(reply.status) + "\r\n";
        out += "Content-Type: " + reply.content_type + "\r\n";
        out += "Content-Length: " + std::to_string(reply.body.size()) + "\r\n";
        out += "Connection: close\r\n";
        for (const auto& [k, v] : reply.headers) out += k + ": " + v + "\r\n";
        out += "\r\n" + reply.body;
        for (size_t off = 0; off < out.size();) {
            ssize_t n = ::send(fd, out.data() + off, out.size() - off, MSG_NOSIGNAL);
            if (n <= 0) return;
            off += size_t(n);
        }
    }

    int listen_fd_ = -1;
    std::thread accept_thread_;
    std::vector<std::thread> workers_;
    int port_ = 0;
    mutable std::mutex m_;
    std::condition_variable cv_;
    bool stopping_ = false;
    std::map<std::string, std::deque<FakeReply>> script_;
    std::function<FakeReply(const FakeRequest&)> responder_;
    std::vector<FakeRequest> requests_;
};

}  // namespace eacu::testing
