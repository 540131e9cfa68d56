// Two runs with their Lua scripts in one process, each on its own thread: a busy pure-Lua loop in
// one is stopped by cancelling its run (the watchdog's interrupt), and the other goes on.
#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <future>
#include <string>
#include <thread>

#include "base/Clock.h"
#include "device/DeviceFactory.h"
#include "host/LuaHost.h"
#include "runlog/RunLog.h"
#include "run/Run.h"

using namespace eacu;

namespace {

DeviceHandle imageDevice() { return openDevice(std::string("image:") + EACU_FIXTURES + "/xcalc.png"); }

// Runs `code` in a LuaHost bound to `run`, its watchdog set to interrupt it; returns the error
// ("" when it ended by itself) and the seconds it took.
std::pair<std::string, double> runScript(Run& run, const std::string& code, std::atomic<int>& started) {
    LuaHost host(&run.session());
    LuaHost* h = &host;
    run.watch([h] { h->interrupt(); }, nullptr, 0.5);
    double t0 = monotonicSeconds();
    ++started;
    std::string err = host.runString(code, "=busy");
    double secs = monotonicSeconds() - t0;
    run.finish(err);  // before the host goes: the watchdog may use it until then
    return {err, secs};
}

}  // namespace

TEST_CASE("LuaHost: two busy scripts in one process; cancelling one run stops only its script", "[host]") {
    char tmpl[] = "/tmp/eacu-test-hosts-XXXXXX";
    REQUIRE(mkdtemp(tmpl) != nullptr);
    std::string dir = tmpl;
    AssetLibrary assets;
    Locator locator;
    RunSpec spec;
    spec.db = dir + "/runs.db";
    spec.script = "busy-a";
    Run a(imageDevice(), assets, locator, spec);
    spec.script = "busy-b";
    spec.limits.max_seconds = 2;  // b stops at its own deadline
    Run b(imageDevice(), assets, locator, spec);

    std::atomic<int> started{0};
    const std::string busy = "local n = 0 while true do n = n + 1 end";
    auto fa = std::async(std::launch::async, runScript, std::ref(a), busy, std::ref(started));
    auto fb = std::async(std::launch::async, runScript, std::ref(b), busy, std::ref(started));
    double t0 = monotonicSeconds();
    while (started < 2 && monotonicSeconds() - t0 < 5) std::this_thread::sleep_for(std::chrono::milliseconds(5));
    REQUIRE(started == 2);

    double cancelled_at = monotonicSeconds();
    a.cancel("stopped by the test");
    auto ra = fa.get();
    double a_stop = monotonicSeconds() - cancelled_at;
    CHECK_THAT(ra.first, Catch::Contains("cancelled"));
    CHECK(a_stop < 1.0);
    CHECK(fb.wait_for(std::chrono::seconds(0)) != std::future_status::ready);  // b is still looping
    auto rb = fb.get();
    CHECK_THAT(rb.first, Catch::Contains("time limit of 2 s"));
    CHECK(rb.second >= 1.9);
    CHECK(rb.second < 3.0);

    RunLog log(spec.db);
    CHECK(log.run(a.id())->status == "interrupted");
    CHECK(log.run(b.id())->status == "timed_out");
    std::filesystem::remove_all(dir);
}
