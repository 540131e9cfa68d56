// Boost.Beast (Debian's libboost-dev, header-only): a WebSocket client on its own io_context
// thread, and one HTTP GET for the endpoint's /json/version.
#include "device/chromium/WebSocketTransport.h"

#include <deque>
#include <mutex>
#include <stdexcept>
#include <thread>

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/websocket.hpp>
#include <nlohmann/json.hpp>

#include "device/Device.h"

namespace eacu {

namespace beast = boost::beast;
namespace net = boost::asio;
using tcp = net::ip::tcp;

namespace {

struct UrlParts {
    std::string host, port, path;
};

// "SCHEME://HOST:PORT/PATH" → its parts; `scheme` is "http" or "ws".
UrlParts splitUrl(const std::string& url, const std::string& scheme) {
    const std::string prefix = scheme + "://";
    auto bad = [&] {
        return std::invalid_argument("expected " + prefix + "HOST:PORT" + (scheme == "ws" ? "/PATH" : "[/]") +
                                     ", got \"" + url + "\"");
    };
    if (url.rfind(prefix, 0) != 0) throw bad();
    std::string rest = url.substr(prefix.size());
    size_t slash = rest.find('/');
    std::string hostport = rest.substr(0, slash);
    UrlParts p;
    p.path = slash == std::string::npos ? "/" : rest.substr(slash);
    size_t colon = hostport.rfind(':');
    if (colon == std::string::npos || colon == 0 || colon + 1 == hostport.size()) throw bad();
    p.host = hostport.substr(0, colon);
    p.port = hostport.substr(colon + 1);
    for (char c : p.port)
        if (c < '0' || c > '9') throw bad();
    if (p.host.size() > 2 && p.host.front() == '[' && p.host.back() == ']') p.host = p.host.substr(1, p.host.size() - 2);
    return p;
}

class WebSocketTransport final : public CdpTransport {
public:
    WebSocketTransport(const std::string& ws_url, double timeout) : ws_(ioc_) {
        UrlParts u = splitUrl(ws_url, "ws");
        try {
            tcp::resolver resolver(ioc_);
            auto results = resolver.resolve(u.host, u.port);
            auto& layer = beast::get_lowest_layer(ws_);
            layer.expires_after(std::chrono::milliseconds(int64_t(timeout * 1000)));
            // Run the connect and the handshake as async operations so that the timeout holds.
            beast::error_code ec;
            layer.async_connect(results, [&](beast::error_code e, const tcp::endpoint&) { ec = e; });
            ioc_.run();
            ioc_.restart();
            if (ec) throw DeviceError("cannot connect to " + ws_url + ": " + ec.message());
            ws_.async_handshake(u.host + ":" + u.port, u.path, [&](beast::error_code e) { ec = e; });
            ioc_.run();
            ioc_.restart();
            if (ec) throw DeviceError("WebSocket handshake with " + ws_url + " failed: " + ec.message());
            layer.expires_never();
        } catch (const boost::system::system_error& e) {
            throw DeviceError("cannot connect to " + ws_url + ": " + e.what());
        }
        ws_.read_message_max(512u << 20);  // screenshots of large pages are big
        ws_.text(true);
    }

    ~WebSocketTransport() override { close(); }

    void start(OnMessage on_message, OnClosed on_closed) override {
        on_message_ = std::move(on_message);
        on_closed_ = std::move(on_closed);
        doRead();
        thread_ = std::thread([this] {
            try {
                ioc_.run();
            } catch (const std::exception& e) {
                closed(std::string("WebSocket error: ") + e.what());
            }
        });
    }

    void send(std::string message) override {
        net::post(ws_.get_executor(), [this, m = std::move(message)]() mutable {
            if (dead_) return;
            queue_.push_back(std::move(m));
            if (queue_.size() == 1) doWrite();
        });
    }

