// An Android phone or emulator through the adb server: screencap frames are the screen, `input`
// commands through one long-lived shell are the input, `uiautomator dump` is the element tree.
#pragma once
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>

#include "device/AppControl.h"
#include "device/Device.h"
#include "device/adb/AdbClient.h"
#include "device/adb/AdbScreenStream.h"
#include "device/adb/AdbTouch.h"

namespace eacu {

class AdbAccessibility;

/// What an Android device reports about its display (AdbDevice::readInfo).
/// - `size`: the screen in physical pixels in the current orientation (wm size, its override
///   when set, sides swapped for rotation 1 and 3); `density`: dpi (wm density, override first);
///   `rotation`: 0..3 (quarter turns); `sdk`: ro.build.version.sdk; `model`: ro.product.model.
struct AndroidInfo {
    Size size;
    int density = 160;
    int rotation = 0;
    int sdk = 0;
    std::string model;
};

/// The display's rotation (0..3 quarter turns) in `dumpsys input` as Android prints it by
/// version (AOSP TouchInputMapper's dump): `SurfaceOrientation: 1` to Android 12,
/// `InputDeviceOrientation: 1` on 13 and 14, `InputDeviceOrientation: Rotation90` from 15. 0
/// when none of them is there.
int parseOrientation(const std::string& dumpsys_input);

/// What an AdbDevice knows of the screen for reusing a tree (AdbAccessibility): `frame`, the
/// number of the newest frame capture() gave (0: none yet); `hash`, a hash of its pixels;
/// `inputs`, how many screen-changing commands had been sent when it was captured.
struct AdbScreenMark {
    uint64_t frame = 0;
    uint64_t hash = 0;
    uint64_t inputs = 0;
};

/// Parses the output of `getprop ro.build.version.sdk; getprop ro.product.model; wm size;
/// wm density; dumpsys input | grep -m1 -E 'SurfaceOrientation|InputDeviceOrientation'`. Throws DeviceError naming what is
/// missing ("no screen size in `wm size`: ...").
AndroidInfo parseAndroidInfo(const std::string& output, const std::string& serial);

/// A Device on the Android device `serial` (as `adb devices` lists it) through the adb server
/// on `port` ($ANDROID_ADB_SERVER_PORT or 5037).
///
/// capture(): the newest picture of the screen's video stream (AdbScreenStream: screenrecord's
/// H.264, decoded), waiting up to 40 ms for a newer one (a picture arrives only when the screen
/// changed: its arrival is the change the effect and settle waits see); a raw `exec:screencap`
/// (u32 LE width, height, format, then a colour-space u32 on newer builds: the header's size is
/// the length minus width × height × 4) before the stream's first picture, once after an input
/// when nothing was decoded for 1 s since it, or only a picture within 0.5 s of it (the raw frame is taken; when it differs from the stream's at
/// two checks in a row with no picture between, the stream is restarted; a tree dump that keeps
/// the run waiting has that raw frame taken beside it, at 1 s after the input: checkStaleBeside), and for good once the stream stops working
/// (screenrecord missing or failing) or is disabled (EACU_ADB_STREAM=0, open()'s `stream`);
/// `screencap -p` (PNG) only when raw frames do not decode. An all-black frame is remembered
/// (captureNote()): a window with FLAG_SECURE captures black. A frame whose size differs from
/// the last re-reads the display (rotation, wm size) and the density, and restarts the stream.
/// Input: touches written to the touchscreen's evdev node with `sendevent` (found with `getevent
/// -pl` at open(); no Java process per touch), else `input tap|swipe`; keys and text with `input
/// keyevent|keycombination|text`; all through one long-lived shell. The pointer is virtual (move() only sets where the next touch lands). click(Left) taps, count 2 taps twice
/// in one command line, click(Right) is a long press (700 ms); press()/release() make one touch:
/// a tap, a long press when held ≥ 500 ms, or a swipe from the press point to the release point
/// over the time held (a drag). scroll() swipes from the pointer, an eighth of the screen's
/// height (or width) per wheel click. typeText(): ASCII through `input text`; any other text
/// through the ADBKeyBoard IME (com.android.adbkeyboard/.AdbIME: selected on first use, the
/// previous IME restored when the device closes; its binding to the input waited for in `dumpsys
/// input_method`) with `am broadcast -a ADB_INPUT_B64` (a broadcast completes whether a field
/// heard it or not: the input step reads the field back, step/TypedCheck); without ADBKeyBoard
/// installed it throws DeviceError. keyDown()/keyUp() throw DeviceError:
/// `input` has no separate key down and up.
/// Apps (AppControl): `monkey -p PKG -c android.intent.category.LAUNCHER 1`, `am force-stop`,
/// the focused window of `dumpsys window`, `am start -a android.intent.action.VIEW -d URL`.
/// Errors are DeviceError("adb SERIAL: ..."), e.g. when the device goes away.
class AdbDevice final : public Device, public AppControl {
public:
    /// Opens `serial` ("" for the only device adb knows: DeviceError when there are none or
    /// several, listing them) and reads its display. Throws DeviceError when the server does
    /// not answer, the device is offline or unauthorized (explained), or gone.
    /// `stream`: frames from screenrecord's video stream (false, or EACU_ADB_STREAM=0: raw
    /// screencaps only); EACU_ADB_STREAM_LIMIT sets screenrecord's time limit (1..180 s, 180).
    /// Touches go through the touchscreen of `getevent -pl` (EACU_ADB_TOUCH=input: `input
    /// tap|swipe` only).
    static std::unique_ptr<AdbDevice> open(const std::string& serial, int port = adbServerPort(), bool stream = true);
    ~AdbDevice() override;

