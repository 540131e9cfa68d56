// One wait for a device's answer, bounded by the wait's own timeout, the thread's IoBound (the
// step's deadline, base/IoDeadline.h) and the run's cancel token: the one helper every device's
// socket and pipe reads use (chromium/cdp, the agent; adb and X11 to adopt it).
#pragma once
#include <string>

#include "base/IoDeadline.h"
#include "device/Device.h"

namespace eacu {

/// A device wait that ended at its bound without the answer. A DeviceError (code `device`)
/// whose message names the device, the operation and how long it waited; the step engine does
/// not retry a step after it (the far end is stalled, not slow to show a target).
struct DeviceStalled : DeviceError {
    using DeviceError::DeviceError;
};

/// A wait that starts at construction. Usage: loop { if (!w.slice()) throw w.expired(); poll
/// or wait at most w.slice() seconds }.
class DeviceWait {
public:
    /// `device` names the far end ("agent 127.0.0.1:7878", "chromium (pid 4242)"), `operation`
    /// what was asked ("capture", "Page.captureScreenshot"); `own_timeout` is the wait's own
    /// limit in seconds, shortened by the thread's IoBound and its token's deadline; `least`:
    /// the least time it is given under that bound (ioWaitEnd; at least kIoWaitFloor).
    DeviceWait(std::string device, std::string operation, double own_timeout, double least = kIoWaitFloor);
    /// Seconds to wait next: at most `max_slice` (so a cancel is seen within it), 0 when the
    /// wait is over. Throws Cancelled when the thread's token is cancelled (stop, signal, the
    /// run's time limit).
    double slice(double max_slice = 0.05) const;
    /// The wait's end, monotonic seconds.
    double end() const { return end_; }
    /// Seconds since the wait started.
    double waited() const;
    /// True when the thread's bound (not the wait's own timeout) ends it.
    bool bounded() const { return !limited_by_.empty(); }
    /// The error for a wait that is over without the answer: "DEVICE: OPERATION: no answer
    /// within 5.0 s (the step's deadline of 4 s)" (`what` replaces "no answer"). A DeviceStalled
    /// when the thread's bound ended it, else a DeviceStalled too (a device that does not answer
    /// within its own timeout is stalled as well).
    DeviceStalled expired(const std::string& what = "no answer") const;

private:
    std::string device_;
    std::string operation_;
    double start_;
    double end_;
    std::string limited_by_;
};

}  // namespace eacu
