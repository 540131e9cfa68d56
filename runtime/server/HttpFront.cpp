#include "server/HttpFront.h"

#include <sys/socket.h>

#include <stdexcept>

using nlohmann::json;

namespace eacu::server {
namespace {

const char* contentTypeOf(const std::string& name) {
    auto ends = [&](const char* ext) {
        std::string e(ext);
        return name.size() >= e.size() && name.compare(name.size() - e.size(), e.size(), e) == 0;
    };
    if (ends(".html")) return "text/html; charset=utf-8";
    if (ends(".css")) return "text/css; charset=utf-8";
    if (ends(".js")) return "text/javascript; charset=utf-8";
    if (ends(".svg")) return "image/svg+xml";
    if (ends(".png")) return "image/png";
    return "application/octet-stream";
}

// The cookie that carries the token after the page's first load.
constexpr const char* kTokenCookie = "eacu_token";

// The value of cookie `name` in a Cookie header ("a=1; eacu_token=T"), "" when absent.
std::string cookieValue(const std::string& header, const std::string& name) {
    size_t pos = 0;
    while (pos < header.size()) {
        size_t end = header.find(';', pos);
        if (end == std::string::npos) end = header.size();
        std::string part = header.substr(pos, end - pos);
        size_t a = part.find_first_not_of(' ');
        if (a != std::string::npos) part = part.substr(a);
        if (part.size() > name.size() && part.compare(0, name.size(), name) == 0 && part[name.size()] == '=')
            return part.substr(name.size() + 1);
        pos = end + 1;
    }
    return "";
}

}  // namespace

bool isLoopback(const std::string& host) {
    return host == "localhost" || host == "::1" || host.rfind("127.", 0) == 0;
}

void HttpFront::sendJson(httplib::Response& res, int status, const json& body) {
    res.status = status;
    // Invalid UTF-8 (a request path of any bytes, echoed in "no route ...") becomes U+FFFD:
    // a strict dump would throw from cpp-httplib's error handler and end the process.
    res.set_content(body.dump(-1, ' ', false, json::error_handler_t::replace), "application/json; charset=utf-8");
}

void HttpFront::sendError(httplib::Response& res, int status, const std::string& message) {
    sendJson(res, status, {{"error", message}});
}

json bodyObject(const httplib::Request& req) {
    json j = json::parse(req.body, nullptr, false);
    if (j.is_discarded())
        throw ApiError(400, "expected a JSON object body, got malformed JSON (" + std::to_string(req.body.size()) +
                                " bytes)");
    if (!j.is_object()) throw ApiError(400, std::string("expected a JSON object body, got a JSON ") + j.type_name());
    return j;
}

std::string stringField(const json& body, const char* key) {
    auto it = body.find(key);
    if (it == body.end()) throw ApiError(400, std::string("expected \"") + key + "\" (a string)");
    if (!it->is_string()) throw ApiError(400, std::string("expected \"") + key + "\" to be a string, got " + it->dump());
    return it->get<std::string>();
}

std::string liveEventText(const LiveFrame& f) {
    json d{{"task_id", f.task_id},
           {"time", f.time},
           {"seq", f.seq},
           {"image", "data:image/jpeg;base64," + f.jpeg_base64},
           {"width", f.width},
           {"height", f.height},
           {"cursor_x", f.cursor_x},
           {"cursor_y", f.cursor_y},
           {"marked", f.marked}};
    return "event: screen.live\ndata: " + d.dump() + "\n\n";
}

HttpFront::HttpFront(HttpOptions options, PageSource pages, std::function<bool(const httplib::Request&)> owner_only)
    : options_(std::move(options)), pages_(std::move(pages)), owner_only_(std::move(owner_only)) {
    if (!isLoopback(options_.host) && options_.token.empty())
        throw std::invalid_argument("refusing to listen on " + options_.host +
                                    " without --token: only loopback addresses (127.0.0.1, ::1) may be served "
                                    "without one");
    svr_.set_payload_max_length(options_.max_body);
    svr_.new_task_queue = [n = options_.threads] { return new httplib::ThreadPool(size_t(n)); };
    svr_.set_pre_routing_handler([this](const httplib::Request& req, httplib::Response& res) {
        if (authorized(req)) {
            // The first authorised load through the URL: from now on the cookie carries the
            // token (the page takes it out of its address bar and its requests).
            if (urlToken(req))
                res.set_header("Set-Cookie", std::string(kTokenCookie) + "=" + options_.token +
                                                 "; Path=/; HttpOnly; SameSite=Strict");
            return httplib::Server::HandlerResponse::Unhandled;
        }
        // The person's screen (take over, hand back, input) is the owner's only: forbidden.
        const bool owner = owner_only_ && owner_only_(req);
        if (!owner) res.set_header("WWW-Authenticate", "Bearer");
        sendError(res, owner ? 403 : 401,
                  "expected \"Authorization: Bearer <token>\" (or the page's cookie, or ?access_token=) with the "
                  "server's token");
        return httplib::Server::HandlerResponse::Handled;
    });
    // Statuses set by cpp-httplib itself (404 route, 413 body, 400 request) get the JSON shape.
    svr_.set_error_handler([](const httplib::Request& req, httplib::Response& res) {
        if (!res.body.empty()) return;
        std::string msg = res.status == 404   ? "no route " + req.method + " " + req.path
                          : res.status == 413 ? "request body too large (the limit is 1 MB)"
                                              : "the request was refused (HTTP " + std::to_string(res.status) + ")";
        sendError(res, res.status, msg);
    });
    svr_.set_exception_handler([](const httplib::Request&, httplib::Response& res, std::exception_ptr ep) {
        std::string msg = "internal error";
        try {
            if (ep) std::rethrow_exception(ep);
        } catch (const std::exception& e) {
            msg = e.what();
        } catch (...) {
        }
        sendError(res, 500, msg);
    });
    auto page = [this](const std::string& name, httplib::Response& res) {
        try {
            std::string_view b = pages_(name);
            res.set_content(std::string(b), contentTypeOf(name));
        } catch (const std::out_of_range&) {
            sendError(res, 404, "no page file " + name);
        }
    };
    svr_.Get("/", [page](const httplib::Request&, httplib::Response& res) { page("index.html", res); });
    svr_.Get(R"(/([A-Za-z0-9_-]+\.(?:html|css|js|svg|png)))",
             [page](const httplib::Request& req, httplib::Response& res) { page(req.matches[1], res); });
}

HttpFront::~HttpFront() { stop(); }

bool HttpFront::authorized(const httplib::Request& req) const {
    if (options_.token.empty()) return true;
    if (req.get_header_value("Authorization") == "Bearer " + options_.token) return true;
    if (cookieValue(req.get_header_value("Cookie"), kTokenCookie) == options_.token) return true;
    return urlToken(req);
}

bool HttpFront::urlToken(const httplib::Request& req) const {
    return !options_.token.empty() && req.has_param("access_token") &&
           req.get_param_value("access_token") == options_.token;
}

int HttpFront::bind() {
    const auto& o = options_;
    // cpp-httplib's default sets SO_REUSEPORT, with which a second server binds a port already
    // listened on and the kernel shares the connections between both (socket(7)): a second
    // eacu serve or studio on a taken port must fail instead. SO_REUSEADDR alone still lets a
    // restarted server bind a port whose last connections are in TIME_WAIT.
    svr_.set_socket_options([](socket_t sock) {
        int yes = 1;
        ::setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
    });
    int port = o.port == 0 ? svr_.bind_to_any_port(o.host) : (svr_.bind_to_port(o.host, o.port) ? o.port : -1);
    if (port < 0)
        throw std::runtime_error("cannot listen on " + o.host + ":" + std::to_string(o.port) +
                                 " (in use, or not an address of this machine)");
    return port;
}

bool HttpFront::listen() { return svr_.listen_after_bind(); }

void HttpFront::stop() {
    if (stopping_.exchange(true)) return;
    svr_.stop();
}

}  // namespace eacu::server