    std::string describe() const override;
    Size screenSize() const override { return info_.size; }
    double scaleFactor() const override { return info_.density / 160.0; }
    Frame capture() override;
    /// capture()'s frame when a raw screencap taken after it shows the same screen (otherScreen:
    /// the stream's encoding aside); else that raw frame, which capture() then gives until a
    /// newer picture comes (the stream was behind: counted as stale). Without the stream:
    /// capture(). One raw screencap more than capture() (0.2-2.5 s on a phone, reference/adb.md).
    Frame captureCurrent() override;
    /// True: live frames (server/LiveScreen) may be taken on a second thread beside the run's
    /// steps; each is its own adb connection and cursor() is atomic.
    bool concurrentCapture() const override { return true; }
    /// A frame for the live view only: the stream's next picture (waiting up to 0.5 s for one
    /// newer than the last it gave, else the newest again; a copy), so the live view gets every
    /// picture the screen's changes make. Before the stream's first picture, or without the
    /// stream: on a connection of its own, raw `exec:screencap` or `screencap -p`, whichever
    /// took less so far (each tried once, then their running means). It touches none of
    /// capture()'s state; the frame's scale is left at 1. Throws DeviceError("adb SERIAL: ...")
    /// when the device is gone or gives no image.
    Frame captureLive() override;
    /// 1/30 s while the stream works (captureLive() waits for pictures itself), else 0.1 s.
    double liveInterval() const override;
    void move(Point p) override {
        cursor_ = p;
        live_cursor_ = (static_cast<uint64_t>(static_cast<uint32_t>(p.x)) << 32) | static_cast<uint32_t>(p.y);
    }
    /// Where the next touch lands (move()'s point), readable from any thread.
    Point cursor() const override {
        const uint64_t v = live_cursor_;
        return {static_cast<int32_t>(static_cast<uint32_t>(v >> 32)), static_cast<int32_t>(static_cast<uint32_t>(v))};
    }
    void click(MouseButton button, int count = 1) override;
    /// `count` taps at `p` (screen pixels): sendevent on the touchscreen, else `input tap`.
    void tap(Point p, int count = 1);
    /// One touch from `from` to `to` over `ms` milliseconds (1..): a hold when they are the same
    /// point (a long press), else a swipe or drag. sendevent on the touchscreen (the finger moved
    /// in steps of about 50 ms, at most 20; each sendevent is a process of its own, so the touch
    /// lasts somewhat longer than `ms`), else `input swipe X1 Y1 X2 Y2 MS`.
    void swipe(Point from, Point to, int ms);
    /// The touchscreen touches are written to (nullopt: `input tap|swipe`, because there is none,
    /// a write failed, or EACU_ADB_TOUCH=input).
    const std::optional<Touchscreen>& touchscreen() const { return touch_; }
    void press(MouseButton button) override;
    void release(MouseButton button) override;
    void scroll(int dx, int dy) override;
    void typeText(const std::string& utf8) override;
    /// A secret through `input text` only (ASCII; the ADB keyboard's broadcast can be read by
    /// any app on the phone): other text throws DeviceError saying so; no message names the text.
    void typeSecret(const std::string& utf8) override;
    /// Whether the focused field of the tree (uiautomator dump, reused while the screen did not
    /// change) is a password field; false when no field has the focus or the tree cannot be read.
    bool focusIsSecret() override;
    void keyCombo(const std::vector<Key>& keys) override;
    void checkKeys(const std::vector<Key>& keys) const override;
    void keyDown(const Key& key) override;
    void keyUp(const Key& key) override;
    /// Nothing to wait for: every input already waited for its command's exit status.
    void sync() override {}
    Accessibility& accessibility() override;

