// The REPL's record() and stop(): what a person does on the session's X display, recorded in
// the background between the two calls (recorder/PersonRecorder.h), written as script lines.
#pragma once
#include <atomic>
#include <memory>
#include <string>
#include <thread>

#include "device/DeviceFactory.h"
#include "recorder/PersonRecorder.h"
#include "recorder/RecordedScript.h"

namespace eacu {

class ReplRecorder {
public:
    ~ReplRecorder();
    /// Starts recording X display `x_display` (":99") on a connection of its own (the
    /// session's device stays the REPL's; no accessibility tree is read, as that would share
    /// the session's bus connection across threads). Throws std::runtime_error when already
    /// recording, DeviceError when the display cannot be recorded.
    void start(const std::string& x_display);
    bool active() const { return recorder_ != nullptr; }
    /// Stops and writes the person's actions as Lua lines (images saved in `o.assets_dir`).
    /// Throws std::runtime_error when not recording.
    WrittenScript stop(const ScriptOptions& o);

private:
    DeviceHandle device_;
    std::unique_ptr<PersonRecorder> recorder_;
    std::thread poller_;
    std::atomic<bool> stopping_{false};
    std::string error_;
};

}  // namespace eacu
