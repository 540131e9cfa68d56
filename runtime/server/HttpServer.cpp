#include "server/HttpServer.h"

#include <httplib.h>

#include <atomic>
#include <chrono>
#include <stdexcept>

#include "base/Clock.h"
#include "server/PageFiles.h"

using nlohmann::json;

namespace eacu::server {
namespace {

void sendJson(httplib::Response& res, int status, const json& body) {
    res.status = status;
    // Invalid UTF-8 (a request path of any bytes, echoed in "no route ...") becomes U+FFFD:
    // a strict dump would throw from cpp-httplib's error handler and end the process.
    res.set_content(body.dump(-1, ' ', false, json::error_handler_t::replace), "application/json; charset=utf-8");
}

void sendError(httplib::Response& res, int status, const std::string& message) {
    sendJson(res, status, {{"error", message}});
}

// The request's body as a JSON object. Throws ApiError 400 naming what came instead.
json bodyObject(const httplib::Request& req) {
    json j = json::parse(req.body, nullptr, false);
    if (j.is_discarded())
        throw ApiError(400, "expected a JSON object body, got malformed JSON (" + std::to_string(req.body.size()) +
                                " bytes)");
    if (!j.is_object()) throw ApiError(400, std::string("expected a JSON object body, got a JSON ") + j.type_name());
    return j;
}

// A path or query id: a string of digits. Throws ApiError 400 naming `what`.
int64_t idParam(const std::string& s, const char* what) {
    if (s.empty() || s.size() >= 19 || s.find_first_not_of("0123456789") != std::string::npos)
        throw ApiError(400, std::string("expected ") + what + " to be an integer id, got \"" + s + "\"");
    return std::stoll(s);
}

// An id field of a body: an integer or a string of digits. Throws ApiError 400.
int64_t idField(const json& body, const char* key) {
    auto it = body.find(key);
    if (it == body.end() || it->is_null()) throw ApiError(400, std::string("expected \"") + key + "\" (an integer id)");
    if (it->is_number_integer()) return it->get<int64_t>();
    if (it->is_string()) return idParam(it->get<std::string>(), (std::string("\"") + key + "\"").c_str());
    throw ApiError(400, std::string("expected \"") + key + "\" to be an integer id, got " + it->dump());
}

std::string stringField(const json& body, const char* key) {
    auto it = body.find(key);
    if (it == body.end()) throw ApiError(400, std::string("expected \"") + key + "\" (a string)");
    if (!it->is_string()) throw ApiError(400, std::string("expected \"") + key + "\" to be a string, got " + it->dump());
    return it->get<std::string>();
}

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

std::string liveEvent(const LiveFrame& f) {
    json d{{"task_id", f.task_id},
           {"time", f.time},
           {"seq", f.seq},
           {"image", "data:image/jpeg;base64," + f.jpeg_base64},
           {"width", f.width},
           {"height", f.height},
           {"cursor_x", f.cursor_x},
           {"cursor_y", f.cursor_y}};
    return "event: screen.live\ndata: " + d.dump() + "\n\n";
}

// The cookie that carries the serve token after the page's first load.
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

struct HttpServer::Impl {
    ChatService& chat;
    HttpOptions options;
    httplib::Server svr;
    std::atomic<bool> stopping{false};

    Impl(ChatService& c, HttpOptions o) : chat(c), options(std::move(o)) {}

    // Runs a handler, turning ApiError and other exceptions into JSON errors.
    template <class F>
    void guarded(httplib::Response& res, F&& f) {
        try {
            f();
        } catch (const ApiError& e) {
            sendError(res, e.status, e.what());
        } catch (const std::exception& e) {
            sendError(res, 500, e.what());
        }
    }

    bool authorized(const httplib::Request& req) const {
        if (options.token.empty()) return true;
        if (req.get_header_value("Authorization") == "Bearer " + options.token) return true;
        if (cookieValue(req.get_header_value("Cookie"), kTokenCookie) == options.token) return true;
        return urlToken(req);
    }

