// The REPL's record() and stop(): what a person does on the session's device, recorded in the
// background between the two calls and written as script lines. On an X display the person
// acts on the display itself (XRecord: recorder/PersonRecorder.h); on any other device
// (chromium, cdp:URL, adb, agent) the studio's record mode runs on the session's own device
// (runtime/studio: the person acts on its live screen in the browser, each line proven there).
#pragma once
#include <atomic>
#include <memory>
#include <string>
#include <thread>

#include "assets/AssetLibrary.h"
#include "device/DeviceFactory.h"
#include "recorder/PersonRecorder.h"
#include "recorder/RecordedScript.h"
#include "step/Session.h"
#include "vision/Locator.h"

namespace eacu {
namespace studio {
class Studio;
class StudioHttp;
}  // namespace studio

/// The session's device as record() needs it.
/// - `device`: the session's device (the studio captures it and performs the person's input on
///   it; not used for an X display, which is recorded on a connection of its own).
/// - `spec`: the device as the REPL was given it (--device; "" = $DISPLAY).
/// - `display`: the X display (":99") when the device is one, else "".
/// - `assets`: the session's asset library (the studio's own session uses it).
struct ReplDevice {
    Device* device = nullptr;
    std::string spec;
    std::string display;
    const AssetLibrary* assets = nullptr;
};

class ReplRecorder {
public:
    ReplRecorder();
    /// Stops a recording still running (its lines are dropped) and the studio's server.
    ~ReplRecorder();
    /// Starts recording: on an X display (`d.display`), that display on a connection of its
    /// own (no accessibility tree is read, as that would share the session's bus connection
    /// across threads); on another device, the studio in record mode on `d.device` with its
    /// page served on loopback (port 8766, else any free one). Images are saved as `o` says.
    /// Returns what to tell the person (on a studio: "eacu studio: http://127.0.0.1:PORT/" and
    /// how to record). Throws std::runtime_error when already recording or when the device
    /// cannot be recorded (an image, no screen within 20 s), DeviceError when the display
    /// cannot be recorded.
    std::string start(const ReplDevice& d, const ScriptOptions& o);
    /// True between start() and stop().
    bool active() const { return recorder_ != nullptr || studio_ != nullptr; }
    /// Stops and writes the person's actions as Lua lines (on a studio: the lines proven there,
    /// their proofs awaited up to 120 s, then the studio and its server stopped). Throws
    /// std::runtime_error when not recording, or when a studio line's proof still runs after
    /// 120 s (the studio keeps recording then: stop() again).
    WrittenScript stop();

private:
    void stopStudio();

    ScriptOptions options_;
    // X11: XRecord on a connection of its own.
    DeviceHandle device_;
    std::unique_ptr<PersonRecorder> recorder_;
    std::thread poller_;
    std::atomic<bool> stopping_{false};
    std::string error_;
    // Another device: the studio on the session's device, with a session of its own (no run
    // log) for the person's input, and its HTTP server on a thread.
    Locator locator_;
    std::unique_ptr<Session> studio_session_;
    std::unique_ptr<studio::Studio> studio_;
    std::unique_ptr<studio::StudioHttp> server_;
    std::thread listener_;
};

}  // namespace eacu
