// The HTML report, replay diffs and the run-log migration from schema version 1.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <unistd.h>
#include <filesystem>
#include <string>

#include <opencv2/imgproc.hpp>
#include <sqlite3.h>
#include <fstream>
#include <sstream>

#include "base/Base64.h"
#include "base/Frame.h"
#include "runlog/HtmlReport.h"
#include "runlog/ReplayDiff.h"
#include "runlog/ReportFiles.h"
#include "runlog/RunLog.h"

namespace fs = std::filesystem;
using namespace eacu;

namespace {

// A per-process scratch folder, removed when the test binary exits.
struct ScratchDir {
    fs::path dir = fs::temp_directory_path() / ("eacu_test_report_" + std::to_string(::getpid()));
    ~ScratchDir() {
        std::error_code ec;
        fs::remove_all(dir, ec);
    }
};

fs::path scratch(const std::string& name) {
    static ScratchDir s;
    fs::path p = s.dir / name;
    fs::create_directories(p.parent_path());
    fs::remove(p);
    return p;
}

// A synthetic frame: a window with a grid of "keys", one of them marked, so frames differ.
Frame syntheticFrame(int w, int h, int n) {
    Frame f;
    f.bgr = cv::Mat(h, w, CV_8UC3, cv::Scalar(40, 40, 40));
    cv::rectangle(f.bgr, {20, 20, w - 40, h - 40}, {235, 235, 235}, cv::FILLED);
    for (int r = 0; r < 6; ++r)
        for (int c = 0; c < 8; ++c) {
            cv::Rect k{40 + c * 70, 60 + r * 50, 60, 40};
            bool hot = (r * 8 + c) == n % 48;
            cv::rectangle(f.bgr, k, hot ? cv::Scalar(60, 120, 230) : cv::Scalar(200, 200, 200), cv::FILLED);
            cv::putText(f.bgr, std::to_string(r * 8 + c), {k.x + 12, k.y + 28}, cv::FONT_HERSHEY_SIMPLEX, 0.7,
                        {20, 20, 20}, 2);
        }
    cv::putText(f.bgr, "step " + std::to_string(n), {40, h - 40}, cv::FONT_HERSHEY_SIMPLEX, 1.0, {0, 0, 0}, 2);
    f.scale = 1.0;
    return f;
}

// Records a synthetic run of `n` taps through RunLog, with before/after frames for each.
int64_t syntheticRun(RunLog& log, int n, int w = 640, int h = 400) {
    RunRecord r;
    r.script = "/synthetic/taps.lua";
    r.device = "synthetic";
    r.screen_w = w;
    r.screen_h = h;
    int64_t run = log.beginRun(r);
    int64_t prev_after = log.addFrame(run, syntheticFrame(w, h, 0));
    for (int i = 1; i <= n; ++i) {
        StepRecord s;
        s.run_id = run;
        s.idx = i;
        s.action = "tap";
        s.target = "\"key_" + std::to_string(i % 48) + "\"";
        s.method = "template";
        s.score = i % 97 == 0 ? 0.71 : 0.98;
        s.threshold = 0.9;
        int k = i % 48;
        s.box = Rect{40 + (k % 8) * 70, 60 + (k / 8) * 50, 60, 40};
        s.input = s.box->center();
        s.status = i % 97 == 0 ? "failed" : "ok";
        if (s.status == "failed") s.error = "tap \"key\": not found: best score 0.71";
        s.change_ratio = 0.01;
        s.settle_ms = 110;
        s.locate_ms = 20;
        s.started_at = s.ended_at = wallSeconds();
        s.frame_before = prev_after;
        s.frame_after = prev_after = log.addFrame(run, syntheticFrame(w, h, i));
        if (i == 3) s.actor = "user";  // the person's own click (eacu serve's page)
        log.addStep(s);
    }
    log.endRun(run, "passed", "");
    return run;
}

}  // namespace

TEST_CASE("base64 encodes per RFC 4648", "[report]") {
    auto enc = [](const std::string& s) { return base64Encode(s); };
    CHECK(enc("") == "");
    CHECK(enc("f") == "Zg==");
    CHECK(enc("fo") == "Zm8=");
    CHECK(enc("foo") == "Zm9v");
    CHECK(enc("foobar") == "Zm9vYmFy");
}