    // AppControl
    void launchApp(const std::string& package) override;
    void stopApp(const std::string& package) override;
    std::string currentApp() override;
    void openUrl(const std::string& url) override;

    /// The display as read last (readInfo).
    const AndroidInfo& info() const { return info_; }
    /// Reads the display again (size, rotation, density, SDK, model).
    void readInfo();
    /// When the last frame was all black: a sentence saying so (a FLAG_SECURE window, e.g. a
    /// password or payment screen, captures black while its element tree still reads); "" else.
    std::string captureNote() const override { return black_note_; }
    /// The client of the adb server for this device.
    const AdbClient& client() const { return client_; }
    /// Runs one command line in the input shell (counted as an input: it may change the
    /// screen); throws DeviceError with its stderr when it exits non-zero.
    std::string run(const std::string& command, double timeout = 20);
    /// How many commands that may change the screen were sent (run(), launchApp()).
    uint64_t inputs() const { return inputs_; }
    /// The newest frame capture() gave, as a mark (AdbScreenMark).
    AdbScreenMark lastMark() const { return mark_; }
    /// Before a command that keeps the run's thread waiting (a tree dump, 0.6-2 s on a phone):
    /// when capture() will owe the stale check of the last input (the stream is on and decoded
    /// nothing but, at most, a picture within 0.5 s of the input), starts that check's raw
    /// `screencap` on a thread of its own at 1 s after the input (when the input's picture should
    /// have come), unless a picture after those 0.5 s came by then; capture() then decides with
    /// that raw frame instead of taking one after the command. Does nothing otherwise, or when one
    /// is already under way for this input. Never throws: a probe that fails is dropped and
    /// capture() takes its own raw frame.
    void checkStaleBeside();
    /// What one capture() takes, in seconds: a running mean (0 before the first).
    double captureSeconds() const { return capture_s_; }
    /// Where capture()'s frames came from so far: pictures of the stream, raw screencaps (the
    /// first, stale checks, fallback), PNG screencaps; how often the stream was found stale;
    /// pictures not taken as they came with a raw frame and differed from it (`late`).
    struct CaptureCounts {
        long stream = 0, raw = 0, png = 0, stale = 0, late = 0;
    };
    CaptureCounts captureCounts() const { return counts_; }
    /// The video stream (nullptr when disabled, or once it stopped working).
    std::shared_ptr<const AdbScreenStream> stream() const {
        std::lock_guard<std::mutex> lock(stream_mu_);
        return stream_;
    }

private:
    explicit AdbDevice(AdbClient client);
    // One raw screencap (PNG when raw does not decode), timestamps set.
    Frame captureRaw();
    // The stream's newest picture, or a raw frame (first, stale check, fallback); see capture().
    Frame captureFromStream();
    // capture()'s bookkeeping for a frame it gives (started at t0): scale, size check, mark, note.
    Frame finishCapture(Frame f, double t0);
    void startStream();
    void setStream(std::shared_ptr<AdbScreenStream> s);
    // `exec:screencap -p` on a connection of its own, decoded (scale 1, timestamps set); touches
    // no member but client_ (const), so a second thread may call it. Throws DeviceError.
    Frame capturePng() const;
    // Runs a touch along `points` (screen pixels; touchCommand) `count` times in one command
    // line; false (after saying so once on stderr, and touch_ cleared) when it exits non-zero.
    bool sendTouch(const std::vector<Point>& points, int step_ms, int count);
    // Selects ADBKeyBoard (first use) and waits until it is bound to the input (dumpsys input_method).
    void selectAdbKeyboard();
    // The stale check's raw frame taken beside a dump (checkStaleBeside): for input number
    // `inputs`; `frame` empty when none was taken (a picture came, cancelled, failed).
    struct StaleProbe {
        std::mutex mu;
        std::condition_variable cv;
        bool done = false;
        Frame frame;
        double took = 0;  // seconds the raw screencap took
        uint64_t inputs = 0;
        std::atomic<bool> cancel{false};
    };
    // The probe's raw frame when it is for the current input (waiting for it while it is under
    // way, at most what a raw screencap may take, within the step's bound); empty when there is
    // none or it failed. Clears the probe.
    Frame takeProbe();

