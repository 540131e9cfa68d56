// The live frames of a chromium device from its page's screencast (device/chromium/ChromiumDevice.h):
// started by the first captureLive(), each frame acknowledged, decoded once and resized to the
// screen, a screenshot before the first frame of a document, stopped when the device closes.
#include <catch2/catch.hpp>

#include <algorithm>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <opencv2/imgcodecs.hpp>

#include "base/Base64.h"
#include "device/chromium/CdpTransport.h"
#include "device/chromium/ChromiumDevice.h"
#include "server/HttpFront.h"
#include "server/LiveLine.h"
#include "server/LiveScreen.h"

using namespace eacu;

namespace {

std::string jpegBase64(cv::Size size, cv::Scalar bgr) {
    cv::Mat m(size, CV_8UC3, bgr);
    std::vector<unsigned char> out;
    cv::imencode(".jpg", m, out, {cv::IMWRITE_JPEG_QUALITY, 95});
    return base64Encode(std::string_view(reinterpret_cast<const char*>(out.data()), out.size()));
}

// What the peer was sent; outlives the peer (the device's connection owns it).
struct PeerLog {
    std::mutex mu;
    std::vector<std::string> methods;
    std::vector<int> acks;
    int count(const std::string& method) {
        std::lock_guard<std::mutex> lk(mu);
        return int(std::count(methods.begin(), methods.end(), method));
    }
};

// A DevTools peer that answers every command at once (as ClosingPeer in test_chromium_close),
// gives a blue 640x480 screenshot, and once Page.startScreencast came, lets the test push
// screencast frames and navigation commits. It keeps every command's method (and the acks).
class CastPeer : public CdpTransport {
public:
    explicit CastPeer(std::shared_ptr<PeerLog> log) : log_(std::move(log)) {}
    void start(OnMessage on_message, OnClosed on_closed) override {
        on_message_ = std::move(on_message);
        on_closed_ = std::move(on_closed);
    }
    void send(std::string message) override {
        if (closed_) return;
        const nlohmann::json req = nlohmann::json::parse(message);
        const std::string method = req.at("method");
        {
            std::lock_guard<std::mutex> lk(log_->mu);
            log_->methods.push_back(method);
            if (method == "Page.screencastFrameAck") log_->acks.push_back(req["params"]["sessionId"].get<int>());
        }
        nlohmann::json result = nlohmann::json::object();
        if (method == "Target.createTarget") result["targetId"] = "T1";
        if (method == "Target.attachToTarget") result["sessionId"] = "S1";
        if (method == "Page.captureScreenshot") result["data"] = jpegBase64({640, 480}, {255, 0, 0});
        nlohmann::json answer = {{"id", req.at("id")}, {"result", result}};
        if (req.contains("sessionId")) answer["sessionId"] = req["sessionId"];
        on_message_(answer.dump());
    }
    void close() override {
        if (closed_) return;
        closed_ = true;
        on_closed_("the connection was closed");
    }
    // A screencast frame of `size` in `bgr`, as Chromium sends it to session S1.
    void frame(cv::Size size, cv::Scalar bgr) {
        on_message_(nlohmann::json{{"method", "Page.screencastFrame"},
                                   {"sessionId", "S1"},
                                   {"params", {{"data", jpegBase64(size, bgr)}, {"sessionId", ++cast_}, {"metadata", {}}}}}
                        .dump());
    }
    void commit() {
        on_message_(nlohmann::json{{"method", "Page.frameNavigated"},
                                   {"sessionId", "S1"},
                                   {"params", {{"frame", {{"id", "F1"}, {"url", "file:///x.html"}}}}}}
                        .dump());
    }

private:
    std::shared_ptr<PeerLog> log_;
    OnMessage on_message_;
    OnClosed on_closed_;
    bool closed_ = false;
    int cast_ = 0;
};

cv::Vec3b middle(const Frame& f) { return f.bgr.at<cv::Vec3b>(f.height() / 2, f.width() / 2); }

}  // namespace

TEST_CASE("a chromium device's live frames come from its page's screencast", "[device][chromium]") {
    auto log = std::make_shared<PeerLog>();
    auto owned = std::make_unique<CastPeer>(log);
    CastPeer* peer = owned.get();
    PageMetrics metrics;
    metrics.viewport = {640, 480};
    auto device = ChromiumDevice::over(std::move(owned), "test peer", metrics, 5);
    CHECK(log->count("Page.startScreencast") == 0);

    // No frame yet: the page's screenshot (blue), the screencast started.
    Frame f = device->captureLive();
    CHECK(log->count("Page.startScreencast") == 1);
    CHECK(log->count("Page.captureScreenshot") == 1);
    CHECK(middle(f)[0] > 200);

    // A frame of half the size (green): acknowledged, resized to the screen, decoded once.
    peer->frame({320, 240}, {0, 255, 0});
    CHECK(log->acks == std::vector<int>{1});
    f = device->captureLive();
    CHECK(f.width() == 640);
    CHECK(f.height() == 480);
    CHECK(middle(f)[1] > 200);
    f.bgr.setTo(cv::Scalar(0, 0, 0));  // the caller draws on its copy only
    CHECK(middle(device->captureLive())[1] > 200);
    CHECK(log->count("Page.captureScreenshot") == 1);
    CHECK(log->count("Page.startScreencast") == 1);

    // The main frame commits a navigation: the last page's frame is not shown; the screenshot
    // until the new document's first frame (red).
    peer->commit();
    CHECK(middle(device->captureLive())[0] > 200);
    CHECK(log->count("Page.captureScreenshot") == 2);
    peer->frame({640, 480}, {0, 0, 255});
    CHECK(middle(device->captureLive())[2] > 200);
    CHECK(log->acks == std::vector<int>{1, 2});

    // Closing stops the screencast before the page is closed.
    device.reset();
    std::lock_guard<std::mutex> lk(log->mu);
    auto stop = std::find(log->methods.begin(), log->methods.end(), "Page.stopScreencast");
    auto close = std::find(log->methods.begin(), log->methods.end(), "Target.closeTarget");
    CHECK(stop != log->methods.end());
    CHECK(stop < close);
}

TEST_CASE("a chromium device that never showed live frames starts no screencast", "[device][chromium]") {
    auto log = std::make_shared<PeerLog>();
    auto device = ChromiumDevice::over(std::make_unique<CastPeer>(log), "test peer", PageMetrics{}, 5);
    device.reset();
    CHECK(log->count("Page.startScreencast") == 0);
    CHECK(log->count("Page.stopScreencast") == 0);
}

TEST_CASE("a live frame passed on undecoded says so on the run's line and the page's event", "[serve]") {
    const std::vector<unsigned char> jpeg{0xFF, 0xD8, 0xFF, 0xD9};
    server::LiveFrame f = server::passLiveFrame(jpeg, base64Encode("\xFF\xD8\xFF\xD9"), 640, 480, {10, 20}, 7);
    CHECK_FALSE(f.marked);
    CHECK(f.jpeg == jpeg);
    auto back = server::liveFrameOfLine(7, server::liveLine(f));
    REQUIRE(back);
    CHECK_FALSE(back->marked);
    CHECK(back->cursor_x == 10);
    CHECK(back->width == 640);
    CHECK(server::liveEventText(*back).find("\"marked\":false") != std::string::npos);
    // A line without the field (an older run) is a marked frame.
    nlohmann::json old = server::liveLine(f);
    old.erase("marked");
    CHECK(server::liveFrameOfLine(7, old)->marked);
}
