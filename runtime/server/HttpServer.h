// `eacu serve`'s HTTP side (cpp-httplib): the chat page, seed 001's chat API with its SSE
// stream, seed 000's task API, frames as images, /healthz. One JSON error shape for every
// refusal: {"error": "..."} with a 4xx status.
#pragma once
#include <cstddef>
#include <memory>
#include <string>

#include "server/ChatService.h"

namespace eacu::server {

/// How the server listens. `token`: when set, every request needs `Authorization: Bearer
/// <token>` or `?access_token=<token>`. `max_body`: bytes (larger bodies get 413).
/// `heartbeat`: seconds between SSE comment lines on an idle stream.
struct HttpOptions {
    std::string host = "127.0.0.1";
    int port = 8765;
    std::string token;
    size_t max_body = 1 << 20;
    double heartbeat = 15.0;
    int threads = 64;  // request threads (each open event stream holds one)
};

/// True for a loopback address ("127.0.0.1" and the rest of 127/8, "::1", "localhost").
bool isLoopback(const std::string& host);

class HttpServer {
public:
    /// Throws std::invalid_argument when `options.host` is not loopback and there is no token
    /// (binding to other machines without a token is refused).
    HttpServer(ChatService& chat, HttpOptions options);
    ~HttpServer();
    HttpServer(const HttpServer&) = delete;
    HttpServer& operator=(const HttpServer&) = delete;

    /// Binds host:port (port 0: any free port) and returns the port. Throws std::runtime_error
    /// naming the address when it cannot bind.
    int bind();
    /// Serves until stop() (call bind() first). Returns false if the listener failed.
    bool listen();
    /// Ends every event stream and stops listen() (from any thread, or a signal's watcher).
    void stop();

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace eacu::server
