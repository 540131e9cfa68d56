// Closing a chromium device while its page's events still arrive (device/chromium/ChromiumDevice.h).
// A chromium worker crashed at exit (soak, issue 36): the page's Target.targetDestroyed reached
// the device's event handler while the device was letting go of its connection.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "device/chromium/CdpTransport.h"
#include "device/chromium/ChromiumDevice.h"

using namespace eacu;

namespace {

// A DevTools peer that answers each command at once, as Chromium does for the ones a page's
// opening sends (Target.createTarget gives a targetId, Target.attachToTarget a sessionId, the
// rest an empty result), and that still has the page's Target.targetDestroyed event to
// deliver when it is closed: what a WebSocket's thread does with a message it read before the
// shutdown it was posted.
class ClosingPeer : public CdpTransport {
public:
    explicit ClosingPeer(int* late_events) : late_events_(late_events) {}
    void start(OnMessage on_message, OnClosed on_closed) override {
        on_message_ = std::move(on_message);
        on_closed_ = std::move(on_closed);
    }
    void send(std::string message) override {
        if (closed_) return;
        const nlohmann::json req = nlohmann::json::parse(message);
        const std::string method = req.at("method");
        nlohmann::json result = nlohmann::json::object();
        if (method == "Target.createTarget") result["targetId"] = "T1";
        if (method == "Target.attachToTarget") result["sessionId"] = "S1";
        nlohmann::json answer = {{"id", req.at("id")}, {"result", result}};
        if (req.contains("sessionId")) answer["sessionId"] = req["sessionId"];
        on_message_(answer.dump());
    }
    void close() override {
        if (closed_) return;
        ++*late_events_;
        on_message_(R"({"method":"Target.targetDestroyed","params":{"targetId":"T1"}})");
        closed_ = true;
        on_closed_("the connection was closed");
    }

private:
    int* late_events_;
    OnMessage on_message_;
    OnClosed on_closed_;
    bool closed_ = false;
};

}  // namespace

TEST_CASE("a chromium device closes while its page's events arrive", "[device][chromium]") {
    int late_events = 0;
    PageMetrics metrics;
    metrics.viewport = {640, 480};
    auto device = ChromiumDevice::over(std::make_unique<ClosingPeer>(&late_events), "test peer", metrics, 5);
    device.reset();  // crashed here (a null connection's mutex) before the connection was closed first
    CHECK(late_events == 1);
}
