// A run as an object: two runs side by side in one process, cancelling one; the deadline; the
// watchdog. Each run has its own private Xvfb and its own connection to a temporary run log.
#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <future>
#include <string>
#include <thread>

#include "base/Cancel.h"
#include "base/Clock.h"
#include "device/DeviceFactory.h"
#include "runlog/RunLog.h"
#include "run/Run.h"
#include "step/StepError.h"

using namespace eacu;
namespace fs = std::filesystem;

namespace {

DeviceHandle privateDisplay() { return openDevice("virtual:640x480"); }

std::string tempDir() {
    char tmpl[] = "/tmp/eacu-test-run-XXXXXX";
    REQUIRE(mkdtemp(tmpl) != nullptr);
    return tmpl;
}

// What a wait for an image that is not on the (black) screen ended with, and after how long.
struct Ended {
    std::string how;  // cancelled | timeout | not_found
    double seconds = 0;
};

Ended waitForAbsent(Run& run, double timeout) {
    TargetSpec absent;
    absent.image = std::string(EACU_FIXTURES) + "/xcalc_digits.png";
    double t0 = monotonicSeconds();
    try {
        run.session().wait(absent, timeout);
        return {"found", monotonicSeconds() - t0};
    } catch (const Cancelled& e) {
        return {e.timeout ? "timeout" : "cancelled", monotonicSeconds() - t0};
    } catch (const StepError& e) {
        return {e.code, monotonicSeconds() - t0};
    }
}

}  // namespace

TEST_CASE("Run: two runs side by side in one process; cancelling one leaves the other running", "[run]") {
    std::string dir = tempDir();
    AssetLibrary assets;
    Locator locator;
    RunSpec spec;
    spec.db = dir + "/runs.db";
    spec.script = "run-a";
    Run a(privateDisplay(), assets, locator, spec);
    spec.script = "run-b";
    Run b(privateDisplay(), assets, locator, spec);
    REQUIRE(a.displayName() != b.displayName());
    REQUIRE(a.id() != b.id());

    auto fa = std::async(std::launch::async, waitForAbsent, std::ref(a), 20.0);
    auto fb = std::async(std::launch::async, waitForAbsent, std::ref(b), 3.0);
    a.cancel("stopped by the test");
    Ended ea = fa.get();
    CHECK(ea.how == "cancelled");
    CHECK(ea.seconds < 1.0);
    // b goes on looking: not cancelled, it ends by its own timeout.
    CHECK(fb.wait_for(std::chrono::seconds(0)) != std::future_status::ready);
    Ended eb = fb.get();
    CHECK(eb.how == failure::kNotFound);
    CHECK(eb.seconds >= 2.9);
    CHECK(!b.token()->cancelled());

    CHECK(a.finish("cancelled").status == "interrupted");
    CHECK(b.finish("not found").status == "failed");
    RunLog log(spec.db);
    CHECK(log.run(a.id())->status == "interrupted");
    CHECK(log.run(b.id())->status == "failed");
    fs::remove_all(dir);
}

TEST_CASE("Run: the time limit is the deadline of every wait; the run ends as timed_out", "[run]") {
    std::string dir = tempDir();
    AssetLibrary assets;
    Locator locator;
    RunSpec spec;
    spec.db = dir + "/runs.db";
    spec.script = "deadline";
    spec.limits.max_seconds = 1;
    Run r(privateDisplay(), assets, locator, spec);
    Ended e = waitForAbsent(r, 20);
    CHECK(e.how == "timeout");
    // The 1 s limit cut the 20 s wait short; the margin allows one capture + locate pass in
    // flight on a loaded machine (2 shared cores), not a wait that ignored the deadline.
    CHECK(e.seconds < 3.0);
    RunOutcome o = r.finish("the run's time limit of 1 s is used up");
    CHECK(o.status == "timed_out");
    CHECK(RunLog(spec.db).run(r.id())->status == "timed_out");
    fs::remove_all(dir);
}

TEST_CASE("Run: the watchdog interrupts the script, then finishes a run that does not stop", "[run]") {
    std::string dir = tempDir();
    AssetLibrary assets;
    Locator locator;
    RunSpec spec;
    spec.db = dir + "/runs.db";
    spec.script = "stuck";
    Run r(privateDisplay(), assets, locator, spec);
    std::atomic<bool> interrupted{false}, stuck{false};
    RunOutcome seen;
    std::mutex mu;
    r.watch([&] { interrupted = true; },
            [&](const RunOutcome& o) {
                std::lock_guard<std::mutex> lock(mu);
                seen = o;
                stuck = true;
            },
            0.3);
    double t0 = monotonicSeconds();
    r.cancel("stopped by the test");
    while (!stuck && monotonicSeconds() - t0 < 5) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    REQUIRE(stuck);
    CHECK(interrupted);
    CHECK(monotonicSeconds() - t0 < 1.0);
    {
        std::lock_guard<std::mutex> lock(mu);
        CHECK(seen.status == "interrupted");
        CHECK_THAT(seen.error, Catch::Contains("ended by the watchdog"));
    }
    CHECK(r.finished());
    CHECK(RunLog(spec.db).run(r.id())->status == "interrupted");
    // A finish after the watchdog's keeps the watchdog's outcome.
    CHECK(r.finish("").status == "interrupted");
    fs::remove_all(dir);
}

TEST_CASE("Run: a run that finishes in time is not touched by its watchdog", "[run]") {
    std::string dir = tempDir();
    AssetLibrary assets;
    Locator locator;
    RunSpec spec;
    spec.db = dir + "/runs.db";
    Run r(privateDisplay(), assets, locator, spec);
    std::atomic<bool> called{false};
    r.watch([&] { called = true; }, [&](const RunOutcome&) { called = true; }, 0.1);
    CHECK(r.finish("").status == "passed");
    CHECK(!called);
    fs::remove_all(dir);
}