    void close() override {
        {
            std::lock_guard<std::mutex> lk(close_mu_);
            if (closing_) return;
            closing_ = true;
        }
        if (thread_.joinable()) {
            net::post(ws_.get_executor(), [this] {
                dead_ = true;
                beast::error_code ec;
                beast::get_lowest_layer(ws_).socket().shutdown(tcp::socket::shutdown_both, ec);
                beast::get_lowest_layer(ws_).close();
            });
            thread_.join();
        }
        closed("the connection was closed");
    }

private:
    void closed(const std::string& why) {
        OnClosed f;
        {
            std::lock_guard<std::mutex> lk(close_mu_);
            if (closed_reported_) return;
            closed_reported_ = true;
            f = on_closed_;
        }
        if (f) f(why);
    }

    void doRead() {
        ws_.async_read(buffer_, [this](beast::error_code ec, size_t) {
            if (ec) {
                dead_ = true;
                closed(ec == beast::websocket::error::closed ? std::string("the browser closed the connection")
                                                             : "the connection was lost (" + ec.message() + ")");
                return;
            }
            std::string text = beast::buffers_to_string(buffer_.data());
            buffer_.consume(buffer_.size());
            if (on_message_) on_message_(std::move(text));
            doRead();
        });
    }

    void doWrite() {
        ws_.async_write(net::buffer(queue_.front()), [this](beast::error_code ec, size_t) {
            if (ec) {
                dead_ = true;
                queue_.clear();
                closed("the connection was lost (" + ec.message() + ")");
                return;
            }
            queue_.pop_front();
            if (!queue_.empty()) doWrite();
        });
    }

    net::io_context ioc_;
    beast::websocket::stream<beast::tcp_stream> ws_;
    beast::flat_buffer buffer_;
    std::deque<std::string> queue_;  // touched only on the io thread
    bool dead_ = false;              // likewise
    OnMessage on_message_;
    OnClosed on_closed_;
    std::thread thread_;
    std::mutex close_mu_;
    bool closing_ = false;
    bool closed_reported_ = false;
};

}  // namespace

std::string browserWebSocketUrl(const std::string& http_url, double timeout) {
    UrlParts u = splitUrl(http_url, "http");
    net::io_context ioc;
    beast::tcp_stream stream(ioc);
    beast::http::response<beast::http::string_body> res;
    beast::error_code ec;
    std::string stage = "connect";
    try {
        tcp::resolver resolver(ioc);
        auto results = resolver.resolve(u.host, u.port);
        stream.expires_after(std::chrono::milliseconds(int64_t(timeout * 1000)));
        beast::http::request<beast::http::empty_body> req{beast::http::verb::get, "/json/version", 11};
        req.set(beast::http::field::host, u.host + ":" + u.port);
        beast::flat_buffer buf;
        stream.async_connect(results, [&](beast::error_code e, const tcp::endpoint&) {
            if ((ec = e)) return;
            stage = "request";
            beast::http::async_write(stream, req, [&](beast::error_code e2, size_t) {
                if ((ec = e2)) return;
                stage = "answer";
                beast::http::async_read(stream, buf, res, [&](beast::error_code e3, size_t) { ec = e3; });
            });
        });
        ioc.run();
    } catch (const boost::system::system_error& e) {
        throw DeviceError("cannot reach the DevTools endpoint " + http_url + ": " + e.what());
    }
    if (ec)
        throw DeviceError("cannot reach the DevTools endpoint " + http_url + " (" + stage + "): " + ec.message() +
                          " (is a Chromium running with --remote-debugging-port?)");
    if (res.result_int() != 200)
        throw DeviceError("the DevTools endpoint " + http_url + "/json/version answered HTTP " +
                          std::to_string(res.result_int()));
    nlohmann::json j = nlohmann::json::parse(res.body(), nullptr, false);
    if (!j.is_object() || !j.contains("webSocketDebuggerUrl") || !j["webSocketDebuggerUrl"].is_string())
        throw DeviceError("the DevTools endpoint " + http_url + "/json/version has no webSocketDebuggerUrl: " +
                          res.body().substr(0, 200));
    return j["webSocketDebuggerUrl"].get<std::string>();
}

std::unique_ptr<CdpTransport> openWebSocket(const std::string& ws_url, double timeout) {
    return std::make_unique<WebSocketTransport>(ws_url, timeout);
}

}  // namespace eacu
