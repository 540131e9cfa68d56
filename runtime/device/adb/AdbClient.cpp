#include "device/adb/AdbClient.h"

#include <ctime>
#include <sstream>

#include "device/Device.h"

namespace eacu {

namespace {

constexpr char kShellStdin = 0, kShellStdout = 1, kShellStderr = 2, kShellExit = 3;

std::string packet(char id, const std::string& data) {
    return std::string(1, id) + le32Bytes(static_cast<uint32_t>(data.size())) + data;
}

std::string syncRequest(const char* id, const std::string& data) {
    return std::string(id, 4) + le32Bytes(static_cast<uint32_t>(data.size())) + data;
}

// The operation a service names in errors: the command of exec: and shell...: ("screencap"),
// else the service ("sync:").
std::string operationOf(const std::string& service) {
    if (service.rfind("exec:", 0) == 0 || service.rfind("shell", 0) == 0) {
        const size_t colon = service.find(':');
        if (colon + 1 < service.size()) return service.substr(colon + 1);
    }
    return service;
}
}  // namespace

std::string shellQuote(const std::string& s) {
    std::string out = "'";
    for (char c : s) {
        if (c == '\'') out += "'\\''";
        else out += c;
    }
    return out + "'";
}

std::vector<AdbDeviceInfo> listAdbDevices(int port, double timeout) {
    AdbConnection c(port, "adb server", timeout);
    c.request("host:devices-l");
    std::istringstream in(c.readFramed());
    std::vector<AdbDeviceInfo> out;
    std::string line;
    while (std::getline(in, line)) {
        std::istringstream words(line);
        AdbDeviceInfo d;
        if (!(words >> d.serial)) continue;
        std::string w;
        // The state may be several words ("no permissions (...)"): all words before the first key:value.
        while (words >> w) {
            size_t colon = w.find(':');
            if (colon == std::string::npos || d.state.empty() || w.find('(') != std::string::npos) {
                d.state += (d.state.empty() ? "" : " ") + w;
                continue;
            }
            std::string k = w.substr(0, colon), v = w.substr(colon + 1);
            if (k == "product") d.product = v;
            else if (k == "model") d.model = v;
            else if (k == "device") d.device = v;
            else if (k == "transport_id") d.transport_id = v;
        }
        out.push_back(d);
    }
    return out;
}

std::string explainAdbState(const std::string& state) {
    if (state == "device") return "";
    if (state == "offline")
        return "offline: adb sees it but it does not answer (reconnect the cable, or `adb reconnect`; a device "
               "still booting is offline too)";
    if (state == "unauthorized")
        return "unauthorized: accept the \"Allow USB debugging?\" prompt on the phone's screen";
    if (state.rfind("no permissions", 0) == 0)
        return "no permissions: this user cannot open the USB device (udev rules, plugdev group)";
    if (state == "authorizing" || state == "connecting") return state + ": wait a moment and ask again";
    return state;
}

AdbClient::AdbClient(std::string serial, int port) : serial_(std::move(serial)), port_(port) {}

std::unique_ptr<AdbConnection> AdbClient::open(const std::string& service, double timeout, double least) const {
    auto c = std::make_unique<AdbConnection>(port_, "adb " + serial_, timeout);
    c->begin(operationOf(service), -1, least);  // one bound for the transport, the service and its answer
    try {
        c->request("host:transport:" + serial_);
    } catch (const DeviceStalled&) {
        throw;  // the server did not answer in time: a stall, not a refusal
    } catch (const DeviceError& e) {
        std::string m = e.what();
        for (const char* state : {"offline", "unauthorized"})
            if (m.find(state) != std::string::npos)
                throw DeviceError("adb " + serial_ + ": the device is " + explainAdbState(state));
        throw DeviceError(m + " (is it connected? `eacu devices` lists the devices adb knows)");
    }
    c->request(service);
    return c;
}

std::string AdbClient::exec(const std::string& command, double timeout, double least) const {
    return open("exec:" + command, timeout, least)->readAll();
}

namespace {
// The output of a finished shell v2 stream; `what` names it in errors.
AdbShellResult collectShellV2(std::string stream, const std::string& what) {
    AdbShellResult r;
    r.exit_code = -1;
    for (const ShellPacket& p : takeShellPackets(stream, what)) {
        if (p.id == kShellStdout) r.out += p.data;
        else if (p.id == kShellStderr) r.err += p.data;
        else if (p.id == kShellExit && !p.data.empty()) r.exit_code = static_cast<unsigned char>(p.data[0]);
    }
    return r;
}
}  // namespace

AdbShellResult AdbClient::parseShellV2(const std::string& s) { return collectShellV2(s, "shell v2"); }

AdbShellResult AdbClient::shell(const std::string& command, double timeout) const {
    return collectShellV2(open("shell,v2,raw:" + command, timeout)->readAll(), "adb " + serial_ + ": " + command);
}

uint32_t AdbClient::statMode(const std::string& path, double timeout) const {
    auto c = open("sync:", timeout);
    c->begin("sync STAT " + path);
    c->write(syncRequest("STAT", path));
    const uint32_t mode = readSyncStat(c->reader(), "adb " + serial_ + ": sync STAT " + path);
    c->write(syncRequest("QUIT", ""));
    return mode;
}

std::string AdbClient::pull(const std::string& path, double timeout) const {
    auto c = open("sync:", timeout);
    c->begin("pull " + path);
    c->write(syncRequest("RECV", path));
    std::string data = readSyncRecv(c->reader(), "adb " + serial_ + ": pull " + path);
    c->write(syncRequest("QUIT", ""));
    return data;
}

void AdbClient::push(const std::string& data, const std::string& path, uint32_t mode, double timeout) const {
    auto c = open("sync:", timeout);
    c->begin("push " + path);
    std::string out = syncRequest("SEND", path + "," + std::to_string(mode));
    for (size_t off = 0; off < data.size() || off == 0; off += 65536) {
        out += syncRequest("DATA", data.substr(off, 65536));
        if (data.empty()) break;
    }
    out += "DONE" + le32Bytes(static_cast<uint32_t>(std::time(nullptr)));
    c->write(out);
    readSyncDone(c->reader(), "adb " + serial_ + ": push " + path);
    c->write(syncRequest("QUIT", ""));
}

AdbShell::AdbShell(const AdbClient& client) : client_(client) {}
AdbShell::~AdbShell() = default;

void AdbShell::ensureOpen() {
    if (conn_) return;
    conn_ = client_.open("shell,v2,raw:");
    pending_.clear();
}

AdbShellResult AdbShell::run(const std::string& command, double timeout, const std::string& label) {
    ensureOpen();
    conn_->begin(label.empty() ? command : label, timeout);
    std::string marker = "__eacu_done_" + std::to_string(++serial_no_) + "_";
    AdbShellResult r;
    try {
        conn_->write(packet(kShellStdin, command + "\necho \"" + marker + "$?\"\n"));
        for (;;) {
            size_t line = r.out.find(marker);
            if (line != std::string::npos) {
                size_t nl = r.out.find('\n', line);
                if (nl != std::string::npos) {
                    r.exit_code = std::atoi(r.out.c_str() + line + marker.size());
                    r.out.erase(line);
                    return r;
                }
            }
            std::string more = conn_->readSome();
            if (more.empty()) throw DeviceError("adb " + client_.serial() + ": the input shell ended (the device went away?)");
            pending_ += more;
            for (const ShellPacket& p : takeShellPackets(pending_, "adb " + client_.serial() + ": the input shell")) {
                if (p.id == kShellStdout) r.out += p.data;
                else if (p.id == kShellStderr) r.err += p.data;
                else if (p.id == kShellExit)
                    throw DeviceError("adb " + client_.serial() + ": the input shell exited (status " +
                                      std::to_string(p.data.empty() ? -1 : static_cast<unsigned char>(p.data[0])) + ")");
            }
        }
    } catch (...) {
        // A stall, a cancel or a broken stream: the shell's state is unknown, the next run opens a new one.
        conn_.reset();
        throw;
    }
}

}  // namespace eacu
