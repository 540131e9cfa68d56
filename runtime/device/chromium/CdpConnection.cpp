#include "device/chromium/CdpConnection.h"

#include <chrono>

#include "device/Device.h"
#include "device/DeviceWait.h"
#include "device/PeerJson.h"

namespace eacu {

CdpConnection::CdpConnection(std::unique_ptr<CdpTransport> transport, std::string peer)
    : transport_(std::move(transport)), peer_(std::move(peer)) {
    transport_->start([this](std::string m) { receive(std::move(m)); },
                      [this](const std::string& why) { lost(why); });
}

CdpConnection::~CdpConnection() { close(); }

void CdpConnection::close() {
    transport_->close();
    lost("the connection was closed");
}

void CdpConnection::onEvent(EventHandler handler) {
    std::lock_guard<std::mutex> lk(mu_);
    handlers_.push_back(std::move(handler));
}

bool CdpConnection::alive() const {
    std::lock_guard<std::mutex> lk(mu_);
    return lost_.empty();
}

std::string CdpConnection::lostReason() const {
    std::lock_guard<std::mutex> lk(mu_);
    return lost_;
}

void CdpConnection::lost(const std::string& reason) {
    {
        std::lock_guard<std::mutex> lk(mu_);
        if (!lost_.empty()) return;
        lost_ = reason.empty() ? "the connection was closed" : reason;
    }
    cv_.notify_all();
}

void CdpConnection::failSession(const std::string& session, const std::string& reason) {
    {
        std::lock_guard<std::mutex> lk(mu_);
        failed_.emplace(session, reason);
    }
    cv_.notify_all();
}

void CdpConnection::receive(std::string text) {
    nlohmann::json msg = nlohmann::json::parse(text, nullptr, false);
    if (!msg.is_object()) return;  // not a protocol message: ignored
    if (msg.contains("id") && msg["id"].is_number_integer()) {
        int64_t id = msg["id"].get<int64_t>();
        {
            std::lock_guard<std::mutex> lk(mu_);
            if (posted_.erase(id)) return;
            if (!waiting_.count(id)) return;  // no call waits for it (a far end's invention)
            answers_[id] = std::move(msg);
        }
        cv_.notify_all();
        return;
    }
    if (!msg.contains("method") || !msg["method"].is_string()) return;
    std::vector<EventHandler> hs;
    {
        std::lock_guard<std::mutex> lk(mu_);
        hs = handlers_;
    }
    const std::string method = msg["method"].get<std::string>();
    static const nlohmann::json kEmpty = nlohmann::json::object();
    const nlohmann::json& params = msg.contains("params") && msg["params"].is_object() ? msg["params"] : kEmpty;
    // An event the far end garbled is dropped: a handler's DeviceError must not end this thread.
    try {
        const std::string session = peerString(msg, "sessionId", peer_);
        for (auto& h : hs) h(method, params, session);
    } catch (const DeviceError&) {
    }
}

void CdpConnection::post(const std::string& method, const nlohmann::json& params, const std::string& session) {
    nlohmann::json msg{{"method", method}, {"params", params}};
    {
        std::lock_guard<std::mutex> lk(mu_);
        if (!lost_.empty()) return;
        msg["id"] = ++next_id_;
        posted_[next_id_] = true;
    }
    if (!session.empty()) msg["sessionId"] = session;
    transport_->send(msg.dump());
}

nlohmann::json CdpConnection::call(const std::string& method, const nlohmann::json& params,
                                   const std::string& session, double timeout) {
    nlohmann::json msg{{"method", method}, {"params", params.is_null() ? nlohmann::json::object() : params}};
    int64_t id = 0;
    {
        std::lock_guard<std::mutex> lk(mu_);
        if (!lost_.empty()) throw DeviceError(peer_ + " is gone: " + lost_ + " (" + method + ")");
        id = ++next_id_;
        waiting_.insert(id);
    }
    msg["id"] = id;
    if (!session.empty()) msg["sessionId"] = session;
    transport_->send(msg.dump());
    // Bounded by the call's own timeout, the step's deadline and the run's token (DeviceWait).
    DeviceWait wait(peer_, method, timeout);
    std::unique_lock<std::mutex> lk(mu_);
    while (!answers_.count(id)) {
        if (!lost_.empty()) {
            waiting_.erase(id);
            throw DeviceError(peer_ + " is gone: " + lost_ + " (" + method + ")");
        }
        if (!session.empty())
            if (auto f = failed_.find(session); f != failed_.end()) {
                waiting_.erase(id);
                throw DeviceError(peer_ + ": " + f->second + " (" + method + ")");
            }
        double slice = 0;
        try {
            slice = wait.slice();
        } catch (...) {
            waiting_.erase(id);  // cancelled: a late answer is dropped
            throw;
        }
        if (slice <= 0) {
            waiting_.erase(id);  // a late answer is dropped
            throw wait.expired();
        }
        cv_.wait_for(lk, std::chrono::duration<double>(slice));
    }
    nlohmann::json answer = std::move(answers_[id]);
    answers_.erase(id);
    waiting_.erase(id);
    lk.unlock();
    if (answer.contains("error")) {
        const auto& e = answer["error"];
        std::string text = method + ": " + (e.is_object() ? peerString(e, "message", peer_, "error") : e.dump());
        if (std::string data = e.is_object() ? peerString(e, "data", peer_) : ""; !data.empty()) text += " (" + data + ")";
        throw DeviceError(text);
    }
    return answer.contains("result") && answer["result"].is_object() ? answer["result"] : nlohmann::json::object();
}

}  // namespace eacu
