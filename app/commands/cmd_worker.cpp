// eacu worker (issue 26): one machine's worker of an `eacu serve --queue redis://...`: it takes
// tasks from the Redis queue and runs each as a local worker of eacu serve does (its private
// Xvfb, the --launch programs, `eacu run --serve-fd 3`), reporting through Redis.
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstring>
#include <thread>

#include "Cli.h"
#include "StopSignals.h"
#include "commands/Commands.h"
#include "device/DeviceFactory.h"
#include "process/ProcessIdentity.h"
#include "server/RemoteWorker.h"
#include "server/WorkerDevice.h"

namespace eacu {

/// `eacu worker --queue URL [--slots N] [--display virtual|virtual:WxH|:N]
/// [--device chromium[:WxH[@S]]|cdp:URL|adb[:SERIAL]|agent:HOST:PORT] [--wm WM]
/// [--launch CMD]... [--name NAME] [--db PATH] [--lease S] [--heartbeat S] [--events-ttl S]
/// [--click-check] [--allow-scripts] [--drain S]`.
int cmdWorker(int argc, char** argv) {
    server::WorkerOptions w;
    std::string device_spec;  // --device that is not an X display
    try {
        CliOptions o = parseCli(argc, argv, 2,
                                {"--queue", "--slots", "--launch", "--name", "--lease", "--heartbeat", "--events-ttl",
                                 "--device", "--drain"},
                                {"--click-check", "--allow-scripts"});
        if (!o.positional.empty()) throw UsageError("unexpected argument \"" + o.positional[0] + "\" (see eacu worker --help)");
        auto q = o.flag("--queue");
        if (!q) throw UsageError("expected --queue redis://[USER:PASSWORD@]HOST:PORT[/DB] (the server's queue)");
        w.url = server::RedisUrl::parse(*q);
        for (int i = 2; i + 1 < argc; ++i)
            if (std::strcmp(argv[i], "--launch") == 0) w.config.launch.push_back(argv[++i]);
        if (auto v = o.flag("--slots")) w.slots = integerFlag("--slots", *v, 1, 64);
        w.name = o.flag("--name").value_or(hostName() + "-" + std::to_string(::getpid()));
        if (w.name.empty() || w.name.find_first_of(" \t\r\n") != std::string::npos)
            throw UsageError("--name: expected a name without spaces, got \"" + w.name + "\"");
        if (auto v = o.flag("--lease"))
            w.config.lease_seconds = numberFlag("--lease", *v, 0.5, 3600, "[0.5, 3600] (seconds)");
        if (auto v = o.flag("--heartbeat"))
            w.config.heartbeat_seconds = numberFlag("--heartbeat", *v, 0.1, 3600, "[0.1, 3600] (seconds)");
        if (!o.flag("--heartbeat")) w.config.heartbeat_seconds = std::min(w.config.heartbeat_seconds, w.config.lease_seconds / 4);
        if (w.config.heartbeat_seconds * 2 > w.config.lease_seconds)
            throw UsageError("--heartbeat " + std::to_string(w.config.heartbeat_seconds) +
                             ": expected at most half the lease (" + std::to_string(w.config.lease_seconds) + " s)");
        if (auto v = o.flag("--drain")) w.drain_seconds = numberFlag("--drain", *v, 0, 86400, "[0, 86400] (seconds)");
        if (auto v = o.flag("--events-ttl"))
            w.config.events_ttl = numberFlag("--events-ttl", *v, 1, 1e7, "[1, 1e7] (seconds)");
        if (o.flag("--click-check")) w.config.worker_env["EACU_CLICK_CHECK"] = "1";
        w.config.allow_scripts = o.flag("--allow-scripts").has_value();
        std::string display = o.display.empty() ? "virtual" : o.display;
        DeviceSpec spec = parseDeviceSpec(display);
        if (spec.kind == DeviceSpec::Kind::Virtual) {
            w.config.screen_w = spec.size.w;
            w.config.screen_h = spec.size.h;
            w.config.wm = o.wm;
        } else if (spec.kind == DeviceSpec::Kind::X11) {
            if (!o.wm.empty() && o.wm != "none")
                throw UsageError("--wm " + o.wm + ": expected --display virtual, got --display " + display);
            w.config.display = spec.display;
            w.device = "x11";
            w.slots = 1;  // every task on the one display
        } else {
            server::WorkerDevice::checkOptions(display, !w.config.launch.empty(), o.wm);
            device_spec = display;
        }
        w.config.db = runLogPath(o);
        w.config.eacu = selfPath();
    } catch (const std::exception& e) {
        std::fprintf(stderr, "eacu worker: %s\n", e.what());
        return 2;
    }

    sigset_t sigs = blockStopSignals();
    try {
        // ONE device for all slots (for chromium one browser, a page per task), kept until the
        // worker is gone.
        std::unique_ptr<server::WorkerDevice> device;
        if (!device_spec.empty()) {
            device = std::make_unique<server::WorkerDevice>(device_spec);
            w.config.device = device->runSpec();
            w.device = device->kind();
            if (!device->shared()) w.slots = 1;  // one screen
        }
        const std::string name = w.name, where = w.url.redacted();
        const int slots = w.slots;
        const double lease = w.config.lease_seconds, hb = w.config.heartbeat_seconds, drain_s = w.drain_seconds;
        server::RemoteWorker worker(std::move(w));
        std::printf("eacu worker: %s on %s (%d slot%s, lease %.1f s, heartbeat %.1f s)\n", name.c_str(), where.c_str(),
                    slots, slots == 1 ? "" : "s", lease, hb);
        std::fflush(stdout);
        // SIGTERM with --drain: take no new task and let the running ones end (up to --drain s);
        // SIGINT, a second SIGTERM, or SIGTERM without --drain: stop the running tasks now.
        std::atomic<bool> stop{false}, drain{false};
        std::thread watcher([&] {
            for (;;) {
                int sig = 0;
                sigwait(&sigs, &sig);
                if (stop) return;
                if (sig == SIGTERM && drain_s > 0 && !drain) {
                    std::fprintf(stderr, "eacu worker: SIGTERM: draining (a second SIGTERM stops the running tasks)\n");
                    drain = true;
                    continue;
                }
                std::fprintf(stderr, "eacu worker: %s: stopping\n", sig == SIGINT ? "SIGINT" : "SIGTERM");
                stop = true;
                return;
            }
        });
        int code = worker.run(stop, &drain);
        if (!stop.exchange(true)) pthread_kill(watcher.native_handle(), SIGTERM);
        watcher.join();
        return code;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "eacu worker: %s\n", e.what());
        return 1;
    }
}

}  // namespace eacu
