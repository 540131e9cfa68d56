// Ends an Xlib call that waits on a display that stopped answering: Xlib has no timeout on a
// round trip, so a thread of its own shuts the connection's socket down at the wait's end.
#pragma once
#include <condition_variable>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "device/DeviceWait.h"

namespace eacu {

/// The bound of one call of `operation` on X display `display` ("X display :5"): a round trip
/// is answered in milliseconds and a large capture in tens, so its own limit is 30 s; the
/// thread's IoBound (the step's deadline) and the run's token shorten it (DeviceWait). Every
/// watched X connection (the device's, its windows') takes its bounds from here.
DeviceWait x11Wait(const std::string& display, const std::string& operation);

/// One watchdog per X connection. While armed with a DeviceWait, a thread shuts the socket
/// `fd` down (shutdown(2), both ways) once the wait's end passes: the blocked Xlib call then
/// reads end of file, the connection's I/O error exit handler marks it dead, and the call
/// returns. The device is unusable afterwards (the next run opens a new connection); stalled()
/// says why, for the DeviceStalled the caller throws.
class X11Watchdog {
public:
    explicit X11Watchdog(int fd);
    /// Stops the thread (the socket is left as it is).
    ~X11Watchdog();
    X11Watchdog(const X11Watchdog&) = delete;
    X11Watchdog& operator=(const X11Watchdog&) = delete;

    /// Arms for one call: `wait` names the display and the operation and gives the end. Arms
    /// nest (a call made inside another): the earliest end of those armed is watched.
    void arm(const DeviceWait& wait);
    /// Disarms the last arm() (before its end: nothing happens).
    void disarm();
    /// The error of the call the watchdog ended ("X display :5: capture: no answer within 4.0 s
    /// (the step's deadline, 3 s + 1 s)"), or nullopt.
    std::optional<DeviceStalled> stalled() const;
    /// For the caller of a watched call, after it: nothing when the watchdog ended no call;
    /// Cancelled (ioCheckCancel) when the thread's run token is cancelled or past its deadline
    /// (the run's time limit ended the wait: the run is over, the display did not stall); else
    /// the DeviceStalled of stalled().
    void throwIfFired() const;

    /// Arms for a scope: arm() at construction, disarm() at destruction.
    struct Scope {
        Scope(X11Watchdog& w, const DeviceWait& wait) : w_(w) { w_.arm(wait); }
        ~Scope() { w_.disarm(); }
        Scope(const Scope&) = delete;
        Scope& operator=(const Scope&) = delete;
        X11Watchdog& w_;
    };

private:
    void loop();

    int fd_;
    mutable std::mutex mu_;
    std::condition_variable cv_;
    std::vector<DeviceWait> armed_;  // innermost last
    std::optional<DeviceStalled> fired_;
    bool stop_ = false;
    std::thread thread_;
};

}  // namespace eacu
