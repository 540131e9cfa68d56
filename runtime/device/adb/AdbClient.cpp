#include "device/adb/AdbClient.h"

#include <ctime>
#include <sstream>

#include "device/Device.h"

namespace eacu {

namespace {

constexpr char kShellStdin = 0, kShellStdout = 1, kShellStderr = 2, kShellExit = 3;

std::string packet(char id, const std::string& data) {
    return std::string(1, id) + AdbConnection::le32(static_cast<uint32_t>(data.size())) + data;
}

std::string syncRequest(const char* id, const std::string& data) {
    return std::string(id, 4) + AdbConnection::le32(static_cast<uint32_t>(data.size())) + data;
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

std::unique_ptr<AdbConnection> AdbClient::open(const std::string& service, double timeout) const {
    auto c = std::make_unique<AdbConnection>(port_, "adb " + serial_, timeout);
    try {
        c->request("host:transport:" + serial_);
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

std::string AdbClient::exec(const std::string& command, double timeout) const {
    return open("exec:" + command, timeout)->readAll();
}

AdbShellResult AdbClient::parseShellV2(const std::string& s) {
    AdbShellResult r;
    r.exit_code = -1;
    size_t i = 0;
    while (i + 5 <= s.size()) {
        char id = s[i];
        uint32_t n = AdbConnection::le32(s.data() + i + 1);
        if (i + 5 + n > s.size()) break;
        std::string data = s.substr(i + 5, n);
        if (id == kShellStdout) r.out += data;
        else if (id == kShellStderr) r.err += data;
        else if (id == kShellExit && !data.empty()) r.exit_code = static_cast<unsigned char>(data[0]);
        i += 5 + n;
    }
    return r;
}

AdbShellResult AdbClient::shell(const std::string& command, double timeout) const {
    return parseShellV2(open("shell,v2,raw:" + command, timeout)->readAll());
}

uint32_t AdbClient::statMode(const std::string& path, double timeout) const {
    auto c = open("sync:", timeout);
    c->write(syncRequest("STAT", path));
    std::string r = c->readExact(16);
    if (r.compare(0, 4, "STAT") != 0)
        throw DeviceError("adb " + serial_ + ": sync STAT " + path + ": expected STAT, got \"" + r.substr(0, 4) + "\"");
    c->write(syncRequest("QUIT", ""));
    return AdbConnection::le32(r.data() + 4);
}

std::string AdbClient::pull(const std::string& path, double timeout) const {
    auto c = open("sync:", timeout);
    c->write(syncRequest("RECV", path));
    std::string data;
    for (;;) {
        std::string head = c->readExact(8);
        uint32_t n = AdbConnection::le32(head.data() + 4);
        std::string id = head.substr(0, 4);
        if (id == "DONE") break;
        if (id == "FAIL") throw DeviceError("adb " + serial_ + ": pull " + path + ": " + c->readExact(n));
        if (id != "DATA")
            throw DeviceError("adb " + serial_ + ": pull " + path + ": expected DATA, DONE or FAIL, got \"" + id + "\"");
        data += c->readExact(n);
    }
    c->write(syncRequest("QUIT", ""));
    return data;
}

void AdbClient::push(const std::string& data, const std::string& path, uint32_t mode, double timeout) const {
    auto c = open("sync:", timeout);
    std::string out = syncRequest("SEND", path + "," + std::to_string(mode));
    for (size_t off = 0; off < data.size() || off == 0; off += 65536) {
        out += syncRequest("DATA", data.substr(off, 65536));
        if (data.empty()) break;
    }
    out += "DONE" + AdbConnection::le32(static_cast<uint32_t>(std::time(nullptr)));
    c->write(out);
    std::string head = c->readExact(8);
    uint32_t n = AdbConnection::le32(head.data() + 4);
    if (head.compare(0, 4, "OKAY") != 0)
        throw DeviceError("adb " + serial_ + ": push " + path + ": " +
                          (head.compare(0, 4, "FAIL") == 0 ? c->readExact(n) : "expected OKAY, got \"" + head.substr(0, 4) + "\""));
    c->write(syncRequest("QUIT", ""));
}

AdbShell::AdbShell(const AdbClient& client) : client_(client) {}
AdbShell::~AdbShell() = default;

void AdbShell::ensureOpen() {
    if (conn_) return;
    conn_ = client_.open("shell,v2,raw:");
    pending_.clear();
}

AdbShellResult AdbShell::run(const std::string& command, double timeout) {
    ensureOpen();
    conn_->setTimeout(timeout);
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
            while (pending_.size() < 5 || pending_.size() < 5 + AdbConnection::le32(pending_.data() + 1)) {
                std::string more = conn_->readSome();
                if (more.empty()) throw DeviceError("adb " + client_.serial() + ": the input shell ended (the device went away?)");
                pending_ += more;
            }
            uint32_t n = AdbConnection::le32(pending_.data() + 1);
            char id = pending_[0];
            std::string data = pending_.substr(5, n);
            pending_.erase(0, 5 + n);
            if (id == kShellStdout) r.out += data;
            else if (id == kShellStderr) r.err += data;
            else if (id == kShellExit)
                throw DeviceError("adb " + client_.serial() + ": the input shell exited (status " +
                                  std::to_string(data.empty() ? -1 : static_cast<unsigned char>(data[0])) + ")");
        }
    } catch (const DeviceError&) {
        conn_.reset();
        throw;
    }
}

}  // namespace eacu