    AdbClient client_;
    AdbShell shell_;
    AndroidInfo info_;
    Point cursor_{0, 0};
    std::atomic<uint64_t> live_cursor_{0};  // cursor_ packed (x << 32 | y) for cursor() on any thread
    Point pressed_at_{0, 0};
    double pressed_time_ = -1;  // monotonic seconds of press(), -1 when no touch is down
    bool raw_capture_ = true;
    std::string black_note_;
    std::string previous_ime_;  // the IME to restore ("" while ADBKeyBoard was not selected)
    uint64_t inputs_ = 0;
    AdbScreenMark mark_;
    double capture_s_ = 0;
    std::atomic<double> live_raw_s_{0}, live_png_s_{0};  // captureLive's running means (-1: raw does not decode)
    bool stream_wanted_ = true;
    double stream_limit_ = 180;
    std::shared_ptr<AdbScreenStream> stream_;  // replaced on the run's thread only, under stream_mu_
    mutable std::mutex stream_mu_;             // captureLive's thread copies stream_ under it
    Frame current_;              // the screen as capture() last gave it
    double current_at_ = 0;      // when it was taken (monotonic: a picture's arrival, a raw capture's end)
    double raw_until_ = 0;       // a picture that arrives before this may be older than the raw current_
    double recheck_at_ = 0;      // when a raw frame decides between current_ and a late picture (0: none)
    double raw_s_ = 0;           // what one raw screencap takes, seconds: a running mean (0 before the first)
    uint64_t stream_seen_ = 0;   // the newest stream picture capture() looked at
    int endings_seen_ = 0;       // the stream's endings() when capture() last took a raw frame for it
    double last_input_at_ = 0;   // when the last command that may change the screen returned (monotonic)
    uint64_t stale_checked_ = 0;  // inputs_ when the stream was last checked against a raw frame
    bool stale_suspect_ = false;  // the last check found the stream behind and no picture came since
    uint64_t marked_ = 0;        // the stream picture mark_ and black_note_ were computed on
    std::shared_ptr<AdbScreenStream> failed_stream_;  // the stream that stopped working (its failure)
    CaptureCounts counts_;
    uint64_t live_seen_ = 0;     // captureLive's thread only: the newest picture it gave
    std::shared_ptr<StaleProbe> probe_;  // the stale check beside a dump (checkStaleBeside); its thread is detached
    std::unique_ptr<AdbAccessibility> a11y_;
    std::optional<Touchscreen> touch_;  // the touchscreen sendevent writes to (nullopt: `input`)
    std::string touch_why_;             // why touches go through `input` ("" while sendevent works)
    int touch_id_ = 0;                  // the last ABS_MT_TRACKING_ID sent
    long touches_sent_ = 0, touches_input_ = 0;  // touches by sendevent and by `input`, for the summary
};

}  // namespace eacu
