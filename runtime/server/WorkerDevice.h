// The device a worker (a local one of `eacu serve`, or `eacu worker`) runs its tasks on when it
// is not an X display: `--device chromium[:WxH[@S]]`, `cdp:URL`, `adb[:SERIAL]`,
// `agent:HOST:PORT`. Each task's run gets `eacu run --device <runSpec()>`; nothing is started
// per task (no Xvfb, no window manager, no --launch programs).
#pragma once
#include <memory>
#include <string>

namespace eacu {
class ChromiumBrowser;
class OrphanPages;
}

namespace eacu::server {

class WorkerDevice {
public:
    /// Parses `spec` (parseDeviceSpec) and, for "chromium[:WxH[@S]]", starts ONE headless
    /// Chromium for this worker process (stopped by the destructor); every run opens a page of
    /// its own in it, and a page whose run was killed or crashed is closed (OrphanPages).
    /// Throws std::invalid_argument for a spec that is an X display ("virtual", ":N": those are
    /// --display), an image, or malformed; DeviceError when Chromium cannot start.
    explicit WorkerDevice(const std::string& spec);
    /// Checks `eacu serve`'s or `eacu worker`'s other options for a --device `spec` that is not
    /// an X display: an image is no screen to act on, and nothing is started on such a device,
    /// so `launch` (--launch given) and a window manager `wm` other than ""/"none" are refused.
    /// Throws std::invalid_argument naming what was expected and what came.
    static void checkOptions(const std::string& spec, bool launch, const std::string& wm);
    ~WorkerDevice();
    WorkerDevice(const WorkerDevice&) = delete;
    WorkerDevice& operator=(const WorkerDevice&) = delete;

    /// The spec each run is given: "cdp:http://127.0.0.1:PORT#WxH@S" for chromium, else `spec`.
    const std::string& runSpec() const { return run_spec_; }
    /// The kind for the worker registry and messages: "chromium", "cdp", "adb", "agent".
    const std::string& kind() const { return kind_; }
    /// How many runs may use it at once: chromium and cdp any number (a page each); adb and
    /// agent one (one screen).
    bool shared() const { return shared_; }

private:
    std::unique_ptr<ChromiumBrowser> browser_;
    std::unique_ptr<OrphanPages> orphans_;  // before the browser goes
    std::string run_spec_, kind_;
    bool shared_ = false;
};

}  // namespace eacu::server