TEST_CASE("a report holds every step, its frames once, and the page script", "[report]") {
    RunLog log(scratch("small.db").string());
    int64_t run = syntheticRun(log, 12);
    ReportStats st;
    std::string html = renderHtmlReport(log, run, {}, &st);
    CHECK(st.steps == 12);
    CHECK(st.frames == 13);  // one shared initial frame + one after each step
    CHECK(html.rfind("<!DOCTYPE html>", 0) == 0);
    CHECK(html.find("id=\"eacu-data\"") != std::string::npos);
    CHECK(html.find("id=\"scrubber\"") != std::string::npos);
    CHECK(html.find("id=\"f13\"") != std::string::npos);   // a full frame, embedded
    CHECK(html.find("id=\"t13\"") != std::string::npos);   // and its thumbnail
    CHECK(html.find("\"actor\":\"user\"") != std::string::npos);  // the person's step, shown apart
    CHECK(html.find("\"actor\":\"script\"") != std::string::npos);
    CHECK(log.steps(run).at(2).actor == "user");
    CHECK(html.find("http://") == html.find("http://www.w3.org/2000/svg"));  // no network
    CHECK(html.find("https://") == std::string::npos);
    CHECK_THROWS_WITH(renderHtmlReport(log, 999), "report: no run 999 in " + log.path());
}

TEST_CASE("model calls recorded for a step show with its reasoning and answer", "[report]") {
    fs::path db = scratch("calls.db");
    RunLog log(db.string());
    int64_t run = syntheticRun(log, 2);
    int64_t step = log.steps(run).at(1).id;
    ModelCallRecord c;
    c.run_id = run;
    c.step_id = step;
    c.seq = 1;
    c.kind = "autopilot";
    c.provider = "openai";
    c.model = "qwen-vl";
    c.endpoint = "http://x";
    c.answer = R"({"thought":"the key 7 is blue","action":"click","element_id":7})";
    c.latency_ms = 812;
    c.input_tokens = 1000;
    c.output_tokens = 20;
    log.addModelCall(c);
    // A call outside any step (and a failed one) shows under the header.
    ModelCallRecord q = c;
    q.step_id = 0;
    q.seq = 2;
    q.kind = "ask";
    q.status = "error";
    q.error = "boom </script>";
    log.addModelCall(q);
    std::string html = renderHtmlReport(log, run);
    CHECK(html.find("id=\"model-calls\">2</b> model calls") != std::string::npos);
    CHECK(html.find("\"calls\":[{\"answer\":\"{\\\"thought\\\":\\\"the key 7 is blue\\\"") != std::string::npos);
    CHECK(html.find("\"error\":\"boom \\u003c/script\\u003e\"") != std::string::npos);  // JSON cannot end its <script>
    CHECK(html.find("boom </script>") == std::string::npos);
    CHECK(html.find("\"in\":1000") != std::string::npos);
}

TEST_CASE("--assets writes frames beside the page and links them", "[report]") {
    fs::path db = scratch("assets.db");
    RunLog log(db.string());
    int64_t run = syntheticRun(log, 3);
    ReportOptions o;
    o.assets_dir = (db.parent_path() / "assets").string();
    o.html_dir = db.parent_path().string();
    std::string html = renderHtmlReport(log, run, o);
    CHECK(fs::exists(db.parent_path() / "assets" / "frames" / "2.png"));
    CHECK(fs::exists(db.parent_path() / "assets" / "thumbs" / "2.jpg"));
    CHECK(html.find("\"dir\":\"assets\"") != std::string::npos);
    CHECK(html.find("id=\"f2\"") == std::string::npos);
}

TEST_CASE("the page is report.html, report.css and report.js, embedded byte for byte", "[report]") {
    auto onDisk = [](const std::string& name) {
        std::ifstream in(std::string(EACU_SOURCE_DIR) + "/runtime/runlog/report/" + name, std::ios::binary);
        std::ostringstream s;
        s << in.rdbuf();
        return s.str();
    };
    for (const char* name : {"report.html", "report.css", "report.js"}) {
        INFO(name);
        std::string disk = onDisk(name);
        REQUIRE_FALSE(disk.empty());
        CHECK(std::string(reportFile(name)) == disk);
    }
    CHECK_THROWS_WITH(reportFile("nope.js"), Catch::Contains("no embedded file \"nope.js\"") && Catch::Contains("report.css"));
    // Every placeholder of the template is filled; the style and script are in the page.
    RunLog log(scratch("page.db").string());
    std::string html = renderHtmlReport(log, syntheticRun(log, 1));
    CHECK(html.find("{{") == std::string::npos);
    CHECK(html.find(std::string(reportFile("report.css"))) != std::string::npos);
    CHECK(html.find(std::string(reportFile("report.js"))) != std::string::npos);
}

