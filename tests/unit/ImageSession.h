// A session on the xcalc screenshot (an ImageDevice: input goes nowhere and is listed in
// events()) with its own run log in a temporary folder: for tests of what a session does and
// records.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "TempDir.h"
#include "assets/AssetLibrary.h"
#include "device/image/ImageDevice.h"
#include "runlog/RunLog.h"
#include "step/Session.h"
#include "vision/Locator.h"

namespace eacu::test {

struct ImageSession {
    TempDir dir;
    ImageDevice device{EACU_FIXTURES "/xcalc.png"};
    AssetLibrary assets;
    Locator locator;
    std::unique_ptr<RunLog> log;
    int64_t run_id = 0;
    std::unique_ptr<Session> session;

    /// A run named `script` in dir/runs.db and a session on it with `options`.
    explicit ImageSession(const std::string& script, SessionOptions options = {}) {
        log = std::make_unique<RunLog>(dir / "runs.db");
        RunRecord rec;
        rec.script = script;
        run_id = log->beginRun(rec);
        session = std::make_unique<Session>(device, assets, locator, log.get(), run_id, std::move(options));
    }
    /// The run's steps, in order; only those with action `action` when it is not empty.
    std::vector<StepRecord> steps(const std::string& action = "") const {
        std::vector<StepRecord> out;
        for (StepRecord& s : log->steps(run_id))
            if (action.empty() || s.action == action) out.push_back(std::move(s));
        return out;
    }
    /// SessionOptions whose waits for an effect on the never-changing screenshot are short.
    static SessionOptions quick() {
        SessionOptions o;
        o.effect_timeout = 0.02;
        o.settle_timeout = 0.1;
        return o;
    }
};

}  // namespace eacu::test
