// eacu record -o FILE.lua: what a person does on an X display, written as a runnable script.
#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <map>
#include <thread>

#include "Cli.h"
#include "ScriptFile.h"
#include "assets/AssetLibrary.h"
#include "base/Clock.h"
#include "commands/Commands.h"
#include "device/DeviceFactory.h"
#include "recorder/PersonRecorder.h"
#include "recorder/RecordedScript.h"
#include "step/Session.h"
#include "vision/Locator.h"

namespace eacu {

namespace {

volatile std::sig_atomic_t g_stop = 0;
void onStop(int) { g_stop = 1; }

double median(std::vector<double> v) {
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

}  // namespace

int cmdRecord(int argc, char** argv) {
    CliOptions o;
    try {
        o = parseCli(argc, argv, 2, {"-o", "--output", "--assets", "--launch"}, {"--quiet"});
    } catch (const std::exception& e) {
        std::fprintf(stderr, "eacu record: %s\n", e.what());
        return 2;
    }
    if (!(o.flag("-o") || o.flag("--output")) || !o.positional.empty()) {
        std::fprintf(stderr, "eacu record: expected -o FILE.lua (see eacu record --help)\n");
        return 2;
    }
    // Another device than an X display: the studio in record mode (the person acts on the
    // device's screen in the browser).
    if (!o.display.empty()) {
        DeviceSpec::Kind k;
        try {
            k = parseDeviceSpec(o.display).kind;
        } catch (const std::exception& e) {
            std::fprintf(stderr, "eacu record: %s\n", e.what());
            return 2;
        }
        if (k != DeviceSpec::Kind::X11 && k != DeviceSpec::Kind::Virtual && k != DeviceSpec::Kind::Image) {
            std::printf("eacu record: %s is not an X display: starting eacu studio in record mode\n", o.display.c_str());
            std::fflush(stdout);
            std::vector<char*> args(argv, argv + argc);
            static char studio[] = "studio";
            args[1] = studio;
            return cmdStudio(argc, args.data());
        }
    }
    bool quiet = std::any_of(o.flags.begin(), o.flags.end(), [](const auto& f) { return f.first == "--quiet"; });
    const ScriptFile file = scriptFileOf(o);
    std::vector<std::string> launches;
    for (const auto& [name, value] : o.flags)
        if (name == "--launch") launches.push_back(value);
    try {
        DeviceHandle handle = openDevice(o.display, o.wm);
        if (handle.display.empty()) {
            std::fprintf(stderr, "eacu record: expected an X display (:N or virtual[:WxH]), got %s\n",
                         handle.device->describe().c_str());
            return 2;
        }
        std::signal(SIGINT, onStop);
        std::signal(SIGTERM, onStop);
        AssetLibrary assets;
        Locator locator;
        SessionOptions so;
        so.display = handle.display;
        so.env = handle.env;
        Session session(*handle.device, assets, locator, nullptr, 0, so);
        std::string described = handle.device->describe();
        double scale = handle.device->scaleFactor();
        PersonRecorder recorder(*handle.device, handle.display, true);
        std::vector<ScriptItem> items;
        for (const std::string& cmd : launches) {
            session.launch({"/bin/sh", "-c", "exec " + cmd});
            ScriptItem it;
            it.launch = cmd;
            it.action.time = monotonicSeconds();
            items.push_back(it);
        }
        std::printf("eacu record: recording %s on %s; stop with Ctrl-C or the Pause key\n", described.c_str(),
                    handle.display.c_str());
        std::fflush(stdout);
        while (!g_stop && !recorder.poll()) std::this_thread::sleep_for(std::chrono::milliseconds(15));
        std::signal(SIGINT, SIG_DFL);
        std::signal(SIGTERM, SIG_DFL);
        for (ScriptItem& it : recorder.finish()) items.push_back(std::move(it));
        WrittenScript w = writeScriptFile(
            file, items, locator,
            {"Recorded by eacu record on " + described + " (device scale " + std::to_string(scale).substr(0, 4) + ").",
             "Each line says why its target was chosen; run it with: eacu run " + file.script.filename().string()});
        session.stopProcesses();
        if (!quiet) {
            std::printf("eacu record: wrote %s: %zu lines of actions (%d a11y, %d relative, %d text, %d image, %d coordinates; "
                        "%d alternatives)",
                        file.script.string().c_str(), items.size(), w.a11y, w.relative, w.text, w.image, w.points,
                        w.alternatives);
            if (!w.images.empty()) std::printf(", %zu images in %s", w.images.size(), file.assets_dir.string().c_str());
            std::printf("\n");
            if (!w.proof_ms.empty())
                std::printf("eacu record: analysis per pointer action: median %.1f ms, max %.1f ms (%zu actions)\n",
                            median(w.proof_ms), *std::max_element(w.proof_ms.begin(), w.proof_ms.end()), w.proof_ms.size());
            if (!w.proof_ms.empty() && w.locate_ms > 0)
                std::printf("eacu record: one full-frame locate of a crop (a replay's first look): %.1f ms; proof median / locate = %.1f\n",
                            w.locate_ms, median(w.proof_ms) / w.locate_ms);
            const std::vector<double>& ahead = recorder.readAheadMs();
            if (!ahead.empty())
                std::printf("eacu record: OCR band read while recording, per press: median %.1f ms, max %.1f ms (%zu presses)\n",
                            median(ahead), *std::max_element(ahead.begin(), ahead.end()), ahead.size());
        }
        return 0;
    } catch (const std::invalid_argument& e) {
        std::fprintf(stderr, "eacu record: %s\n", e.what());
        return 2;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "eacu record: %s\n", e.what());
        return 1;
    }
}

}  // namespace eacu