TEST_CASE("diffSteps names the steps where a replay differs", "[report]") {
    StepRecord a, b;
    a.idx = b.idx = 1;
    a.action = b.action = "tap";
    a.target = b.target = "\"1\"";
    a.status = b.status = "ok";
    a.input = Point{70, 347};
    b.input = Point{71, 347};
    CHECK(diffSteps({a}, {b}).empty());  // within tolerance
    b.input = Point{370, 447};
    b.status = "failed";
    StepRecord c = a;
    c.idx = 2;
    auto d = diffSteps({a, c}, {b});
    REQUIRE(d.size() == 3);
    CHECK(d[0].what == "status ok -> failed");
    CHECK(d[1].what == "input (70,347) -> (370,447)");
    CHECK(d[2].idx == 2);
    CHECK(d[2].what == "missing in the replay (tap \"1\")");
}

TEST_CASE("a version 1 run log is migrated to the current version and keeps its rows", "[report]") {
    fs::path db = scratch("v1.db");
    {
        sqlite3* s = nullptr;
        REQUIRE(sqlite3_open(db.c_str(), &s) == SQLITE_OK);
        const char* v1 =
            "CREATE TABLE runs(id INTEGER PRIMARY KEY, script TEXT NOT NULL, args TEXT NOT NULL DEFAULT '[]', "
            "device TEXT, screen_w INTEGER, screen_h INTEGER, scale REAL, status TEXT NOT NULL, error TEXT, "
            "started_at REAL NOT NULL, ended_at REAL, replay_of INTEGER REFERENCES runs(id));"
            "CREATE TABLE frames(id INTEGER PRIMARY KEY, run_id INTEGER NOT NULL, width INTEGER NOT NULL, "
            "height INTEGER NOT NULL, scale REAL NOT NULL, taken_at REAL NOT NULL, png BLOB NOT NULL);"
            "CREATE TABLE steps(id INTEGER PRIMARY KEY, run_id INTEGER NOT NULL, idx INTEGER NOT NULL, parent_id "
            "INTEGER, action TEXT NOT NULL, target TEXT, params TEXT, method TEXT, score REAL, threshold REAL, "
            "box_x INTEGER, box_y INTEGER, box_w INTEGER, box_h INTEGER, input_x INTEGER, input_y INTEGER, status "
            "TEXT NOT NULL, error TEXT, change_ratio REAL, settle_ms REAL, locate_ms REAL, action_ms REAL, "
            "started_at REAL NOT NULL, ended_at REAL NOT NULL, frame_before INTEGER, frame_after INTEGER, "
            "transform TEXT);"
            "INSERT INTO runs(script, status, started_at) VALUES('/old.lua', 'passed', 1);"
            "INSERT INTO runs(script, status, started_at, replay_of) VALUES('/old.lua', 'failed', 2, 1);"
            "PRAGMA user_version=1;";
        REQUIRE(sqlite3_exec(s, v1, nullptr, nullptr, nullptr) == SQLITE_OK);
        sqlite3_close(s);
    }
    RunLog log(db.string());
    CHECK(log.schemaVersion() == kRunLogSchemaVersion);
    CHECK(log.modelCalls(1).empty());  // model_calls exists (version 3)
    auto r = log.run(2);
    REQUIRE(r);
    CHECK(r->replay_of == 1);
    CHECK(r->replay_mode.empty());
    RunRecord n;
    n.script = "/new.lua";
    n.replay_of = 1;
    n.replay_mode = "actions";
    int64_t id = log.beginRun(n);
    CHECK(log.run(id)->replay_mode == "actions");
}

// A 500-step run, made through RunLog: its report is built within a bound. With
// EACU_REPORT500_DB set (tests/e2e/report.sh), the run is written there for the browser test.
TEST_CASE("a 500-step report builds fast and stays lazy", "[report]") {
    const char* out = std::getenv("EACU_REPORT500_DB");
    fs::path db = out && *out ? fs::path(out) : scratch("r500.db");
    fs::remove(db);
    RunLog log(db.string());
    double t0 = monotonicSeconds();
    int64_t run = syntheticRun(log, 500);
    double made = monotonicSeconds() - t0;
    ReportStats st;
    std::string html = renderHtmlReport(log, run, {}, &st);
    CHECK(st.steps == 500);
    CHECK(st.frames == 501);
    // The list is built by the page from one JSON block; images are inert text until used.
    CHECK(html.find("<img id=\"frame\"") != std::string::npos);
    CHECK(html.find("src=\"data:") == std::string::npos);
    INFO("made in " << made << " s, report built in " << st.ms << " ms, " << st.html_bytes / 1e6 << " MB");
    CHECK(st.ms < 20000);
}
