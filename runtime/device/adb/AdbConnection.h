// One TCP connection to the adb server's host protocol (AOSP packages/modules/adb protocol.txt,
// SERVICES.TXT): requests framed as 4 hex digits of length + payload, answered OKAY or FAIL.
#pragma once
#include <cstdint>
#include <string>

namespace eacu {

/// A socket to the adb server on 127.0.0.1:`port`. Every read and write waits at most the
/// connection's timeout (setTimeout, seconds); a timeout, a closed socket or a FAIL answer throws
/// DeviceError whose message begins with `what` (e.g. "adb emulator-5554") and says what was
/// expected and what came. Not copyable; the socket closes with the object.
class AdbConnection {
public:
    /// Connects to 127.0.0.1:`port`. Throws DeviceError("...: no adb server on 127.0.0.1:5037
    /// (...)") when nothing listens there. `what` names the connection in errors.
    AdbConnection(int port, std::string what, double timeout = 10);
    ~AdbConnection();
    AdbConnection(const AdbConnection&) = delete;
    AdbConnection& operator=(const AdbConnection&) = delete;

    /// Seconds every later read or write may wait.
    void setTimeout(double seconds) { timeout_ = seconds; }
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
    /// throwing on a timeout: a reader that must also watch a flag polls with it.
    bool readable(double seconds);
    /// Reads until the stream ends.
    std::string readAll();
    /// A little-endian u32 at `p`.
    static uint32_t le32(const char* p);
    /// `v` as 4 little-endian bytes.
    static std::string le32(uint32_t v);

    const std::string& what() const { return what_; }

private:
    void waitFor(short events);
    int fd_ = -1;
    std::string what_;
    double timeout_;
};

/// The adb server's port: $ANDROID_ADB_SERVER_PORT when set to a port number, else 5037.
int adbServerPort();

}  // namespace eacu
