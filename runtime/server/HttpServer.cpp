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

}  // namespace

struct HttpServer::Impl {
    ChatService& chat;
    HttpFront front;
    const HttpOptions& options;
    httplib::Server& svr;

    Impl(ChatService& c, HttpOptions o)
        : chat(c),
          front(std::move(o), [](std::string_view name) { return pageFile(name); },
                // The person's screen (take over, hand back, input) is the owner's only.
                [](const httplib::Request& req) { return req.method == "POST" && req.path.rfind("/api/tasks/", 0) == 0; }),
          options(front.options()),
          svr(front.server()) {}

    template <class F>
    void guarded(httplib::Response& res, F&& f) {
        HttpFront::guarded(res, std::forward<F>(f));
    }
    static void sendJson(httplib::Response& res, int status, const json& body) { HttpFront::sendJson(res, status, body); }

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
        if (front.stopping()) return false;
        std::string out;
        if (!st.opened) {
            out = "retry: 1000\n: stream of session " + std::to_string(sid) + "\n\n";
            st.opened = true;
        } else {
            const double idle = monotonicSeconds() - st.last_write;
            StreamBatch b =
                chat.store().waitForSession(sid, st.after, st.live_seen, std::max(0.05, options.heartbeat - idle));
            if (front.stopping()) return false;
            for (const auto& e : b.events) {
                out += "id: " + std::to_string(e.id) + "\nevent: " + e.type + "\ndata: " + e.data + "\n\n";
                st.after = e.id;
            }
            for (const auto& f : b.live) out += liveEventText(*f);
            if (out.empty() && monotonicSeconds() - st.last_write >= options.heartbeat) out = ": heartbeat\n\n";
        }
        if (out.empty()) return true;
        if (!sink.write(out.data(), out.size())) return false;
        st.last_write = monotonicSeconds();
        return true;
    }

    void routes() {
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
    impl_ = std::make_unique<Impl>(chat, std::move(options));
    impl_->routes();
}

HttpServer::~HttpServer() { stop(); }

int HttpServer::bind() { return impl_->front.bind(); }

bool HttpServer::listen() { return impl_->front.listen(); }

void HttpServer::stop() {
    if (!impl_ || impl_->front.stopping()) return;
    impl_->chat.store().close();
    impl_->front.stop();
}

}  // namespace eacu::server