    // The token came in the URL (?access_token=): the page's first load.
    bool urlToken(const httplib::Request& req) const {
        return !options.token.empty() && req.has_param("access_token") &&
               req.get_param_value("access_token") == options.token;
    }

    void stream(const httplib::Request& req, httplib::Response& res) {
        if (!req.has_param("session_id")) throw ApiError(400, "expected ?session_id=<id>");
        const int64_t sid = idParam(req.get_param_value("session_id"), "session_id");
        if (!chat.hasSession(sid)) throw ApiError(404, "no session " + std::to_string(sid));
        int64_t after = 0;
        if (req.has_header("Last-Event-ID"))
            after = idParam(req.get_header_value("Last-Event-ID"), "Last-Event-ID");
        else if (req.has_param("last_event_id"))
            after = idParam(req.get_param_value("last_event_id"), "last_event_id");
        auto st = std::make_shared<StreamState>(StreamState{after, {}, monotonicSeconds()});
        res.set_header("Cache-Control", "no-cache");
        res.set_header("X-Accel-Buffering", "no");
        res.set_chunked_content_provider("text/event-stream", [this, st, sid](size_t, httplib::DataSink& sink) {
            try {
                return streamChunk(*st, sid, sink);
            } catch (const std::exception&) {
                return false;  // the run log failed under the stream: the client reconnects
            }
        });
    }

    struct StreamState {
        int64_t after;
        std::map<int64_t, int64_t> live_seen;
        double last_write;
        bool opened = false;
    };

    // One chunk of a session's stream: the opening lines, then whatever is new (waiting up to the
    // next heartbeat), or a heartbeat. False ends the stream (the server stops, the client left).
    bool streamChunk(StreamState& st, int64_t sid, httplib::DataSink& sink) {
        if (stopping) return false;
        std::string out;
        if (!st.opened) {
            out = "retry: 1000\n: stream of session " + std::to_string(sid) + "\n\n";
            st.opened = true;
        } else {
            const double idle = monotonicSeconds() - st.last_write;
            StreamBatch b =
                chat.store().waitForSession(sid, st.after, st.live_seen, std::max(0.05, options.heartbeat - idle));
            if (stopping) return false;
            for (const auto& e : b.events) {
                out += "id: " + std::to_string(e.id) + "\nevent: " + e.type + "\ndata: " + e.data + "\n\n";
                st.after = e.id;
            }
            for (const auto& f : b.live) out += liveEvent(*f);
            if (out.empty() && monotonicSeconds() - st.last_write >= options.heartbeat) out = ": heartbeat\n\n";
        }
        if (out.empty()) return true;
        if (!sink.write(out.data(), out.size())) return false;
        st.last_write = monotonicSeconds();
        return true;
    }

