// Serve's worker protocol lines (docs/serve-protocol.md) from a hostile end, both ways:
// - the server's reader of a worker's lines: TaskEvents::line (progress, steps, answers, the
//   awaiting and paused states, writes to a run log of its own) and liveFrameOfLine for each
//   line of the input;
// - the worker's reader of the server's lines: a ServeChannel on one end of a socket pair whose
//   other end sends the input and then closes; the run asks the person, passes a checkpoint
//   (a take_over line pauses it and injects input events through the handler) and the lease
//   check, then answers and ends.
// Invariants: nothing escapes TaskEvents; the channel throws only Cancelled and StepError.
#include <sys/socket.h>
#include <unistd.h>

#include <cstdint>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "FuzzCommon.h"
#include "base/Cancel.h"
#include "run/ServeChannel.h"
#include "server/LiveLine.h"
#include "server/ServiceStore.h"
#include "server/TaskEvents.h"
#include "step/StepError.h"

using namespace eacu;
using namespace eacu::server;

namespace {

ServiceStore& store() {
    static ServiceStore s((fuzz::scratch() / "serve-lines.db").string());
    return s;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string input(reinterpret_cast<const char*>(data), size);

    // The server reading a worker.
    TaskRecord task = store().with([](ServiceLog& log) {
        int64_t sid = log.createSession("fuzz");
        return *log.task(log.createTask(sid, "task", "fuzz"));
    });
    try {
        TaskEvents ev(store(), task);
        ev.running();
        size_t start = 0;
        while (start <= input.size()) {
            size_t nl = input.find('\n', start);
            std::string line = input.substr(start, nl == std::string::npos ? std::string::npos : nl - start);
            ev.line(line);
            auto j = nlohmann::json::parse(line, nullptr, false);
            if (j.is_object()) liveFrameOfLine(task.id, j);
            if (nl == std::string::npos) break;
            start = nl + 1;
        }
        ev.ended("failed", "", "fuzz");
    } catch (const std::exception& e) {
        std::fprintf(stderr, "TaskEvents threw: %s\n", e.what());
        fuzz::broken("an exception escaped the server's reader of worker lines");
    }

    // A worker reading the server.
    int sv[2];
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) fuzz::broken("socketpair");
    {
        ServeChannel ch(sv[0]);
        ch.setInputHandler([](const nlohmann::json& event) { return nlohmann::json{{"action", "tap"}, {"event", event}}; });
        ch.setStopHandler([](const std::string&) {});
        std::thread writer([&] {
            size_t off = 0;
            while (off < input.size()) {
                ssize_t n = ::send(sv[1], input.data() + off, input.size() - off, MSG_NOSIGNAL);
                if (n <= 0) break;
                off += size_t(n);
            }
            ::shutdown(sv[1], SHUT_WR);
        });
        CancelToken cancel;
        auto step = [&](auto&& f) {
            try {
                f();
            } catch (const Cancelled&) {
            } catch (const StepError&) {
            }
        };
        ch.run(1);
        step([&] { ch.checkpoint(cancel); });
        step([&] { ch.ask("what?", cancel); });
        step([&] { ch.checkLease(); });
        step([&] { ch.checkpoint(cancel); });
        ch.answer("done");
        ch.end("completed", "");
        writer.join();
    }
    ::close(sv[1]);
    return 0;
}
