// `eacu serve`'s HTTP and SSE request handling: a real HttpServer (cpp-httplib and every route
// of ours) on a loopback port of this process, with a ChatService on a run log of its own whose
// queue holds tasks without handing them out (tasks are accepted and stay queued: no worker
// starts an Xvfb or a program). Each input is sent as
// the raw bytes of one connection, prefixed by a few request lines chosen by its first byte
// (so that the fuzzer reaches every route with a well-formed start), and the answer is read
// until the server closes or 100 ms pass (an event stream stays open). Invariants: the server
// answers with an HTTP status line or closes; it never crashes and keeps answering /healthz.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cctype>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <cstdint>
#include <cstring>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>

#include "FuzzCommon.h"
#include "server/ChatService.h"
#include "server/HttpServer.h"
#include "server/ServiceStore.h"
#include "server/TaskQueue.h"

using namespace eacu;
using namespace eacu::server;

namespace {

// A queue that keeps what is pushed and never hands a task out (the worker waits forever).
class HeldQueue : public TaskQueue {
public:
    void push(int64_t id) override {
        std::lock_guard<std::mutex> l(mu_);
        ids_.insert(id);
    }
    std::optional<int64_t> pop(double timeout) override {
        std::unique_lock<std::mutex> l(mu_);
        cv_.wait_for(l, std::chrono::duration<double>(timeout), [&] { return closed_; });
        return std::nullopt;
    }
    bool remove(int64_t id) override {
        std::lock_guard<std::mutex> l(mu_);
        return ids_.erase(id) > 0;
    }
    size_t size() const override {
        std::lock_guard<std::mutex> l(mu_);
        return ids_.size();
    }
    void close() override {
        std::lock_guard<std::mutex> l(mu_);
        closed_ = true;
        cv_.notify_all();
    }

private:
    mutable std::mutex mu_;
    std::condition_variable cv_;
    std::set<int64_t> ids_;
    bool closed_ = false;
};

struct Served {
    ServeConfig cfg;  // ChatService keeps a reference to it
    std::unique_ptr<ServiceStore> store;
    std::unique_ptr<HeldQueue> queue;
    std::unique_ptr<ChatService> chat;
    std::unique_ptr<HttpServer> http;
    std::thread thread;
    int port = 0;
};

Served& served() {
    static Served* s = [] {
        auto* v = new Served;  // lives as long as the process (libFuzzer exits without unwinding)
        v->cfg.db = (fuzz::scratch() / "serve.db").string();
        v->cfg.workers = 1;
        v->cfg.allow_scripts = false;
        v->store = std::make_unique<ServiceStore>(v->cfg.db);
        v->queue = std::make_unique<HeldQueue>();
        v->chat = std::make_unique<ChatService>(*v->store, v->cfg, *v->queue);
        HttpOptions o;
        o.port = 0;
        o.heartbeat = 0.05;
        o.threads = 8;
        v->http = std::make_unique<HttpServer>(*v->chat, o);
        v->port = v->http->bind();
        v->thread = std::thread([v] { v->http->listen(); });
        return v;
    }();
    return *s;
}

// Whether `got` holds one whole HTTP response: its headers and, by Content-Length or the last
// chunk, its body.
bool complete(const std::string& got) {
    size_t end = got.find("\r\n\r\n");
    if (end == std::string::npos) return false;
    std::string head = got.substr(0, end);
    for (char& c : head) c = char(std::tolower(static_cast<unsigned char>(c)));
    size_t cl = head.find("\r\ncontent-length:");
    if (cl != std::string::npos) return got.size() >= end + 4 + std::strtoull(head.c_str() + cl + 17, nullptr, 10);
    if (head.find("transfer-encoding: chunked") != std::string::npos)
        return got.size() >= 5 && got.compare(got.size() - 5, 5, "0\r\n\r\n") == 0;
    return false;
}

// Sends `request` on a new connection to the server and returns what came back: one whole
// response, or what came before the server closed or `wait_seconds` passed (an event stream,
// a request the server still waits to complete).
std::string exchange(const std::string& request, double wait_seconds) {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0) fuzz::broken("socket() failed");
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(uint16_t(served().port));
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) fuzz::broken("the server refuses connections");
    (void)send(fd, request.data(), request.size(), MSG_NOSIGNAL);
    std::string got;
    char buf[4096];
    const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(wait_seconds);
    while (!complete(got)) {
        int left = int(std::chrono::duration_cast<std::chrono::milliseconds>(until - std::chrono::steady_clock::now()).count());
        pollfd p{fd, POLLIN, 0};
        if (left <= 0 || poll(&p, 1, left) <= 0) break;
        ssize_t n = recv(fd, buf, sizeof buf, 0);
        if (n <= 0) break;
        got.append(buf, size_t(n));
        if (got.size() > (1 << 20)) break;
    }
    close(fd);
    return got;
}

const char* const kStarts[] = {
    "",
    "GET / HTTP/1.1\r\nHost: x\r\n",
    "POST /api/chat/send HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n",
    "POST /api/chat/stop HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n",
    "POST /api/chat/ack-user-action HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n",
    "GET /api/chat/stream?session_id=1 HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\n",
    "GET /api/sessions HTTP/1.1\r\nHost: x\r\n",
    "POST /task HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n",
    "GET /api/frames/1 HTTP/1.1\r\nHost: x\r\n",
    "GET /task/1 HTTP/1.1\r\nHost: x\r\n",
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size == 0) return 0;
    std::string start = kStarts[data[0] % (sizeof kStarts / sizeof *kStarts)];
    std::string rest(reinterpret_cast<const char*>(data + 1), size - 1);
    std::string answer = exchange(start + rest, 0.02);
    if (!answer.empty() && answer.rfind("HTTP/1.1 ", 0) != 0) fuzz::broken("an answer that is not HTTP");
    static int n = 0;
    if (++n % 256 == 0) {
        std::string h = exchange("GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", 5);
        if (h.rfind("HTTP/1.1 200", 0) != 0) {
            std::fprintf(stderr, "GET /healthz answered: %s\n", h.substr(0, 300).c_str());
            fuzz::broken("the server stopped answering /healthz");
        }
    }
    return 0;
}
