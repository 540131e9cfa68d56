// eacu serve: the live service (issue 12; seeds 000 and 001): a chat page at /, seed
// 001's chat API with its SSE stream and seed 000's task API, each task a run of its own in a
// worker process on a private Xvfb, queued on N workers, all of it kept in the run log.
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>

#include "Cli.h"
#include "StopSignals.h"
#include "commands/Commands.h"
#include "device/DeviceFactory.h"
#include "server/ChatService.h"
#include "server/HttpServer.h"
#include "server/RedisTaskQueue.h"
#include "server/RemoteTasks.h"
#include "server/TaskQueue.h"
#include "server/WorkerDevice.h"

namespace eacu {

/// `eacu serve [--host H] [--port P] [--workers N] [--display virtual|virtual:WxH|:N]
/// [--device chromium[:WxH[@S]]|cdp:URL|adb[:SERIAL]|agent:HOST:PORT] [--db PATH]
/// [--token T] [--launch CMD]... [--allow-scripts] [--click-check] [--max-actions N] [--max-time S]
/// [--heartbeat S] [--queue redis://[USER:PASSWORD@]HOST:PORT[/DB]] [--reaper S] [--events-ttl S]`.
int cmdServe(int argc, char** argv) {
    CliOptions o;
    server::ServeConfig config;
    server::HttpOptions http;
    server::RedisUrl queue_url;
    std::string device_spec;  // --device that is not an X display
    try {
        o = parseCli(argc, argv, 2,
                     {"--host", "--port", "--workers", "--token", "--launch", "--max-actions", "--max-time", "--heartbeat",
                      "--queue", "--reaper", "--events-ttl"},
                     {"--allow-scripts", "--click-check"});
        if (!o.positional.empty()) throw UsageError("unexpected argument \"" + o.positional[0] + "\" (see eacu serve --help)");
        // --launch may be given several times: every one counts, in order.
        for (int i = 2; i + 1 < argc; ++i)
            if (std::strcmp(argv[i], "--launch") == 0) config.launch.push_back(argv[++i]);
        if (auto v = o.flag("--host")) http.host = *v;
        if (auto v = o.flag("--port")) http.port = integerFlag("--port", *v, 0, 65535);
        if (auto v = o.flag("--token")) http.token = *v;
        else if (const char* t = std::getenv("EACU_TOKEN"); t && *t) http.token = t;  // kept out of ps
        if (auto v = o.flag("--heartbeat")) http.heartbeat = numberFlag("--heartbeat", *v, 0.1, 3600, "[0.1, 3600] (seconds)");
        if (auto v = o.flag("--queue")) {
            queue_url = server::RedisUrl::parse(*v);  // throws std::invalid_argument (no password in it)
            config.queue = queue_url.redacted();
            config.workers = 0;
        }
        if (auto v = o.flag("--workers")) config.workers = integerFlag("--workers", *v, config.queue.empty() ? 1 : 0, 64);
        if (!config.queue.empty() && config.workers > 0)
            throw UsageError("--workers " + std::to_string(config.workers) +
                             ": with --queue every task runs on an `eacu worker` (--workers 0); start one on this "
                             "machine for local tasks");
        if (auto v = o.flag("--reaper")) config.reaper_seconds = numberFlag("--reaper", *v, 0.1, 3600, "[0.1, 3600] (seconds)");
        if (auto v = o.flag("--events-ttl"))
            config.events_ttl = numberFlag("--events-ttl", *v, 1, 1e7, "[1, 1e7] (seconds)");
        if (auto v = o.flag("--max-actions")) config.max_actions = integerFlag("--max-actions", *v, 0, 1000000);
        if (auto v = o.flag("--max-time"))
            config.max_seconds = numberFlag("--max-time", *v, 0, 1e7, "[0, 1e7] (seconds; 0 = no limit)");
        config.allow_scripts = o.flag("--allow-scripts").has_value();
        if (config.allow_scripts && http.token.empty())
            throw UsageError("--allow-scripts needs --token: Lua source runs anything the server's user may run");
        if (o.flag("--click-check")) config.worker_env["EACU_CLICK_CHECK"] = "1";
        std::string display = o.display.empty() ? "virtual" : o.display;
        DeviceSpec spec = parseDeviceSpec(display);
        if (spec.kind == DeviceSpec::Kind::Virtual) {
            config.display = "virtual";
            config.screen_w = spec.size.w;
            config.screen_h = spec.size.h;
            config.wm = o.wm;
        } else if (spec.kind == DeviceSpec::Kind::X11) {
            if (!o.wm.empty() && o.wm != "none")
                throw UsageError("--wm " + o.wm + ": expected --display virtual (eacu starts a window manager "
                                 "only on its own Xvfb), got --display " + display);
            config.display = spec.display;
            if (config.workers > 1 && o.flag("--workers"))
                std::fprintf(stderr, "eacu serve: every task runs on %s, so one worker (not %d)\n", spec.display.c_str(),
                             config.workers);
            config.workers = std::min(config.workers, 1);
        } else {
            // A device that is not an X display: no Xvfb, no window manager, no programs.
            server::WorkerDevice::checkOptions(display, !config.launch.empty(), o.wm);
            if (!config.queue.empty())
                throw UsageError("--device " + display + " with --queue: every task runs on an `eacu worker`; give "
                                 "it the device (eacu worker --device " + display + ")");
            device_spec = display;
        }
        config.db = runLogPath(o);
        config.eacu = selfPath();
    } catch (const UsageError& e) {
        std::fprintf(stderr, "eacu serve: %s\n", e.what());
        return 2;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "eacu serve: %s\n", e.what());
        return 2;
    }

