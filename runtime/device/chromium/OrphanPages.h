// The pages of a shared headless Chromium (serve's and a worker's `--device chromium`) that a
// run opened and did not close: a run killed (SIGKILL) or crashed leaves its page open, and with
// it a renderer of 100-200 MB, for the browser's whole life.
#pragma once
#include <condition_variable>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>

namespace eacu {

class CdpConnection;

/// Watches one browser from a thread of its own and closes its orphaned pages: a page target
/// (Target.getTargets) that no client is attached to on two looks `period` seconds apart (a run
/// attaches to the page it creates within one round trip, so a page being opened is never
/// taken), other than those open when the watch began (the browser's first tab: closing the last
/// page may end a headless browser) and windows opened by a page still open (their `openerId`).
/// Each page closed is said on stderr with its URL.
class OrphanPages {
public:
    /// `ws_url`: the browser's "ws://127.0.0.1:PORT/devtools/browser/ID"; `peer` names it in
    /// messages. Connects and notes the pages open now, waiting up to `timeout` seconds for the
    /// first tab; throws DeviceError when it cannot connect or no page comes.
    OrphanPages(const std::string& ws_url, const std::string& peer, double period = 5.0, double timeout = 10.0);
    /// Stops the thread (within one call's bound, 5 s) and closes the connection.
    ~OrphanPages();
    OrphanPages(const OrphanPages&) = delete;
    OrphanPages& operator=(const OrphanPages&) = delete;

private:
    void loop();
    // One look (what the thread does every `period` seconds): closes the pages that were not
    // attached at the last look and are still not. Throws DeviceError/DeviceStalled when the
    // browser does not answer within 5 s.
    void look();

    std::unique_ptr<CdpConnection> cdp_;
    std::string peer_;
    double period_;
    std::set<std::string> kept_, unattached_;
    std::mutex mu_;
    std::condition_variable cv_;
    bool stop_ = false;
    std::thread thread_;
};

}  // namespace eacu
