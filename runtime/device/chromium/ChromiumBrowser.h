// One headless Chromium process with a private profile and its DevTools endpoint: what
// ChromiumDevice::launch starts for one run, and what a worker of `eacu serve` / `eacu worker
// --device chromium` starts once for all its runs (each run attaches a page of its own).
#pragma once
#include <memory>
#include <string>

#include "geometry/Rect.h"

namespace eacu {

class Process;

class ChromiumBrowser {
public:
    /// Starts `chromium` (a program name or path; "" = $EACU_CHROMIUM or "chromium") as
    /// `--headless=new --remote-debugging-port=0` with a fresh profile directory under $TMPDIR,
    /// a TMPDIR of its own (under $TMPDIR, or /tmp where $TMPDIR is too deep for Chromium's
    /// singleton socket; both removed when the browser is) and a window of `window` CSS pixels, and waits up to `timeout` seconds for the DevTools
    /// endpoint it writes (DevToolsActivePort). Throws DeviceError when it cannot start, exits
    /// first or does not answer in time (with the tail of its stderr).
    static std::unique_ptr<ChromiumBrowser> start(Size window, double timeout = 30, const std::string& chromium = "");
    /// Stops the process group (SIGTERM, then SIGKILL after 1 s) and removes the profile.
    ~ChromiumBrowser();
    ChromiumBrowser(const ChromiumBrowser&) = delete;
    ChromiumBrowser& operator=(const ChromiumBrowser&) = delete;

    /// "http://127.0.0.1:PORT" (for `cdp:` device specs and /json/version).
    const std::string& endpoint() const { return endpoint_; }
    /// The browser target's "ws://127.0.0.1:PORT/devtools/browser/ID".
    const std::string& webSocketUrl() const { return ws_; }
    /// "chromium (pid N)", for messages.
    const std::string& peer() const { return peer_; }
    Process& process() { return *process_; }

private:
    ChromiumBrowser() = default;
    std::unique_ptr<Process> process_;
    std::string profile_, tmp_, endpoint_, ws_, peer_;  // tmp_: Chromium's TMPDIR
};

}  // namespace eacu
