// The HTTP side every page of eacu shares (eacu serve's chat page, eacu studio): cpp-httplib
// listening on host:port, the token rules (loopback without one; a token for any other host;
// the token to an HttpOnly cookie on the page's first load), one JSON error shape for every
// refusal ({"error": "..."} with a 4xx status), the page's embedded files at / and /NAME.
#pragma once
#include <httplib.h>

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "server/ApiError.h"
#include "server/ServiceStore.h"

namespace eacu::server {

/// How the server listens. `token`: when set, every request needs `Authorization: Bearer
/// <token>` or `?access_token=<token>` (or the cookie the first such load sets). `max_body`:
/// bytes (larger bodies get 413). `heartbeat`: seconds between SSE comment lines on an idle
/// stream.
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

/// A page's files by name ("index.html", "app.js"): PageFiles.h's pageFile, or the studio's.
/// Throws std::out_of_range for a name it does not have.
using PageSource = std::function<std::string_view(std::string_view)>;

/// One listening HTTP server with the token rules and the page's files; the caller adds its
/// routes on server() before bind().
class HttpFront {
public:
    /// `owner_only(req)`: an unauthorised request it holds true for gets 403 (the person's
    /// screen: take-over, input) instead of 401 with WWW-Authenticate. Throws
    /// std::invalid_argument when `options.host` is not loopback and there is no token.
    HttpFront(HttpOptions options, PageSource pages, std::function<bool(const httplib::Request&)> owner_only = {});
    ~HttpFront();
    HttpFront(const HttpFront&) = delete;
    HttpFront& operator=(const HttpFront&) = delete;

    /// Where routes are added.
    httplib::Server& server() { return svr_; }
    const HttpOptions& options() const { return options_; }
    /// True once stop() was called: event streams end.
    bool stopping() const { return stopping_.load(); }

    /// Binds host:port (port 0: any free port) and returns the port. Throws std::runtime_error
    /// naming the address when it cannot bind.
    int bind();
    /// Serves until stop() (call bind() first). Returns false if the listener failed.
    bool listen();
    /// Stops listen() (from any thread, or a signal's watcher); idempotent.
    void stop();

    /// Runs `f`, turning ApiError into its status and other exceptions into 500, as JSON.
    template <class F>
    static void guarded(httplib::Response& res, F&& f) {
        try {
            f();
        } catch (const ApiError& e) {
            sendError(res, e.status, e.what());
        } catch (const std::exception& e) {
            sendError(res, 500, e.what());
        }
    }
    /// `body` as JSON with `status` (invalid UTF-8 becomes U+FFFD).
    static void sendJson(httplib::Response& res, int status, const nlohmann::json& body);
    /// {"error": message} with `status`.
    static void sendError(httplib::Response& res, int status, const std::string& message);

private:
    bool authorized(const httplib::Request& req) const;
    bool urlToken(const httplib::Request& req) const;

    HttpOptions options_;
    PageSource pages_;
    std::function<bool(const httplib::Request&)> owner_only_;
    httplib::Server svr_;
    std::atomic<bool> stopping_{false};
};

/// The request's body as a JSON object. Throws ApiError 400 naming what came instead.
nlohmann::json bodyObject(const httplib::Request& req);
/// The string field `key` of `body`. Throws ApiError 400 when it is missing or not a string.
std::string stringField(const nlohmann::json& body, const char* key);
/// A live frame as one SSE event `screen.live` (data: {task_id, time, seq, image (a JPEG data
/// URL), width, height, cursor_x, cursor_y}).
std::string liveEventText(const LiveFrame& f);

}  // namespace eacu::server
