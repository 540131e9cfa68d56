// eacu studio (issue 37): a person's actions on a device's live screen in the browser,
// performed on the device at once and written as script lines whose targets are proven off the
// input path (recorder/TargetProof, the replay's own locate); what eacu sees under the pointer
// (inspect); the script played back on the device; saved as FILE.lua with its assets.
#pragma once
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "device/Device.h"
#include "recorder/RecordedScript.h"
#include "recorder/ScreenHistory.h"
#include "server/ServiceStore.h"
#include "step/Session.h"
#include "vision/Locator.h"

namespace eacu::studio {

/// What the studio writes and how it plays the script back.
/// - `script`, `assets_dir`, `assets_ref`: FILE.lua, the folder its crops go to, and how the
///   script names that folder (relative to the script's folder).
/// - `header`: the script's first comment lines (without "-- ").
/// - `launch`: programs started before the first action (a `launch` line each).
/// - `eacu`, `run_device`: the executable and the --device spec a play-back runs with (`eacu
///   run FILE --device SPEC`); "" = no play-back.
/// - `device_kind`: "x11", "adb", "agent", "chromium" or "cdp" (which device buttons the page
///   shows); `tree_source`: the name of the device's tree ("AT-SPI", "uiautomator", "UIA"), ""
///   when it has none.
struct StudioOptions {
    std::string script;
    std::string assets_dir;
    std::string assets_ref = "assets";
    std::vector<std::string> header;
    std::vector<std::string> launch;
    std::string eacu;
    std::string run_device;
    std::string device_kind;
    std::string tree_source;
};

/// One line of the script. `state`: "pending" (its proof runs), "proven", "passed" or
/// "failed" (after a play-back; `error` the step's error). `lua` the whole line, its comment
/// included; `thumb` a JPEG data URL of the screen around the action ("" for keys).
struct StudioLine {
    int id = 0;
    UserAction action;
    std::string lua;
    std::string state = "pending";
    std::string error;
    std::string thumb;
    double proof_ms = 0;
    double locate_ms = 0;
    double after_ms = 0;  // from the input to the line proven
    double at = 0;        // when the input came (monotonicSeconds())
    bool verify = false;
    std::string verb;  // a line opened from the picker or the URL box: "open_url", "launch", "window"
    std::vector<std::string> files;  // its assets (WrittenScript::files): removed with the line
};

/// The studio of one device. `input` takes the person's input (through `session`'s executor,
/// actor "user"); `capture` is captured on a thread of its own (the same device when it allows
/// concurrent capture, else a second connection to the same screen) with its tree.
class Studio {
public:
    Studio(Device& capture, Session& session, const Locator& locator, StudioOptions options);
    /// Stops every thread (proofs in flight are dropped).
    ~Studio();
    Studio(const Studio&) = delete;
    Studio& operator=(const Studio&) = delete;

    /// Waits up to `timeout` seconds for the first screen. False when there is none.
    bool waitFirst(double timeout) const;

    /// Performs a page event (run/UserInput's {kind, x, y, ...}, plus long_press {x, y, hold})
    /// on the device at once, and adds its line (pointer actions: pending until proven, on the
    /// proof threads: two, lines on different screens side by side). A pointer event carries `frame`: the seq of the live frame the page showed
    /// when the person pressed; the line's targets are proven on exactly that frame (with its
    /// tree when the tree was read on it). When that frame is no longer kept (or not given),
    /// only a tree target is written, on the screen the studio had before the input, and the
    /// comment says why. Returns {line: id, input_ms}. Throws server::ApiError 400 for a bad
    /// event, 409 while the script plays back.
    nlohmann::json perform(const nlohmann::json& event);
    /// The lines as {version, running, lines: [{id, lua, state, error, thumb, proof_ms}]}.
    nlohmann::json lines() const;
    /// Waits up to `timeout` seconds for the lines' version to pass `after`; returns it.
    int64_t waitLines(int64_t after, double timeout) const;
    /// Deletes line `id` and the assets its proof wrote (ApiError 404 when there is none).
    void deleteLine(int id);
    /// Replaces line `id`'s Lua by `lua` (the person's edit; ApiError 400 for an empty line).
    void editLine(int id, const std::string& lua);
    /// The element under `p` on the newest screen: {element: {role, name, id, description,
    /// bounds, states, source} or null, ocr: [{text, confidence, box}], point}. The tree was
    /// read once per changed screen (ScreenHistory), not per call.
    nlohmann::json elementAt(Point p) const;
    /// The target eacu would write for a click at `p` on the newest screen, proven as a line's
    /// is: {lua, why, kind, box, ms}.
    nlohmann::json proveAt(Point p);
    /// The pointer rests at `p` in record mode: its targets are proven ahead on the newest
    /// screen (on a proof thread when no line waits for one; the newest point wins), so a
    /// click there on that very screen is written without proving again (its line's proof
    /// waits for the proof ahead on the same screen rather than racing it).
    void ahead(Point p);
    /// Adds `verify(T)` for the best target proven at `p` (a text first). Returns the line.
    nlohmann::json addVerify(Point p);
    /// The newest screen's tree: {source, root: {role, name, id, bounds, children}} (null root
    /// without a tree).
    /// `seq`: the first live frame sent of the screen that tree was read on (0 while none was
    /// sent), so a page that shows a frame at or after it shows that screen. `on_frame`: the
    /// tree is that screen's (ScreenState::tree_on_frame), so a click there gets tree targets.
    nlohmann::json tree() const;
    /// Plays the script from the top on the device (`eacu run`, on a thread); each line is
    /// marked passed or failed. ApiError 409 while one plays, 400 without `run_device`.
    nlohmann::json runScript();
    /// Writes the script to options.script (its crops are in assets_dir already); returns the
    /// path. Throws std::runtime_error when it cannot be written.
    std::string save();
    /// The script as it would be saved.
    std::string scriptText() const;

