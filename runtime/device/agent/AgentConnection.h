// One TCP connection to a device agent (docs/agent-protocol.md): framing, the hello with the
// token, one request at a time with a deadline, errors as DeviceError.
#pragma once
#include <mutex>
#include <string>

#include <nlohmann/json.hpp>

namespace eacu {

/// An answer of the agent: its JSON header (with "ok": true) and its binary payload.
struct AgentReply {
    nlohmann::json header;
    std::string payload;
};

/// A connection to an agent at HOST:PORT, speaking protocol version 1: each message is two
/// little-endian uint32 (header length, payload length), a JSON object, then the payload.
/// Thread-safe (one request at a time). Every failure throws DeviceError naming the agent:
/// a refused or lost connection ("agent 127.0.0.1:7878 is gone: ..."), a deadline passed
/// (the connection is then closed: a late answer cannot be matched), an error answer
/// ("agent 127.0.0.1:7878: capture: window 42 is gone").
class AgentConnection {
public:
    /// Connects within `timeout` seconds and says hello with `token` (may be empty). Throws
    /// DeviceError when it cannot connect, the agent refuses the token or speaks another version.
    AgentConnection(std::string host, int port, const std::string& token, double timeout = 10);
    ~AgentConnection();
    AgentConnection(const AgentConnection&) = delete;
    AgentConnection& operator=(const AgentConnection&) = delete;

    /// Sends `request` (an object with "op"; "id" is set here) and `payload`, and waits up to
    /// `timeout` seconds for the answer. Throws DeviceError as the class says.
    AgentReply call(nlohmann::json request, const std::string& payload = {}, double timeout = 10);
    /// The agent's hello answer (version, "os", "pid", limits).
    const nlohmann::json& hello() const { return hello_; }
    /// "HOST:PORT".
    const std::string& address() const { return address_; }

private:
    [[noreturn]] void lost(const std::string& why);
    void sendAll(const char* p, size_t n, double deadline);
    void recvAll(char* p, size_t n, double deadline);

    std::string address_;
    int fd_ = -1;
    std::string gone_;  // why the connection is gone ("" while it is up)
    uint64_t next_id_ = 1;
    nlohmann::json hello_;
    std::mutex mu_;
};

}  // namespace eacu
