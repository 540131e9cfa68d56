// eacu studio (issue 37): the device's live screen in the browser; what a person does there is
// performed on the device and written as a script whose targets are proven (docs/studio.md).
#include <pthread.h>
#include <signal.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>

#include "Cli.h"
#include "StopSignals.h"
#include "StudioDevice.h"
#include "ScriptFile.h"
#include "assets/AssetLibrary.h"
#include "commands/Commands.h"
#include "device/AppControl.h"
#include "device/DeviceFactory.h"
#include "device/agent/AgentDevice.h"
#include "server/WorkerDevice.h"
#include "step/Session.h"
#include "studio/Studio.h"
#include "studio/StudioHttp.h"
#include "vision/Locator.h"

namespace eacu {

std::string studioTreeSource(Device& device, DeviceSpec::Kind kind) {
    try {
        device.accessibility();
    } catch (const std::exception&) {
        return "";
    }
    switch (kind) {
    case DeviceSpec::Kind::X11:
    case DeviceSpec::Kind::Virtual: return "AT-SPI";
    case DeviceSpec::Kind::Adb: return "uiautomator";
    case DeviceSpec::Kind::Agent:
        // The agent's own word: UI Automation where it could create it, else MSAA (Wine 8).
        if (auto* agent = dynamic_cast<AgentDevice*>(&device)) return agent->treeSource();
        return "UIA";
    case DeviceSpec::Kind::Chromium:
    case DeviceSpec::Kind::Cdp: return "CDP";
    default: return "accessibility";
    }
}

const char* studioDeviceKind(DeviceSpec::Kind k) {
    switch (k) {
    case DeviceSpec::Kind::X11:
    case DeviceSpec::Kind::Virtual: return "x11";
    case DeviceSpec::Kind::Adb: return "adb";
    case DeviceSpec::Kind::Agent: return "agent";
    case DeviceSpec::Kind::Chromium: return "chromium";
    case DeviceSpec::Kind::Cdp: return "cdp";
    case DeviceSpec::Kind::Image: return "image";
    }
    return "device";
}

/// `eacu studio [--device SPEC | --display :N|virtual[:WxH]] [--wm WM] [--launch CMD]...
/// [-o FILE.lua] [--assets DIR] [--port P] [--host H --token T]`.
int cmdStudio(int argc, char** argv) {
    CliOptions o;
    server::HttpOptions http;
    http.port = 8766;
    http.heartbeat = 5;
    std::vector<std::string> launches;
    ScriptFile file;
    bool save_on_exit = false;
    DeviceSpec spec;
    std::string device_spec;
    try {
        o = parseCli(argc, argv, 2, {"-o", "--output", "--assets", "--launch", "--host", "--port", "--token"}, {"--quiet"});
        if (!o.positional.empty()) throw UsageError("unexpected argument \"" + o.positional[0] + "\" (see eacu studio --help)");
        for (const auto& [name, value] : o.flags)
            if (name == "--launch") launches.push_back(value);
        if (auto v = o.flag("--host")) http.host = *v;
        if (auto v = o.flag("--port")) http.port = integerFlag("--port", *v, 0, 65535);
        if (auto v = o.flag("--token")) http.token = *v;
        else if (const char* t = std::getenv("EACU_TOKEN"); t && *t) http.token = t;  // kept out of ps
        save_on_exit = o.flag("-o") || o.flag("--output");
        if (!save_on_exit) o.flags.emplace_back("-o", "studio.lua");  // the save button's file
        file = scriptFileOf(o);
        device_spec = o.display.empty() ? "virtual" : o.display;
        spec = parseDeviceSpec(device_spec);
        if (spec.kind == DeviceSpec::Kind::Image)
            throw UsageError("--device " + device_spec + ": an image takes no input; expected an X display, chromium, cdp:URL, adb or agent:HOST:PORT");
    } catch (const std::exception& e) {
        std::fprintf(stderr, "eacu studio: %s\n", e.what());
        return 2;
    }

    sigset_t sigs = blockStopSignals();
    try {
        // chromium: one browser of our own; the studio and each play-back open its pages.
        std::unique_ptr<server::WorkerDevice> browser;
        std::string open_spec = device_spec;
        if (spec.kind == DeviceSpec::Kind::Chromium) {
            browser = std::make_unique<server::WorkerDevice>(device_spec);
            open_spec = browser->runSpec();
        }
        DeviceHandle handle = openDevice(open_spec, o.wm);
        // On X the capture thread keeps the handle's connection (and its tree); the input goes
        // through a second connection to the same display (one X connection is not shared
        // between threads). Other devices allow both from one (Device::concurrentCapture()).
        DeviceHandle input;
        Device* input_device = handle.device.get();
        if (!handle.display.empty() && !handle.device->concurrentCapture()) {
            input = openDevice(handle.display);
            input_device = input.device.get();
        }
        AssetLibrary assets;
        Locator locator;
        SessionOptions so;
        so.display = handle.display;
        so.env = handle.env;
        Session session(*input_device, assets, locator, nullptr, 0, so);
        // An X display starts programs (a shell command); a device with apps (Android) starts
        // the app of a package. Either is written as the script's `launch` line.
        for (const std::string& cmd : launches) {
            if (!handle.display.empty()) {
                session.launch({"/bin/sh", "-c", "exec " + cmd});
            } else if (auto* apps = dynamic_cast<AppControl*>(handle.device.get())) {
                apps->launchApp(cmd);
            } else {
                throw std::invalid_argument("--launch " + cmd + ": " + handle.device->describe() +
                                            " starts neither programs nor apps");
            }
        }

        studio::StudioOptions opts;
        opts.script = file.script.string();
        opts.assets_dir = file.assets_dir.string();
        opts.assets_ref = file.assets_ref;
        opts.launch = launches;
        opts.eacu = selfPath();
        opts.run_device = handle.display.empty() ? open_spec : handle.display;
        opts.device_kind = studioDeviceKind(spec.kind);
        opts.tree_source = studioTreeSource(*handle.device, spec.kind);
        const std::string described = handle.device->describe();
        opts.header = {"Written in eacu studio on " + described + ".",
                       "Each line says why its target was chosen; run it with: eacu run " +
                           file.script.filename().string()};
        studio::Studio studio(*handle.device, session, locator, opts);
        if (!studio.waitFirst(20)) throw std::runtime_error("the device gave no screen within 20 s: " + described);
        studio::StudioHttp server(studio, http);
        const int port = server.bind();
        const std::string host = http.host.find(':') != std::string::npos ? "[" + http.host + "]" : http.host;
        std::printf("eacu studio: http://%s:%d/%s\n", host.c_str(), port,
                    http.token.empty() ? "" : ("?access_token=" + http.token).c_str());
        std::printf("eacu studio: %s, tree %s; the script goes to %s (%s)\n", described.c_str(),
                    opts.tree_source.empty() ? "none" : opts.tree_source.c_str(), opts.script.c_str(),
                    save_on_exit ? "saved on Ctrl-C" : "saved by the page's save button");
        std::fflush(stdout);
        std::atomic<bool> done{false};
        std::thread watcher([&] {
            int sig = 0;
            sigwait(&sigs, &sig);
            if (done) return;
            std::fprintf(stderr, "eacu studio: %s: stopping\n", sig == SIGINT ? "SIGINT" : "SIGTERM");
            server.stop();
        });
        bool ok = server.listen();
        done = true;
        pthread_kill(watcher.native_handle(), SIGTERM);
        watcher.join();
        if (save_on_exit) {
            std::string path = studio.save();
            std::printf("eacu studio: wrote %s\n", path.c_str());
        }
        session.stopProcesses();
        return ok ? 0 : 1;
    } catch (const std::invalid_argument& e) {
        std::fprintf(stderr, "eacu studio: %s\n", e.what());
        return 2;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "eacu studio: %s\n", e.what());
        return 1;
    }
}

}  // namespace eacu
