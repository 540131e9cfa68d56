#include "device/chromium/OrphanPages.h"

#include <chrono>
#include <cstdio>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/Clock.h"
#include "device/Device.h"
#include "device/chromium/CdpConnection.h"
#include "device/chromium/WebSocketTransport.h"

namespace eacu {

namespace {

constexpr double kCallTimeout = 5.0;

struct PageTarget {
    std::string id, url, opener;
    bool attached = false;
};

std::vector<PageTarget> pageTargets(CdpConnection& cdp) {
    std::vector<PageTarget> out;
    nlohmann::json r = cdp.call("Target.getTargets", nlohmann::json::object(), "", kCallTimeout);
    if (!r.contains("targetInfos") || !r["targetInfos"].is_array()) return out;
    for (const auto& t : r["targetInfos"]) {
        if (!t.is_object() || t.value("type", "") != "page" || !t.contains("targetId") || !t["targetId"].is_string())
            continue;
        std::string opener = t.contains("openerId") && t["openerId"].is_string() ? t["openerId"].get<std::string>() : "";
        out.push_back({t["targetId"].get<std::string>(), t.value("url", ""), opener, t.value("attached", false)});
    }
    return out;
}

}  // namespace

OrphanPages::OrphanPages(const std::string& ws_url, const std::string& peer, double period, double timeout)
    : peer_(peer), period_(period) {
    cdp_ = std::make_unique<CdpConnection>(openWebSocket(ws_url, timeout), peer);
    const double deadline = monotonicSeconds() + timeout;
    for (;;) {
        for (const PageTarget& p : pageTargets(*cdp_)) kept_.insert(p.id);
        if (!kept_.empty()) break;
        if (monotonicSeconds() > deadline)
            throw DeviceError(peer_ + ": no page target within " + std::to_string(int(timeout)) + " s of its start");
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    thread_ = std::thread([this] { loop(); });
}

OrphanPages::~OrphanPages() {
    {
        std::lock_guard<std::mutex> lk(mu_);
        stop_ = true;
    }
    cv_.notify_all();
    if (thread_.joinable()) thread_.join();
    if (cdp_) cdp_->close();
}

void OrphanPages::look() {
    std::set<std::string> now, open;
    const std::vector<PageTarget> pages = pageTargets(*cdp_);
    for (const PageTarget& p : pages) open.insert(p.id);
    for (const PageTarget& p : pages) {
        // A window a page opened (window.open) is its page's while that page is open.
        if (p.attached || kept_.count(p.id) || open.count(p.opener)) continue;
        now.insert(p.id);
        if (!unattached_.count(p.id)) continue;  // first seen unattached: perhaps being opened
        cdp_->call("Target.closeTarget", {{"targetId", p.id}}, "", kCallTimeout);
        now.erase(p.id);
        std::fprintf(stderr, "eacu: %s: closed a page its run left open (%s)\n", peer_.c_str(),
                     p.url.substr(0, 120).c_str());
    }
    unattached_ = std::move(now);
}

void OrphanPages::loop() {
    for (;;) {
        {
            std::unique_lock<std::mutex> lk(mu_);
            if (cv_.wait_for(lk, std::chrono::duration<double>(period_), [this] { return stop_; })) return;
        }
        try {
            look();
        } catch (const std::exception& e) {
            // A browser busy or gone: the next look tries again (serve reports a dead browser
            // through its runs).
            std::fprintf(stderr, "eacu: %s: looking for pages left open: %s\n", peer_.c_str(), e.what());
        }
    }
}

}  // namespace eacu
