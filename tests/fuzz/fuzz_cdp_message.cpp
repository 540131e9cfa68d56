// DevTools protocol messages from a hostile peer: a ChromiumDevice over a transport that answers
// from the input (CdpConnection's message handling, the device's reading of every answer and
// event, the accessibility tree's answers). The input is messages separated by '\n'; each request the device sends delivers the
// next messages up to and including the first holding "@ID", where "@ID" becomes that request's
// id (its answer); those before it arrive as events. When the input runs out the connection
// closes. The device opens its page, captures, clicks, types, navigates, reads its URL and its
// accessibility tree (Accessibility.getFullAXTree, DOMSnapshot.captureSnapshot) and acts on it.
// Invariants: only DeviceError and std::invalid_argument (bad URL) escape; no event crashes the
// transport's thread.
#include <cstdint>
#include <deque>
#include <mutex>
#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

#include "FuzzCommon.h"
#include "device/Device.h"
#include "device/chromium/ChromiumDevice.h"

using namespace eacu;

namespace {

class ScriptedPeer : public CdpTransport {
public:
    explicit ScriptedPeer(std::deque<std::string> msgs) : msgs_(std::move(msgs)) {}
    void start(OnMessage on_message, OnClosed on_closed) override {
        on_message_ = std::move(on_message);
        on_closed_ = std::move(on_closed);
    }
    void send(std::string message) override {
        if (closed_) return;
        auto req = nlohmann::json::parse(message, nullptr, false);
        const std::string id = req.is_object() && req.contains("id") ? req["id"].dump() : "0";
        while (!msgs_.empty()) {
            std::string m = std::move(msgs_.front());
            msgs_.pop_front();
            bool answer = false;
            for (size_t at; (at = m.find("@ID")) != std::string::npos; answer = true) m.replace(at, 3, id);
            on_message_(std::move(m));
            if (closed_) return;
            if (answer) {
                // A well-formed empty answer follows the input's: ignored when the input's was
                // taken (an answer no call waits for), it ends a call whose answer the input
                // garbled. A call that is never answered waits its own timeout (30 s): bounding
                // that by the step's deadline is issue 36 item 1, not this parser fuzzer's.
                on_message_("{\"id\":" + id + ",\"result\":{}}");
                return;
            }
        }
        close();
    }
    void close() override {
        if (closed_) return;
        closed_ = true;
        on_closed_("the fuzz input ran out");
    }

private:
    std::deque<std::string> msgs_;
    OnMessage on_message_;
    OnClosed on_closed_;
    bool closed_ = false;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    std::deque<std::string> msgs;
    std::string cur;
    for (size_t i = 0; i < size; ++i) {
        if (data[i] == '\n') {
            msgs.push_back(std::move(cur));
            cur.clear();
        } else {
            cur += char(data[i]);
        }
    }
    msgs.push_back(std::move(cur));
    try {
        auto d = ChromiumDevice::over(std::make_unique<ScriptedPeer>(std::move(msgs)), "fuzz peer", PageMetrics{{64, 48}, 1.0}, 0.5);
        auto step = [&](auto&& f) {
            try {
                f();
            } catch (const DeviceError&) {
            }
        };
        step([&] { d->capture(); });
        step([&] { d->move({3, 4}); d->click(MouseButton::Left, 2); });
        step([&] { d->typeText("a\n张"); });
        step([&] { d->navigate("https://example.com/", 0.05); });
        step([&] { d->currentUrl(); });
        step([&] { d->captureLive(); });
        step([&] { d->sync(); });
        step([&] {
            A11yElement root = d->accessibility().snapshot();
            if (!root.children.empty()) d->accessibility().doAction(root.children[0], "click");
        });
        d->takeRefusals();
    } catch (const DeviceError&) {
    } catch (const std::invalid_argument&) {
    }
    return 0;
}
