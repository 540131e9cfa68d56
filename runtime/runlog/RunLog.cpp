#include "runlog/RunLog.h"

#include <stdexcept>

#include <opencv2/imgcodecs.hpp>

#include "process/ProcessIdentity.h"
#include "runlog/RunLiveness.h"
#include "runlog/Statement.h"

namespace eacu {

RunLog::RunLog(const std::string& path) : RunReader(path, true) {}

RunLog::~RunLog() = default;

int64_t RunLog::beginRun(const RunRecord& r) {
    int64_t id = 0;
    try {
        ProcessIdentity me = currentProcess();
        double started = r.started_at > 0 ? r.started_at : wallSeconds();
        Statement q(db(),
                    "INSERT INTO runs(script, args, device, screen_w, screen_h, scale, status, "
                    "started_at, replay_of, replay_mode, pid, pid_start, host, heartbeat_at) "
                    "VALUES(?,?,?,?,?,?, 'running', ?,?,?,?,?,?,?) RETURNING id");
        q.bind(1, r.script).bind(2, r.args_json).bind(3, r.device).bind(4, r.screen_w)
            .bind(5, r.screen_h).bind(6, r.scale).bind(7, started)
            .bind(8, r.replay_of).bind(9, r.replay_mode.empty() ? std::optional<std::string>() : r.replay_mode)
            .bind(10, me.pid).bind(11, me.start_ticks).bind(12, me.host).bind(13, wallSeconds());
        id = insertedId(q);
    } catch (const std::exception& e) {
        fail(e.what());
    }
    heartbeat_ = std::make_unique<RunHeartbeat>(path(), id, kRunHeartbeatSeconds);
    reserve_ = std::make_unique<DiskReserve>(path(), kEndReserveBytes);
    return id;
}

void RunLog::endRun(int64_t run_id, const std::string& status, const std::string& error) {
    if (heartbeat_ && heartbeat_->runId() == run_id) heartbeat_.reset();
    auto update = [&] {
        Statement q(db(), "UPDATE runs SET status=?, error=?, ended_at=? WHERE id=?");
        q.bind(1, status).bind(2, error).bind(3, wallSeconds()).bind(4, run_id);
        q.run();
    };
    try {
        update();
    } catch (const std::exception& e) {
        // A full disk: the reserve makes room for this one write, tried once more.
        bool freed = reserve_ && reserve_->release();
        reserve_.reset();
        if (!freed) fail(e.what());
        try {
            update();
        } catch (const std::exception&) {
            fail(e.what());
        }
    }
    reserve_.reset();
}

int64_t RunLog::addFrame(int64_t run_id, const Frame& frame) {
    std::vector<unsigned char> png;
    // Compression level 1: about 3x faster than the default at a slightly larger file.
    if (!cv::imencode(".png", frame.bgr, png, {cv::IMWRITE_PNG_COMPRESSION, 1}))
        fail("cannot encode frame as PNG");
    try {
        Statement q(db(),
                    "INSERT INTO frames(run_id, width, height, scale, taken_at, png) "
                    "VALUES(?,?,?,?,?,?) RETURNING id");
        q.bind(1, run_id).bind(2, frame.width()).bind(3, frame.height()).bind(4, frame.scale)
            .bind(5, frame.timestamp > 0 ? frame.timestamp : wallSeconds()).bindBlob(6, png);
        return insertedId(q);
    } catch (const std::exception& e) {
        fail(e.what());
    }
}

int64_t RunLog::addStep(const StepRecord& s) {
    try {
        Statement q(db(),
                    "INSERT INTO steps(run_id, idx, parent_id, action, target, params, method, "
                    "score, threshold, box_x, box_y, box_w, box_h, input_x, input_y, status, "
                    "error, change_ratio, settle_ms, locate_ms, action_ms, started_at, ended_at, "
                    "frame_before, frame_after, transform, actor) "
                    "VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?) RETURNING id");
        q.bind(1, s.run_id).bind(2, s.idx).bind(3, s.parent_id).bind(4, s.action)
            .bind(5, s.target).bind(6, s.params_json).bind(7, s.method).bind(8, s.score)
            .bind(9, s.threshold);
        if (s.box) {
            q.bind(10, s.box->x).bind(11, s.box->y).bind(12, s.box->w).bind(13, s.box->h);
        } else {
            for (int i = 10; i <= 13; ++i) q.bindNull(i);
        }
        if (s.input) {
            q.bind(14, s.input->x).bind(15, s.input->y);
        } else {
            q.bindNull(14).bindNull(15);
        }
        q.bind(16, s.status).bind(17, s.error).bind(18, s.change_ratio).bind(19, s.settle_ms)
            .bind(20, s.locate_ms).bind(21, s.action_ms).bind(22, s.started_at)
            .bind(23, s.ended_at).bind(24, s.frame_before).bind(25, s.frame_after)
            .bind(26, s.transform_json).bind(27, s.actor.empty() ? std::string("script") : s.actor);
        return insertedId(q);
    } catch (const std::exception& e) {
        fail(e.what());
    }
}

int64_t RunLog::addModelCall(const ModelCallRecord& r) {
    // 0 and "" mean "none" for these columns: stored as NULL.
    auto id = [](int64_t v) { return v ? std::optional<int64_t>(v) : std::nullopt; };
    auto text = [](const std::string& v) { return v.empty() ? std::nullopt : std::optional<std::string>(v); };
    try {
        Statement q(db(),
                    "INSERT INTO model_calls(run_id, step_id, seq, kind, provider, model, endpoint, request_json, "
                    "response_json, answer, status, error, http_status, attempts, latency_ms, input_tokens, "
                    "output_tokens, cache_read_tokens, cache_creation_tokens, cache_key, fingerprint, "
                    "frame_ids_json, created_at) VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?) RETURNING id");
        q.bind(1, id(r.run_id)).bind(2, id(r.step_id)).bind(3, r.seq).bind(4, r.kind).bind(5, r.provider)
            .bind(6, r.model).bind(7, r.endpoint).bind(8, r.request_json).bind(9, text(r.response_json))
            .bind(10, text(r.answer)).bind(11, r.status).bind(12, text(r.error)).bind(13, r.http_status)
            .bind(14, r.attempts).bind(15, r.latency_ms).bind(16, r.input_tokens).bind(17, r.output_tokens)
            .bind(18, r.cache_read_tokens).bind(19, r.cache_creation_tokens).bind(20, text(r.cache_key))
            .bind(21, text(r.fingerprint)).bind(22, r.frame_ids_json.empty() ? "[]" : r.frame_ids_json)
            .bind(23, r.created_at > 0 ? r.created_at : wallSeconds());
        return insertedId(q);
    } catch (const std::exception& e) {
        fail(e.what());
    }
}

}  // namespace eacu
