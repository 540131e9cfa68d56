#include "repl/ReplRecorder.h"

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <stdexcept>

#include "Cli.h"
#include "StudioDevice.h"
#include "device/chromium/ChromiumDevice.h"
#include "studio/Studio.h"
#include "studio/StudioHttp.h"

namespace eacu {

namespace {

// The --device a play-back from the studio page runs with: the session's own Chromium for a
// browser the REPL started (a page of its own beside the session's), else the spec as given.
std::string playbackSpec(Device& device, const std::string& spec) {
    if (auto* c = dynamic_cast<ChromiumDevice*>(&device); c && !c->endpoint().empty()) {
        char metrics[64];
        std::snprintf(metrics, sizeof metrics, "#%dx%d@%g", c->metrics().viewport.w, c->metrics().viewport.h,
                      c->metrics().scale);
        return "cdp:" + c->endpoint() + metrics;
    }
    return spec;
}

}  // namespace

ReplRecorder::ReplRecorder() = default;

ReplRecorder::~ReplRecorder() {
    stopping_ = true;
    if (poller_.joinable()) poller_.join();
    stopStudio();
}

std::string ReplRecorder::start(const ReplDevice& d, const ScriptOptions& o) {
    if (active()) throw std::runtime_error("record: already recording (stop() first)");
    options_ = o;
    if (!d.display.empty()) {
        device_ = openDevice(d.display);
        recorder_ = std::make_unique<PersonRecorder>(*device_.device, d.display, false);
        stopping_ = false;
        error_.clear();
        poller_ = std::thread([this] {
            try {
                // The stop key ends the polling; the lines are written at stop().
                while (!stopping_ && !recorder_->poll()) std::this_thread::sleep_for(std::chrono::milliseconds(15));
            } catch (const std::exception& e) {
                error_ = e.what();
            }
        });
        return "recording what you do on " + d.display + " (no accessibility tree here); stop() writes it as script lines";
    }
    if (!d.device || !d.assets) throw std::runtime_error("record: the session has no device");
    const DeviceSpec spec = parseDeviceSpec(d.spec.empty() ? ":0" : d.spec);
    if (spec.kind == DeviceSpec::Kind::Image)
        throw std::runtime_error("record: " + d.device->describe() + " is an image: it takes no input to record");
    // The studio's record mode on the session's own device (as `eacu record --device SPEC`
    // does): the person acts on its live screen in the browser; each action is performed on the
    // device through a session of the studio's own (the REPL's run log keeps the REPL's steps).
    SessionOptions so;
    studio_session_ = std::make_unique<Session>(*d.device, *d.assets, locator_, nullptr, 0, so);
    studio::StudioOptions opts;
    opts.script = (std::filesystem::path(o.assets_dir).parent_path() / "repl-studio.lua").string();
    opts.assets_dir = o.assets_dir;
    opts.assets_ref = o.assets_ref;
    opts.eacu = selfPath();
    opts.run_device = playbackSpec(*d.device, d.spec);
    opts.device_kind = studioDeviceKind(spec.kind);
    opts.tree_source = studioTreeSource(*d.device, spec.kind);
    const std::string described = d.device->describe();
    opts.header = {"Written in eacu repl's record() on " + described + "."};
    try {
        studio_ = std::make_unique<studio::Studio>(*d.device, *studio_session_, locator_, opts);
        if (!studio_->waitFirst(20)) throw std::runtime_error("record: the device gave no screen within 20 s: " + described);
        server::HttpOptions http;
        http.port = 8766;
        http.heartbeat = 5;
        int port = 0;
        server_ = std::make_unique<studio::StudioHttp>(*studio_, http);
        try {
            port = server_->bind();
        } catch (const std::exception&) {  // 8766 taken (an eacu studio, another REPL): any free port
            http.port = 0;
            server_ = std::make_unique<studio::StudioHttp>(*studio_, http);
            port = server_->bind();
        }
        listener_ = std::thread([this] { server_->listen(); });
        return "eacu studio: http://127.0.0.1:" + std::to_string(port) + "/\nrecording what you do on " + described +
               " in the studio's page above (record mode, tree " + (opts.tree_source.empty() ? "none" : opts.tree_source) +
               "); stop() writes the lines proven there";
    } catch (...) {
        stopStudio();
        throw;
    }
}

void ReplRecorder::stopStudio() {
    if (server_) server_->stop();
    if (listener_.joinable()) listener_.join();
    server_.reset();
    studio_.reset();
    if (studio_session_) studio_session_->stopProcesses();
    studio_session_.reset();
}

WrittenScript ReplRecorder::stop() {
    if (!active()) throw std::runtime_error("stop: not recording (record() first)");
    if (studio_) {
        // A line is returned once proven, as the studio saves it.
        if (!studio_->waitProven(120))
            throw std::runtime_error("stop: a line's proof still runs after 120 s; the studio keeps recording: stop() again");
        WrittenScript w;
        for (const std::string& line : studio_->lineTexts()) w.lua += line + "\n";
        stopStudio();
        return w;
    }
    stopping_ = true;
    poller_.join();
    std::vector<ScriptItem> items = recorder_->finish();
    recorder_.reset();
    device_ = DeviceHandle{};
    if (!error_.empty()) throw std::runtime_error("stop: the recording failed: " + error_);
    return writeScript(items, locator_, options_);
}

}  // namespace eacu
