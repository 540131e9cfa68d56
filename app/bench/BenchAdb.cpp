#include "bench/BenchAdb.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <filesystem>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <vector>

#include <opencv2/imgcodecs.hpp>

#include "Cli.h"
#include "assets/AssetLibrary.h"
#include "base/Clock.h"
#include "bench/Corpus.h"
#include "device/DeviceFactory.h"
#include "device/adb/AdbDevice.h"
#include "device/adb/AdbScreenStream.h"
#include "run/UserInput.h"
#include "server/LiveScreen.h"
#include "step/Session.h"
#include "vision/Locator.h"

namespace fs = std::filesystem;

namespace eacu {
namespace {

void printAdbRow(const char* what, const std::vector<double>& v, const char* unit) {
    Percentiles p = percentiles(v);
    double sum = 0;
    for (double x : v) sum += x;
    std::printf("  %-34s median %10.1f %s   p90 %10.1f %s   mean %10.1f %s\n", what, p.median, unit, p.p90, unit,
                v.empty() ? 0.0 : sum / double(v.size()), unit);
}

// Where whole steps' time goes, from their step records (Session's step observer): the locate
// (locate_ms: the frames or tree it looked at and the match), the input (action_ms: the device's
// command), the effect and settle waits (settle_ms), the rest (the step's total less those: the
// frame before, recording), and the raw screencaps the device took during the steps.
struct StepPhases {
    std::vector<double> total, locate, input, settle, rest, raw;
};

// `n` whole steps on `d`: a tap on `target` (Session::tap: capture, locate, input, effect and
// settle), then the BACK key (input, settle) that shows it again. Their milliseconds are added to
// `taps` and `backs`, each step's phases to `tap_phases` and `back_phases` (`last`: the record of
// the newest step committed, the session's step observer's).
void wholeSteps(Session& session, AdbDevice& d, const StepRecord& last, const TargetSpec& target, int n,
                StepPhases& tap_phases, StepPhases& back_phases) {
    auto phases = [&](StepPhases& p, double ms, long raw_before) {
        const double locate = last.locate_ms.value_or(0), input = last.action_ms.value_or(0),
                     settle = last.settle_ms.value_or(0);
        p.total.push_back(ms);
        p.locate.push_back(locate);
        p.input.push_back(input);
        p.settle.push_back(settle);
        p.rest.push_back(ms - locate - input - settle);
        p.raw.push_back(double(d.captureCounts().raw - raw_before));
    };
    for (int i = 0; i < n; ++i) {
        long raw = d.captureCounts().raw;
        double t = monotonicSeconds();
        Match m = session.tap(target);
        phases(tap_phases, (monotonicSeconds() - t) * 1000, raw);
        if (!m.found) throw std::runtime_error("eacu bench adb: " + target.label + " was not found (step " +
                                               std::to_string(i + 1) + ")");
        raw = d.captureCounts().raw;
        t = monotonicSeconds();
        session.key("back");
        phases(back_phases, (monotonicSeconds() - t) * 1000, raw);
    }
}

// One line of medians per phase of `p` (StepPhases).
void printPhases(const char* what, const StepPhases& p) {
    std::printf("    %-30s locate %7.1f  input %7.1f  effect+settle %7.1f  rest %7.1f ms; raw screencaps %.1f\n",
                what, percentiles(p.locate).median, percentiles(p.input).median, percentiles(p.settle).median,
                percentiles(p.rest).median, percentiles(p.raw).median);
}

TargetSpec treeTarget(std::optional<std::string> role, std::optional<std::string> name) {
    TargetSpec t;
    t.a11y = A11yQuery{};
    t.a11y->role = role;
    t.a11y->name = name;
    t.label = std::string("{") + (role ? "role=\"" + *role + "\"" : "") + (role && name ? ", " : "") +
              (name ? "name=\"" + *name + "\"" : "") + "}";
    return t;
}

// `n` send-message tasks as a person's script takes them: the chat of `contact` opened by the
// tree, its text field tapped, `text` and the round's number typed, 发送 tapped, the message
// waited for in the tree, BACK to the list. Returns each task's milliseconds.
std::vector<double> sendTasks(Session& session, const std::string& contact, const std::string& text, int n) {
    std::vector<double> ms;
    for (int i = 0; i < n; ++i) {
        const std::string message = text + " " + std::to_string(i + 1);
        double t = monotonicSeconds();
        session.tap(treeTarget(std::nullopt, contact));
        session.tap(treeTarget(std::string("text"), std::nullopt));
        session.input(message);
        session.tap(treeTarget(std::string("button"), std::string("发送")));
        session.wait(treeTarget(std::string("label"), message), 10);
        session.key("back");
        session.wait(treeTarget(std::nullopt, contact), 10);
        ms.push_back((monotonicSeconds() - t) * 1000);
    }
    return ms;
}

// Whole steps by the tree element named `name`, by its text (OCR) and by its image, then (with
// `send`) the send-message task; prints them and their ratio to the raw capture's median
// `floor_ms`.
void benchSteps(AdbDevice& d, const std::string& name, const std::string& send, int n, double floor_ms,
                double dump_ms) {
    AssetLibrary assets = AssetLibrary::loadFrom(eacuHome());
    Locator locator;
    SessionOptions so;
    so.limits = {};  // a benchmark may take more actions and time than a run's defaults
    Session session(d, assets, locator, nullptr, 0, so);
    StepRecord last;
    session.setStepObserver([&last](const StepRecord& r) { last = r; });
    TargetSpec tree = treeTarget(std::nullopt, name);
    Match found = session.wait(tree, 10);
    Frame frame = d.capture();
    cv::Rect r = cv::Rect(found.box.x, found.box.y, found.box.w, found.box.h) & cv::Rect(0, 0, frame.width(), frame.height());
    if (r.area() == 0) throw std::runtime_error("eacu bench adb: " + tree.label + " has no bounds on the screen");
    std::error_code ec;
    fs::path png = fs::temp_directory_path(ec) / ("eacu-bench-adb-" + std::to_string(getpid()) + ".png");
    if (!cv::imwrite(png.string(), frame.bgr(r))) throw std::runtime_error("eacu bench adb: cannot write " + png.string());
    struct Remove {
        fs::path p;
        ~Remove() {
            std::error_code e;
            fs::remove(p, e);
        }
    } remove{png};
    TargetSpec image;
    image.image = png.string();
    image.label = "the image of " + tree.label;
    TargetSpec text;
    text.text = name;
    text.label = "text:" + name;
    StepPhases by_tree, by_text, by_image, back;
    wholeSteps(session, d, last, tree, n, by_tree, back);
    wholeSteps(session, d, last, text, n, by_text, back);
    wholeSteps(session, d, last, image, n, by_image, back);
    const std::vector<double>&tree_ms = by_tree.total, &text_ms = by_text.total, &image_ms = by_image.total,
                          &back_ms = back.total;
    std::printf("  whole steps on %s (capture, locate, input, effect and settle), %d each:\n", tree.label.c_str(), n);
    printAdbRow("step: tap it by the tree", tree_ms, "ms");
    printAdbRow("step: tap it by its text (OCR)", text_ms, "ms");
    printAdbRow("step: tap it by its image", image_ms, "ms");
    printAdbRow("step: key back", back_ms, "ms");
    std::printf("  where a step's time goes (medians of each phase, from the steps' records):\n");
    printPhases("tap by the tree", by_tree);
    printPhases("tap by its text (OCR)", by_text);
    printPhases("tap by its image", by_image);
    printPhases("key back", back);
    const AdbDevice::CaptureCounts c = d.captureCounts();
    std::printf("  the steps' frames: %ld from the video stream, %ld raw screencaps, %ld PNG; stale %ld times, %ld late "
                "pictures not taken\n",
                c.stream, c.raw, c.png, c.stale, c.late);
    std::vector<double> send_ms;
    if (!send.empty()) {
        send_ms = sendTasks(session, name, send, n);
        printAdbRow("task: send a message", send_ms, "ms");
    }
    const double f = floor_ms;
    std::printf("  ratio to one raw screencap (median %.1f ms): tree step %.2fx, text step %.2fx, image step %.2fx, "
                "key step %.2fx",
                f, percentiles(tree_ms).median / f, percentiles(text_ms).median / f, percentiles(image_ms).median / f,
                percentiles(back_ms).median / f);
    if (!send_ms.empty()) std::printf(", send-message task %.2fx", percentiles(send_ms).median / f);
    std::printf("\n  tree step / (one dump + one raw screencap, median %.1f ms): %.2fx\n", dump_ms + f,
                percentiles(tree_ms).median / (dump_ms + f));
}

// For `seconds`: live frames (captureLive) that differ from the one before, as frames/s, and the
// interval between them as a ratio to the raw capture's median `floor_ms`.
void benchLive(AdbDevice& d, double seconds, double floor_ms) {
    cv::Mat last;
    int frames = 0;
    const double t0 = monotonicSeconds();
    double first = 0, end = 0;
    while (monotonicSeconds() - t0 < seconds) {
        Frame f = d.captureLive();
        if (!last.empty() && f.bgr.size() == last.size() && cv::norm(f.bgr, last, cv::NORM_INF) == 0) continue;
        last = f.bgr;
        end = monotonicSeconds();
        if (frames++ == 0) first = end;
    }
    const double fps = frames > 1 && end > first ? (frames - 1) / (end - first) : 0;
    std::printf("  live frames while the screen changes (captureLive, %.0f s): %.1f frames/s (%d frames), one every "
                "%.2fx a raw screencap\n",
                seconds, fps, frames, fps > 0 ? 1000 / fps / floor_ms : 0.0);
}

// The live screen's published frames (server::LiveScreen's publish callback): when each came
// and where its pointer was. Thread-safe.
class PublishedFrames {
public:
    void add(const server::LiveFrame& f) {
        std::lock_guard<std::mutex> lock(mu_);
        times_.push_back(monotonicSeconds());
        cursor_ = {f.cursor_x, f.cursor_y};
        cv_.notify_all();
    }
    // Waits until no frame came for `quiet` seconds and the newest showed the pointer at `p`, at
    // most until monotonic `until`; false when that passed first.
    bool waitQuiet(Point p, double quiet, double until) {
        std::unique_lock<std::mutex> lock(mu_);
        while (true) {
            const double now = monotonicSeconds();
            const double last = times_.empty() ? 0 : times_.back();
            if (!times_.empty() && cursor_.x == p.x && cursor_.y == p.y && now - last >= quiet) return true;
            if (now >= until) return false;
            cv_.wait_for(lock, std::chrono::duration<double>(std::min(until - now, std::max(0.01, last + quiet - now))));
        }
    }
    // The monotonic time of the first frame published after `t0`, waiting for it until `until`;
    // 0 when none came.
    double firstAfter(double t0, double until) {
        std::unique_lock<std::mutex> lock(mu_);
        while (true) {
            for (double t : times_)
                if (t > t0) return t;
            const double now = monotonicSeconds();
            if (now >= until) return 0;
            cv_.wait_for(lock, std::chrono::duration<double>(until - now));
        }
    }

private:
    std::mutex mu_;
    std::condition_variable cv_;
    std::vector<double> times_;
    Point cursor_{-1, -1};
};

// `n` inputs on a still screen through the take-over's path (run/UserInput's performUserInput,
// as eacu serve's run performs the person's input from the page: the frame before, the input,
// its effect and settle): a click on the tree element `name` (it opens a screen), then the BACK
// key (it brings `name` back). Each is timed from the call to the first frame the run's live
// screen (server::LiveScreen on the device, at its liveInterval(), which the run sends to the
// page) publishes after it: LiveScreen publishes a frame only when its pixels or its pointer
// differ from the last one, and the pointer stays on `name` through a round, so that frame is a
// changed screen (the screen is still before each input: no frame for 0.6 s, or without the
// stream for two raw screencaps). With the stream, also the first newer picture decoded from
// it. Prints medians and p90 in ms and as ratios to `floor_ms` (one raw screencap's median of
// the same run).
void benchInputToFrame(AdbDevice& d, const std::string& name, int n, double floor_ms) {
    AssetLibrary assets = AssetLibrary::loadFrom(eacuHome());
    Locator locator;
    SessionOptions so;
    so.limits = {};
    Session session(d, assets, locator, nullptr, 0, so);
    const Match m = session.wait(treeTarget(std::nullopt, name), 10);
    const Point p{m.box.x + m.box.w / 2, m.box.y + m.box.h / 2};
    // The screen once, as a run's first step takes it: on a still screen the stream has no
    // picture yet, and the first input's frame before would be a raw screencap.
    d.capture();
    d.move(p);
    PublishedFrames published;
    server::LiveScreen live(0, d, [&published](server::LiveFrame f) { published.add(f); }, d.liveInterval());
    std::vector<double> tap_ms, back_ms, tap_decoded_ms, back_decoded_ms;
    // One input: waits for a still screen, then performs `event` and returns the milliseconds to
    // the first frame published after it (and, with the stream, to the first newer picture
    // decoded, in `decoded`).
    auto timed = [&](const nlohmann::json& event, std::vector<double>& ms, std::vector<double>& decoded, int round) {
        // Still: no frame published for 0.6 s, or without the stream for two raw screencaps and
        // more (a raw frame in flight may show the last input's late draw).
        const double quiet = d.stream() && d.stream()->working() ? 0.6 : std::max(0.6, 2 * floor_ms / 1000 + 0.2);
        if (!published.waitQuiet(p, quiet, monotonicSeconds() + 30))
            throw std::runtime_error("eacu bench adb: the live screen did not go still within 30 s (round " +
                                     std::to_string(round) + "): is the screen animating?");
        std::shared_ptr<const AdbScreenStream> stream = d.stream();
        const uint64_t seen = stream && stream->working() ? stream->newest().number : 0;
        const double t0 = monotonicSeconds();
        double decoded_at = 0;
        std::thread watch;
        struct Join {  // also when the input throws: a joinable thread must not be destroyed
            std::thread& t;
            ~Join() {
                if (t.joinable()) t.join();
            }
        } join{watch};
        if (stream && stream->working())
            watch = std::thread([&] {
                const StreamShot s = stream->waitNewer(seen, t0 + 20);
                if (s.number > seen) decoded_at = s.frame.monotonic;
            });
        performUserInput(session, event);
        const double at = published.firstAfter(t0, t0 + 20);
        if (watch.joinable()) watch.join();
        if (at == 0)
            throw std::runtime_error("eacu bench adb: no changed live frame within 20 s of " + event.dump() + " (round " +
                                     std::to_string(round) + ")");
        ms.push_back((at - t0) * 1000);
        if (decoded_at > t0) decoded.push_back((decoded_at - t0) * 1000);
    };
    for (int i = 0; i < n; ++i) {
        timed({{"kind", "click"}, {"x", p.x}, {"y", p.y}}, tap_ms, tap_decoded_ms, i + 1);
        timed({{"kind", "key"}, {"keys", "back"}}, back_ms, back_decoded_ms, i + 1);
    }
    live.stop();
    std::printf("  input -> changed frame on the page (take-over's input, the run's live screen; %d each, still screen):\n", n);
    printAdbRow("tap on it -> changed live frame", tap_ms, "ms");
    printAdbRow("key back -> changed live frame", back_ms, "ms");
    if (!tap_decoded_ms.empty()) printAdbRow("tap on it -> picture decoded", tap_decoded_ms, "ms");
    if (!back_decoded_ms.empty()) printAdbRow("key back -> picture decoded", back_decoded_ms, "ms");
    const Percentiles t = percentiles(tap_ms), b = percentiles(back_ms);
    std::printf("  ratio to one raw screencap (median %.1f ms): tap -> live frame median %.2fx p90 %.2fx, key -> live "
                "frame median %.2fx p90 %.2fx\n",
                floor_ms, t.median / floor_ms, t.p90 / floor_ms, b.median / floor_ms, b.p90 / floor_ms);
    std::printf("  live frames %s\n", d.stream() && d.stream()->working()
                                           ? "from the video stream (screenrecord, H.264)"
                                           : "raw screencaps (no video stream: EACU_ADB_STREAM=0 or screenrecord missing)");
}

}  // namespace

int benchAdb(const std::string& spec, int n, const std::string& tap_name, const std::string& send, double live_s,
             bool input_to_frame) {
    if (input_to_frame && tap_name.empty())
        throw std::invalid_argument("eacu bench adb: --input-to-frame needs --tap NAME (an element that opens a screen)");
    DeviceSpec s = parseDeviceSpec(spec.empty() ? "adb" : spec);
    if (s.kind != DeviceSpec::Kind::Adb)
        throw std::invalid_argument("eacu bench adb: expected --device adb[:SERIAL], got \"" + spec + "\"");
    std::unique_ptr<AdbDevice> d = AdbDevice::open(s.serial);
    std::printf("eacu bench adb: %s, %d rounds\n", d->describe().c_str(), n);
    const AdbClient& c = d->client();
    std::vector<double> raw_ms, raw_bytes, png_ms, png_bytes, shell_ms, process_ms, live_ms, dump_ms;
    for (int i = 0; i < n; ++i) {
        double t = monotonicSeconds();
        std::string raw = c.exec("screencap", 30);
        raw_ms.push_back((monotonicSeconds() - t) * 1000);
        raw_bytes.push_back(double(raw.size()));
        t = monotonicSeconds();
        std::string png = c.exec("screencap -p", 60);
        png_ms.push_back((monotonicSeconds() - t) * 1000);
        png_bytes.push_back(double(png.size()));
        if (live_s > 0 || input_to_frame) continue;  // only the floor
        if (!d->stream()) {
            t = monotonicSeconds();
            d->captureLive();
            live_ms.push_back((monotonicSeconds() - t) * 1000);
        }
        t = monotonicSeconds();
        AdbShellResult dump = c.shell("uiautomator dump /sdcard/eacu_bench_dump.xml", 60);
        if (dump.out.find("dumped to") == std::string::npos)
            throw DeviceError("adb " + c.serial() + ": uiautomator dump gave no tree: " + dump.out + dump.err);
        c.pull("/sdcard/eacu_bench_dump.xml", 30);
        dump_ms.push_back((monotonicSeconds() - t) * 1000);
    }
    if (live_s > 0 || input_to_frame) {
        printAdbRow("capture raw (exec:screencap)", raw_ms, "ms");
        if (input_to_frame) benchInputToFrame(*d, tap_name, n, percentiles(raw_ms).median);
        if (live_s > 0) benchLive(*d, live_s, percentiles(raw_ms).median);
        return 0;
    }
    Point centre{d->screenSize().w / 2, d->screenSize().h / 2};
    std::string tap = "input tap " + std::to_string(centre.x) + " " + std::to_string(centre.y);
    d->move(centre);
    for (int i = 0; i < n; ++i) {
        double t = monotonicSeconds();
        d->click(MouseButton::Left);
        shell_ms.push_back((monotonicSeconds() - t) * 1000);
        t = monotonicSeconds();
        AdbShellResult r = c.shell(tap, 30);
        process_ms.push_back((monotonicSeconds() - t) * 1000);
        if (r.exit_code != 0) throw DeviceError("adb " + c.serial() + ": `" + tap + "` exited " + std::to_string(r.exit_code));
    }
    printAdbRow("capture raw (exec:screencap)", raw_ms, "ms");
    printAdbRow("  bytes per raw frame", raw_bytes, "B ");
    printAdbRow("capture PNG (screencap -p)", png_ms, "ms");
    printAdbRow("  bytes per PNG frame", png_bytes, "B ");
    if (!live_ms.empty()) printAdbRow("live frame (captureLive, no stream)", live_ms, "ms");
    printAdbRow("uiautomator dump + sync: pull", dump_ms, "ms");
    printAdbRow("tap through the long-lived shell", shell_ms, "ms");
    printAdbRow("tap, one shell connection each", process_ms, "ms");
    const double floor = percentiles(raw_ms).median;
    if (!live_ms.empty())
        std::printf("  live frames: %.2f frames/s, one every %.2fx a raw screencap\n", 1000 / percentiles(live_ms).median,
                    percentiles(live_ms).median / floor);
    std::printf("  frames: %s\n", d->stream() ? "from the video stream (screenrecord, H.264)"
                                               : "raw screencaps (no video stream: EACU_ADB_STREAM=0 or screenrecord missing)");
    if (tap_name.empty())
        std::printf("  (whole steps: give --tap NAME, an element of the tree that BACK brings back)\n");
    else
        benchSteps(*d, tap_name, send, n, floor, percentiles(dump_ms).median);
    return 0;
}

}  // namespace eacu