    void routes() {
        svr.set_payload_max_length(options.max_body);
        svr.new_task_queue = [n = options.threads] { return new httplib::ThreadPool(size_t(n)); };
        svr.set_pre_routing_handler([this](const httplib::Request& req, httplib::Response& res) {
            if (authorized(req)) {
                // The first authorised load through the URL: from now on the cookie carries the
                // token (the page takes it out of its address bar and its requests).
                if (urlToken(req))
                    res.set_header("Set-Cookie", std::string(kTokenCookie) + "=" + options.token +
                                                     "; Path=/; HttpOnly; SameSite=Strict");
                return httplib::Server::HandlerResponse::Unhandled;
            }
            // The person's screen (take over, hand back, input) is the owner's only: forbidden.
            const bool takeover = req.method == "POST" && req.path.rfind("/api/tasks/", 0) == 0;
            if (!takeover) res.set_header("WWW-Authenticate", "Bearer");
            sendError(res, takeover ? 403 : 401,
                      "expected \"Authorization: Bearer <token>\" (or the page's cookie, or ?access_token=) with the "
                      "server's token");
            return httplib::Server::HandlerResponse::Handled;
        });
        // Statuses set by cpp-httplib itself (404 route, 413 body, 400 request) get the JSON shape.
        svr.set_error_handler([](const httplib::Request& req, httplib::Response& res) {
            if (!res.body.empty()) return;
            std::string msg = res.status == 404   ? "no route " + req.method + " " + req.path
                              : res.status == 413 ? "request body too large (the limit is 1 MB)"
                                                  : "the request was refused (HTTP " + std::to_string(res.status) + ")";
            sendError(res, res.status, msg);
        });
        svr.set_exception_handler([](const httplib::Request&, httplib::Response& res, std::exception_ptr ep) {
            std::string msg = "internal error";
            try {
                if (ep) std::rethrow_exception(ep);
            } catch (const std::exception& e) {
                msg = e.what();
            } catch (...) {
            }
            sendError(res, 500, msg);
        });

        auto page = [](const std::string& name, httplib::Response& res) {
            try {
                std::string_view b = pageFile(name);
                res.set_content(std::string(b), contentTypeOf(name));
            } catch (const std::out_of_range&) {
                sendError(res, 404, "no page file " + name);
            }
        };
        svr.Get("/", [page](const httplib::Request&, httplib::Response& res) { page("index.html", res); });
        svr.Get(R"(/([A-Za-z0-9_-]+\.(?:html|css|js|svg|png)))",
                [page](const httplib::Request& req, httplib::Response& res) { page(req.matches[1], res); });
        svr.Get("/healthz", [this](const httplib::Request&, httplib::Response& res) {
            guarded(res, [&] { sendJson(res, 200, chat.health()); });
        });
        svr.Post("/api/chat/send", [this](const httplib::Request& req, httplib::Response& res) {
            guarded(res, [&] {
                json b = bodyObject(req);
                std::optional<int64_t> sid;
                if (b.contains("session_id") && !b["session_id"].is_null()) sid = idField(b, "session_id");
                if (b.contains("script")) {
                    sendJson(res, 200, chat.send(sid, stringField(b, "script"), "script"));
                    return;
                }
                sendJson(res, 200, chat.send(sid, stringField(b, "text")));
            });
        });
        svr.Post("/api/chat/stop", [this](const httplib::Request& req, httplib::Response& res) {
            guarded(res, [&] { sendJson(res, 200, chat.stop(idField(bodyObject(req), "task_id"))); });
        });
        svr.Post("/api/chat/ack-user-action", [this](const httplib::Request& req, httplib::Response& res) {
            guarded(res, [&] { sendJson(res, 200, chat.ack(idField(bodyObject(req), "task_id"))); });
        });
        svr.Get("/api/chat/stream", [this](const httplib::Request& req, httplib::Response& res) {
            guarded(res, [&] { stream(req, res); });
        });
        svr.Get("/api/workers", [this](const httplib::Request&, httplib::Response& res) {
            guarded(res, [&] { sendJson(res, 200, chat.workers()); });
        });
        svr.Get("/api/sessions", [this](const httplib::Request&, httplib::Response& res) {
            guarded(res, [&] { sendJson(res, 200, chat.sessions()); });
        });
        svr.Get(R"(/api/sessions/(\d+))", [this](const httplib::Request& req, httplib::Response& res) {
            guarded(res, [&] { sendJson(res, 200, chat.sessionView(idParam(req.matches[1], "the session id"))); });
        });
        svr.Post("/task", [this](const httplib::Request& req, httplib::Response& res) {
            guarded(res, [&] {
                json b = bodyObject(req);
                json r = b.contains("script") ? chat.send(std::nullopt, stringField(b, "script"), "script")
                                              : chat.send(std::nullopt, stringField(b, "task"));
                sendJson(res, 200, r);
            });
        });
        auto taskOp = [this](json (ChatService::*op)(int64_t)) {
            return [this, op](const httplib::Request& req, httplib::Response& res) {
                guarded(res, [&] { sendJson(res, 200, (chat.*op)(idParam(req.matches[1], "the task id"))); });
            };
        };
        svr.Post(R"(/api/tasks/(\d+)/take-over)", taskOp(&ChatService::takeOver));
        svr.Post(R"(/api/tasks/(\d+)/hand-back)", taskOp(&ChatService::handBack));
        svr.Post(R"(/api/tasks/(\d+)/input)", [this](const httplib::Request& req, httplib::Response& res) {
            guarded(res, [&] {
                json b = bodyObject(req);
                if (!b.contains("event")) throw ApiError(400, "expected {\"event\": {kind, x, y, ...}}");
                sendJson(res, 200, chat.input(idParam(req.matches[1], "the task id"), b["event"]));
            });
        });
        auto taskView = [this](const httplib::Request& req, httplib::Response& res) {
            guarded(res, [&] { sendJson(res, 200, chat.taskView(idParam(req.matches[1], "the task id"))); });
        };
        svr.Get(R"(/task/(\d+))", taskView);
        svr.Get(R"(/api/tasks/(\d+))", taskView);
        svr.Get(R"(/api/tasks/(\d+)/live\.jpg)", [this](const httplib::Request& req, httplib::Response& res) {
            guarded(res, [&] {
                const int64_t id = idParam(req.matches[1], "the task id");
                auto f = chat.store().live(id);
                if (!f) throw ApiError(404, "task " + std::to_string(id) + " has no live frame (it is not running)");
                res.set_header("Cache-Control", "no-store");
                res.set_content(std::string(f->jpeg.begin(), f->jpeg.end()), "image/jpeg");
            });
        });
        svr.Get(R"(/api/tasks/(\d+)/frames/(\d+))", [this](const httplib::Request& req, httplib::Response& res) {
            guarded(res, [&] {
                std::string png = chat.remoteFrame(idParam(req.matches[1], "the task id"), idParam(req.matches[2], "the frame id"));
                res.set_header("Cache-Control", "max-age=86400, immutable");
                res.set_content(png, "image/png");
            });
        });
        svr.Get(R"(/api/frames/(\d+))", [this](const httplib::Request& req, httplib::Response& res) {
            guarded(res, [&] {
                const int64_t id = idParam(req.matches[1], "the frame id");
                std::vector<unsigned char> png;
                try {
                    png = chat.store().with([&](ServiceLog& log) { return log.framePng(id); });
                } catch (const std::exception&) {
                    throw ApiError(404, "no frame " + std::to_string(id));
                }
                res.set_header("Cache-Control", "max-age=86400, immutable");
                res.set_content(std::string(png.begin(), png.end()), "image/png");
            });
        });
    }
};

HttpServer::HttpServer(ChatService& chat, HttpOptions options) {
    if (!isLoopback(options.host) && options.token.empty())
        throw std::invalid_argument("refusing to listen on " + options.host +
                                    " without --token: only loopback addresses (127.0.0.1, ::1) may be served "
                                    "without one");
    impl_ = std::make_unique<Impl>(chat, std::move(options));
    impl_->routes();
}

HttpServer::~HttpServer() { stop(); }

int HttpServer::bind() {
    const auto& o = impl_->options;
    int port = o.port == 0 ? impl_->svr.bind_to_any_port(o.host) : (impl_->svr.bind_to_port(o.host, o.port) ? o.port : -1);
    if (port < 0)
        throw std::runtime_error("cannot listen on " + o.host + ":" + std::to_string(o.port) +
                                 " (in use, or not an address of this machine)");
    return port;
}

bool HttpServer::listen() { return impl_->svr.listen_after_bind(); }

void HttpServer::stop() {
    if (!impl_ || impl_->stopping.exchange(true)) return;
    impl_->chat.store().close();
    impl_->svr.stop();
}

}  // namespace eacu::server