    // SIGINT/SIGTERM are taken by one thread (sigwait), so no handler runs inside a request.
    sigset_t sigs = blockStopSignals();
    try {
        // One device for all local workers (for chromium ONE browser, a page per task), kept
        // until the workers are gone.
        std::unique_ptr<server::WorkerDevice> device;
        if (!device_spec.empty()) {
            device = std::make_unique<server::WorkerDevice>(device_spec);
            config.device = device->runSpec();
            if (!device->shared()) config.workers = std::min(config.workers, 1);  // one screen
        }
        server::ServiceStore store(config.db);
        std::unique_ptr<server::RemoteTasks> remote;
        std::unique_ptr<server::TaskQueue> queue;
        if (!config.queue.empty()) {
            remote = std::make_unique<server::RemoteTasks>(store, config, queue_url);
            queue = std::make_unique<server::RedisTaskQueue>(*remote);
        } else {
            queue = std::make_unique<server::LocalTaskQueue>();
        }
        server::ChatService chat(store, config, *queue, remote.get());
        server::HttpServer httpServer(chat, http);
        int port = httpServer.bind();
        const std::string where = remote ? ", queue " + remote->where() : "";
        const std::string screen = device ? "device " + device->kind() + " " + device->runSpec() : "display " + config.display;
        std::printf("eacu serve: listening on http://%s:%d/ (%d worker%s, %s, run log %s%s)\n",
                    http.host.find(':') != std::string::npos ? ("[" + http.host + "]").c_str() : http.host.c_str(), port,
                    config.workers, config.workers == 1 ? "" : "s", screen.c_str(), config.db.c_str(),
                    where.c_str());
        std::fflush(stdout);
        std::atomic<bool> done{false};
        std::thread watcher([&] {
            int sig = 0;
            sigwait(&sigs, &sig);
            if (done) return;  // woken below: listen() ended by itself
            std::fprintf(stderr, "eacu serve: %s: stopping\n", sig == SIGINT ? "SIGINT" : "SIGTERM");
            httpServer.stop();
        });
        bool ok = httpServer.listen();
        done = true;
        pthread_kill(watcher.native_handle(), SIGTERM);
        watcher.join();
        chat.shutdown();
        if (remote) remote->shutdown();
        return ok ? 0 : 1;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "eacu serve: %s\n", e.what());
        return 1;
    }
}

}  // namespace eacu
