// Recording what a person does on an X display, for eacu record and the REPL's record():
// their input (XRecord) and the screen just before each press (ScreenHistory).
#pragma once
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "device/Device.h"
#include "device/x11/X11InputRecorder.h"
#include "recorder/PhraseReader.h"
#include "recorder/RecordedScript.h"
#include "recorder/ScreenHistory.h"

namespace eacu {

/// Starts recording X display `x_display` (":99") at once: its input on a connection of its
/// own, and `device` (a device on that display, used by nobody else until finish()) captured
/// on a thread, with its accessibility tree when `tree`. poll() must be called often (every
/// few tens of milliseconds) so that each press gets the screen from before it while the
/// history still holds it. Returns once the first screen is captured (up to 30 s). Throws
/// DeviceError when the display has no RECORD extension or gives no frame in that time.
class PersonRecorder {
public:
    /// The key that stops a recording (not recorded): Pause.
    static constexpr uint32_t kStopKeysym = 0xff13;

    PersonRecorder(Device& device, const std::string& x_display, bool tree);
    /// Takes the events recorded so far; returns true once the stop key was pressed.
    /// Throws std::runtime_error when the screen capture has failed for 30 s in a row (shorter
    /// failures are tried again: ScreenHistory).
    bool poll();
    /// Stops both recordings and returns the person's actions, each pointer action with the
    /// screen before it (recorder/RecordedActions.h groupInputs), the screen before the pointer
    /// set off towards it after the last button event (what a replay sees: the pointer where
    /// the last action left it) and the OCR band around its point read during the recording
    /// (PhraseReader).
    std::vector<ScriptItem> finish();
    /// The milliseconds each press's band took to read during the recording (after finish()).
    const std::vector<double>& readAheadMs() const { return read_ms_; }

private:
    X11InputRecorder input_;
    ScreenHistory history_;
    PhraseReader reader_;  // each press's OCR band, read while the person goes on
    std::vector<RecordedInput> events_;
    std::map<double, std::shared_ptr<const ScreenState>> screens_;  // press time -> screen before
    // press time -> the screen before the pointer set off towards it (ProofOptions::approach)
    std::map<double, std::shared_ptr<const ScreenState>> approaches_;
    double set_off_ = -1;  // when the pointer first moved after the last button event (-1: not yet)
    bool stopped_ = false;
    std::vector<double> read_ms_;
};

}  // namespace eacu
