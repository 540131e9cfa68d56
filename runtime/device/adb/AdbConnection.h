// One TCP connection to the adb server's host protocol (AOSP packages/modules/adb protocol.txt,
// SERVICES.TXT): requests framed as 4 hex digits of length + payload, answered OKAY or FAIL.
#pragma once
#include <cstdint>
#include <optional>
#include <string>

#include "device/DeviceWait.h"
#include "device/adb/AdbProtocol.h"

namespace eacu {

/// A socket to the adb server on 127.0.0.1:`port`. Its reads and writes belong to the current
/// request (begin()): together they wait at most the request's own timeout, ended sooner by the
/// thread's IoBound (the step's deadline) and its cancel token (device/DeviceWait.h). A request
/// that gets no answer by then throws DeviceStalled ("adb SERIAL: screencap: no answer within
/// 5.0 s (the step's deadline ...)") and closes the socket (a half-read answer cannot be
/// resumed); a cancelled token throws Cancelled. A closed socket or a FAIL answer throws
/// DeviceError whose message begins with `what` (e.g. "adb emulator-5554") and says what was
/// expected and what came. Not copyable; the socket closes with the object.
class AdbConnection {
public:
    /// Connects to 127.0.0.1:`port` and begins the request "connect" with `timeout` seconds.
    /// Throws DeviceError("...: no adb server on 127.0.0.1:5037 (...)") when nothing listens
    /// there. `what` names the connection in errors.
    AdbConnection(int port, std::string what, double timeout = 10);
    ~AdbConnection();
    AdbConnection(const AdbConnection&) = delete;
    AdbConnection& operator=(const AdbConnection&) = delete;

    /// Begins a request named `operation` in errors ("screencap", "input tap 10 20"): the reads
    /// and writes from now on wait at most `seconds` in all (< 0: the connection's timeout),
    /// bounded by the thread's IoBound as it is now; `least`: the least time the request is
    /// given under that bound (ioWaitEnd: kIoWaitFloor, or the operation's measured cost).
    void begin(const std::string& operation, double seconds = -1, double least = kIoWaitFloor);
    /// The timeout given at construction, seconds.
    double timeout() const { return timeout_; }

    /// Sends `request` framed (4 hex digits of its length, then the bytes) and reads the status:
    /// returns on OKAY, throws DeviceError with the server's reason on FAIL.
    void request(const std::string& request);
    /// Reads a hex4-length-prefixed string (the answer of host:devices-l, host:version).
    std::string readFramed();
    /// Writes all of `bytes`.
    void write(const std::string& bytes);
    /// Reads exactly `n` bytes; throws when the stream ends before.
    std::string readExact(size_t n);
    /// Reads up to `max` bytes; "" when the stream has ended.
    std::string readSome(size_t max = 65536);
    /// Whether bytes (or the stream's end) can be read within `seconds` (0: now), without
    /// throwing on a timeout and outside the request's bound: a reader that must also watch a
    /// flag (a video stream that is quiet while the screen does not change) polls with it.
    bool readable(double seconds);
    /// Reads until the stream ends.
    std::string readAll();
    /// readExact as a ByteReader (device/adb/AdbProtocol.h), for the protocol's readers.
    ByteReader reader();

    const std::string& what() const { return what_; }

private:
    void waitFor(short events);
    [[noreturn]] void stalled(const char* what);
    int fd_ = -1;
    std::string what_;
    double timeout_;
    std::optional<DeviceWait> wait_;
};

/// The adb server's port: $ANDROID_ADB_SERVER_PORT when set to a port number, else 5037.
int adbServerPort();

}  // namespace eacu
