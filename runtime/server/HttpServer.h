// `eacu serve`'s HTTP side (on HttpFront: the token rules, the page files): the chat page, seed 001's chat API with its SSE
// stream, seed 000's task API, frames as images, /healthz. One JSON error shape for every
// refusal: {"error": "..."} with a 4xx status.
#pragma once
#include <cstddef>
#include <memory>
#include <string>

#include "server/ChatService.h"
#include "server/HttpFront.h"

namespace eacu::server {

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
