#include "studio/StudioHttp.h"

#include <httplib.h>

#include "base/Clock.h"
#include "studio/StudioFiles.h"

using nlohmann::json;

namespace eacu::studio {
namespace {

using server::ApiError;
using server::HttpFront;

int intParam(const httplib::Request& req, const char* key) {
    if (!req.has_param(key)) throw ApiError(400, std::string("expected ?") + key + "=<pixels>");
    const std::string v = req.get_param_value(key);
    try {
        size_t used = 0;
        int n = std::stoi(v, &used);
        if (used == v.size()) return n;
    } catch (const std::exception&) {
    }
    throw ApiError(400, std::string("expected ") + key + " to be an integer (pixels), got \"" + v + "\"");
}

int intField(const json& b, const char* key) {
    auto it = b.find(key);
    if (it == b.end() || !it->is_number())
        throw ApiError(400, std::string("expected \"") + key + "\" (a number of pixels), got " +
                                (it == b.end() ? std::string("nothing") : it->dump()));
    return int(it->get<double>() + 0.5);
}

int lineId(const std::string& s) {
    if (s.empty() || s.size() > 9) throw ApiError(400, "expected a line id, got \"" + s + "\"");
    return std::stoi(s);
}

}  // namespace

struct StudioHttp::Impl {
    Studio& studio;
    HttpFront front;

    Impl(Studio& s, server::HttpOptions o)
        : studio(s),
          front(std::move(o), [](std::string_view name) { return studioFile(name); },
                // Input and changes to the script are the owner's only.
                [](const httplib::Request& req) { return req.method == "POST"; }) {}

    struct StreamState {
        int64_t seq = 0;
        int64_t version = 0;
        double last_write = 0;
        bool opened = false;
    };

    // One chunk of the page's stream: the script when it changed, the newest live frame, or a
    // heartbeat. False ends the stream.
    bool chunk(StreamState& st, httplib::DataSink& sink) {
        if (front.stopping()) return false;
        std::string out;
        if (!st.opened) {
            out = "retry: 1000\n: eacu studio\n\n";
            st.opened = true;
        }
        const double heartbeat = front.options().heartbeat;
        auto frame = studio.waitFrame(st.seq, st.version, std::max(0.05, std::min(1.0, heartbeat)));
        if (front.stopping()) return false;
        json lines = studio.lines();
        if (lines["version"].get<int64_t>() > st.version) {
            st.version = lines["version"].get<int64_t>();
            out += "event: script\ndata: " + lines.dump(-1, ' ', false, json::error_handler_t::replace) + "\n\n";
        }
        if (frame) {
            st.seq = frame->seq;
            out += server::liveEventText(*frame);
        }
        if (out.empty() && monotonicSeconds() - st.last_write >= heartbeat) out = ": heartbeat\n\n";
        if (out.empty()) return true;
        if (!sink.write(out.data(), out.size())) return false;
        st.last_write = monotonicSeconds();
        return true;
    }

    void routes() {
        httplib::Server& svr = front.server();
        auto api = [](auto f) {
            return [f](const httplib::Request& req, httplib::Response& res) {
                HttpFront::guarded(res, [&] { HttpFront::sendJson(res, 200, f(req)); });
            };
        };
        svr.Get("/api/studio/info", api([this](const httplib::Request&) { return studio.info(); }));
        svr.Get("/api/studio/lines", api([this](const httplib::Request&) { return studio.lines(); }));
        svr.Get("/api/studio/tree", api([this](const httplib::Request&) { return studio.tree(); }));
        svr.Get("/api/studio/element", api([this](const httplib::Request& req) {
                    return studio.elementAt({intParam(req, "x"), intParam(req, "y")});
                }));
        svr.Get("/api/studio/prove", api([this](const httplib::Request& req) {
                    return studio.proveAt({intParam(req, "x"), intParam(req, "y")});
                }));
        svr.Get("/api/studio/script", [this](const httplib::Request&, httplib::Response& res) {
            HttpFront::guarded(res, [&] { res.set_content(studio.scriptText(), "text/plain; charset=utf-8"); });
        });
        svr.Post("/api/studio/input", api([this](const httplib::Request& req) {
                     json b = server::bodyObject(req);
                     if (!b.contains("event")) throw ApiError(400, "expected {\"event\": {kind, x, y, ...}}");
                     return studio.perform(b["event"]);
                 }));
        svr.Post("/api/studio/ahead", api([this](const httplib::Request& req) {
                     json b = server::bodyObject(req);
                     studio.ahead({intField(b, "x"), intField(b, "y")});
                     return json{{"ahead", true}};
                 }));
        svr.Post("/api/studio/verify", api([this](const httplib::Request& req) {
                     json b = server::bodyObject(req);
                     return studio.addVerify({intField(b, "x"), intField(b, "y")});
                 }));
        svr.Post(R"(/api/studio/lines/(\d+)/delete)", api([this](const httplib::Request& req) {
                     studio.deleteLine(lineId(req.matches[1].str()));
                     return json{{"deleted", lineId(req.matches[1].str())}};
                 }));
        svr.Post(R"(/api/studio/lines/(\d+))", api([this](const httplib::Request& req) {
                     studio.editLine(lineId(req.matches[1].str()), server::stringField(server::bodyObject(req), "lua"));
                     return json{{"edited", lineId(req.matches[1].str())}};
                 }));
        svr.Get("/api/studio/places", api([this](const httplib::Request&) { return studio.places(); }));
        svr.Post("/api/studio/open", api([this](const httplib::Request& req) { return studio.open(server::bodyObject(req)); }));
        svr.Post("/api/studio/run", api([this](const httplib::Request&) { return studio.runScript(); }));
        svr.Post("/api/studio/save", api([this](const httplib::Request&) { return json{{"path", studio.save()}}; }));
        svr.Get("/api/studio/live.jpg", [this](const httplib::Request&, httplib::Response& res) {
            HttpFront::guarded(res, [&] {
                auto f = studio.waitFrame(0, INT64_MAX, 0);
                if (!f) throw ApiError(404, "no live frame yet");
                res.set_header("Cache-Control", "no-store");
                res.set_content(std::string(f->jpeg.begin(), f->jpeg.end()), "image/jpeg");
            });
        });
        svr.Get("/api/studio/stream", [this](const httplib::Request&, httplib::Response& res) {
            auto st = std::make_shared<StreamState>();
            st->last_write = monotonicSeconds();
            res.set_header("Cache-Control", "no-cache");
            res.set_header("X-Accel-Buffering", "no");
            res.set_chunked_content_provider("text/event-stream", [this, st](size_t, httplib::DataSink& sink) {
                try {
                    return chunk(*st, sink);
                } catch (const std::exception&) {
                    return false;
                }
            });
        });
    }
};

StudioHttp::StudioHttp(Studio& studio, server::HttpOptions options) : impl_(std::make_unique<Impl>(studio, std::move(options))) {
    impl_->routes();
}

StudioHttp::~StudioHttp() { stop(); }

int StudioHttp::bind() { return impl_->front.bind(); }

bool StudioHttp::listen() { return impl_->front.listen(); }

void StudioHttp::stop() {
    if (!impl_ || impl_->front.stopping()) return;
    impl_->studio.wakeAll();
    impl_->front.stop();
}

}  // namespace eacu::studio