    /// Waits up to `timeout` seconds until no line's proof runs and every proven line's
    /// healing reading is written (or the studio stops); true when every line is proven.
    bool waitProven(double timeout) const;
    /// Each line's Lua (its comment included), in order, without the script's header and
    /// launch lines: what the REPL's stop() returns.
    std::vector<std::string> lineTexts() const;

    /// The newest live frame after `after_seq`, waiting up to `timeout` seconds or until the
    /// lines' version passes `after_version`; null when there is no newer frame.
    std::shared_ptr<const server::LiveFrame> waitFrame(int64_t after_seq, int64_t after_version, double timeout) const;
    /// Wakes every waiter (the server stops).
    void wakeAll();
    /// {device_kind, tree_source, script, width, height, last_run, seq: the newest live frame's}.
    nlohmann::json info() const;
    /// What the page's picker and URL box offer (StudioApps.cpp): {device_kind, launch: whether
    /// a program (X11: a command line) or an app (a package) can be started, windows: [{id,
    /// title, class, pid, focused}] on devices with windows (X11, agent), url: the page's URL
    /// on a browser device}. The page asks when it loads, when the picker gets the focus and
    /// after each open. ApiError 409 when the device does not answer.
    nlohmann::json places();
    /// Opens what the person chose, at once, and writes its line (nothing to prove): {url} on a
    /// browser device (`open_url("URL")`, the load waited for, the run's domain lists applied)
    /// or a device with apps (the system's handler); {package} on a device with apps
    /// (`launch("pkg")`); {command} on X11 (`launch("cmd")`, run by /bin/sh, followed on the
    /// same line by a wait for its first window when it showed one within 5 s); {window: id} on a
    /// device with windows (`assert(window({class = ...}, 10)):focus()`, the title added when
    /// the class is not unique). Returns {line, lua}. ApiError 400 for a request this device cannot take
    /// (the message says which devices can), 404 for a window that is gone, 409 when the
    /// device refuses or a play-back runs.
    nlohmann::json open(const nlohmann::json& request);
    /// Proof times (ms) of the pointer lines so far, and one full-frame locate each (ms).
    std::vector<double> proofMs() const;
    std::vector<double> locateMs() const;

private:
    struct Job {
        int id;
        ScriptItem item;
        uint64_t fp = 0;  // the fingerprint of item.before's frame (0: none)
    };
    void publishLoop();
    void proofLoop();
    void bump();  // the lines changed (call with mu_ held)
    /// Removes `files` (a deleted line's assets); one already gone is no error.
    static void removeFiles(const std::vector<std::string>& files);
    StudioLine* line(int id);
    std::string textOf(const std::vector<StudioLine>& lines, std::vector<int>* line_ids) const;

    Device& capture_;
    Session& session_;
    const Locator& locator_;
    StudioOptions o_;
    ScreenHistory history_;

    mutable std::mutex mu_;
    mutable std::condition_variable changed_;
    std::vector<StudioLine> lines_;
    std::deque<Job> jobs_;
    // The frames proofs run on (jobs' and ahead's): a second job on one of them waits, then
    // finds its OCR read and its resting point proven.
    std::multiset<uint64_t> proving_;
    std::optional<Point> ahead_;  // the newest resting point to prove ahead
    int evidence_pending_ = 0;    // proven lines whose _frame.json is being written (save waits)
    // Targets proven ahead: (frame fingerprint, point) -> targets, the newest last.
    std::deque<std::pair<std::pair<uint64_t, Point>, std::shared_ptr<const std::vector<ProvenTarget>>>> proven_;
    int next_id_ = 1;
    int64_t version_ = 1;
    bool running_ = false;
    nlohmann::json last_run_ = nullptr;  // the last play-back: {status, output}
    std::shared_ptr<const server::LiveFrame> frame_;
    int64_t seq_ = 0;
    // The screens the live frames were made of, the newest last: seqs [first, last] showed `state`.
    struct Shown {
        int64_t first, last;
        std::shared_ptr<const ScreenState> state;
    };
    std::deque<Shown> shown_;
    std::shared_ptr<const ScreenState> shownAt(int64_t seq) const;  // mu_ held; null when gone

    std::mutex input_mu_;  // one input at a time
    std::atomic<bool> stop_{false};
    std::thread publisher_, runner_;
    std::vector<std::thread> provers_;
};

}  // namespace eacu::studio
