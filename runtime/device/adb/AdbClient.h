// The adb server's host services for one device (AOSP SERVICES.TXT, SYNC.TXT, shell_protocol.h):
// listing devices, exec:, shell v2 and sync:. Our own client: it never starts or kills the server
// and never uses `adb forward`.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "device/adb/AdbConnection.h"

namespace eacu {

/// One line of host:devices-l: `serial`, `state` ("device", "offline", "unauthorized",
/// "no permissions", ...), and the product, model and device names when the device has said them.
struct AdbDeviceInfo {
    std::string serial;
    std::string state;
    std::string product;
    std::string model;
    std::string device;
    std::string transport_id;
};

/// The devices the adb server on `port` knows (host:devices-l). Throws DeviceError when no server
/// answers there.
std::vector<AdbDeviceInfo> listAdbDevices(int port = adbServerPort(), double timeout = 10);
/// What a device state means for a person ("" for "device"): offline and unauthorized explained.
std::string explainAdbState(const std::string& state);

/// What a command run by shell v2 gave: its stdout, stderr and exit status.
struct AdbShellResult {
    std::string out;
    std::string err;
    int exit_code = 0;
};

/// Services of the device `serial` through the adb server on `port`. Each call opens its own
/// connection (host:transport:SERIAL, then the service) and waits at most `timeout` seconds for
/// the whole answer, ended sooner by the thread's IoBound (the step's deadline) and cancel token:
/// a stall throws DeviceStalled ("adb SERIAL: screencap: no answer within 5.0 s (...)"), a
/// cancel Cancelled; other errors are DeviceError("adb SERIAL: ...").
class AdbClient {
public:
    explicit AdbClient(std::string serial, int port = adbServerPort());

    const std::string& serial() const { return serial_; }
    int port() const { return port_; }

    /// A connection switched to the device with `service` opened on it (host:transport:SERIAL;
    /// an offline or unauthorized device fails here, explained).
    /// `least`: the least time the request is given when the thread's bound is nearer
    /// (AdbConnection::begin).
    std::unique_ptr<AdbConnection> open(const std::string& service, double timeout = 10,
                                        double least = kIoWaitFloor) const;
    /// exec:CMD: the command's raw stdout (no PTY, bytes unchanged), read to its end; `least` as
    /// for open().
    std::string exec(const std::string& command, double timeout = 20, double least = kIoWaitFloor) const;
    /// shell,v2,raw:CMD: stdout, stderr and the exit status, read to its end.
    AdbShellResult shell(const std::string& command, double timeout = 20) const;
    /// sync: STAT: the mode of `path` (0 when it does not exist).
    uint32_t statMode(const std::string& path, double timeout = 10) const;
    /// sync: RECV: the whole file `path`. Throws DeviceError with the device's reason.
    std::string pull(const std::string& path, double timeout = 20) const;
    /// sync: SEND: writes `data` to `path` with `mode` (e.g. 0644), in chunks of 64 KiB.
    void push(const std::string& data, const std::string& path, uint32_t mode = 0644, double timeout = 20) const;

    /// Parses the packets of a finished shell v2 stream (1-byte id, u32 LE length, payload); a
    /// cut last packet is ignored. Throws DeviceError when one announces over kMaxShellPacket.
    static AdbShellResult parseShellV2(const std::string& stream);

private:
    std::string serial_;
    int port_;
};

/// One long-lived `shell,v2,raw:` session (an interactive sh without a PTY) on a device: each
/// run() writes its command line to the shell's stdin and reads its output up to a marker line
/// carrying the exit status. Input goes through one such shell per device, so no adb connection
/// is opened per tap. Not thread-safe.
class AdbShell {
public:
    explicit AdbShell(const AdbClient& client);
    ~AdbShell();
    /// Runs `command` (one sh command line, no newline) and returns its stdout and exit status.
    /// Throws DeviceError("adb SERIAL: ...") when the shell is gone, DeviceStalled when it does
    /// not answer within `timeout` seconds or the thread's IoBound, Cancelled on a cancel (the
    /// session is then dropped; the next run opens a new one). `label` names the command in
    /// those errors ("": the command line itself).
    AdbShellResult run(const std::string& command, double timeout = 20, const std::string& label = "");

private:
    void ensureOpen();
    const AdbClient& client_;
    std::unique_ptr<AdbConnection> conn_;
    std::string pending_;  // bytes read after the last whole packet
    unsigned serial_no_ = 0;
};

/// `s` quoted for sh (single quotes, ' as '\'').
std::string shellQuote(const std::string& s);

}  // namespace eacu
