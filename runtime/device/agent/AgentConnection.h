// One TCP connection to a device agent (docs/agent-protocol.md): framing, the hello with the
// token, one request at a time with a deadline, errors as DeviceError.
#pragma once
#include <mutex>
#include <string>

#include <nlohmann/json.hpp>

#include "device/DeviceWait.h"

namespace eacu {

/// An answer of the agent: its JSON header (with "ok": true) and its binary payload.
struct AgentReply {
    nlohmann::json header;
    std::string payload;
};

/// A connection to an agent at HOST:PORT, speaking protocol version 1: each message is two
/// little-endian uint32 (header length, payload length), a JSON object, then the payload.
/// Thread-safe (one request at a time). Every failure throws DeviceError naming the agent:
/// a refused or lost connection ("agent 127.0.0.1:7878 is gone: ..."), an error answer
/// ("agent 127.0.0.1:7878: capture: window 42 is gone"), and DeviceStalled when no answer came
/// within the call's timeout or the thread's IoBound (the step's deadline: "agent
/// 127.0.0.1:7878: capture: no answer within 4.0 s (the step's deadline of 3 s)"). After a
/// stall or a lost connection the connection is closed (a late answer cannot be matched) and
/// the next call connects again and says hello.
class AgentConnection {
public:
    /// Connects within `timeout` seconds and says hello with `token` (may be empty). Throws
    /// DeviceError when it cannot connect, the agent refuses the token or speaks another version.
    AgentConnection(std::string host, int port, const std::string& token, double timeout = 10);
    ~AgentConnection();
    AgentConnection(const AgentConnection&) = delete;
    AgentConnection& operator=(const AgentConnection&) = delete;

    /// Sends `request` (an object with "op"; "id" is set here) and `payload`, and waits up to
    /// `timeout` seconds (less when the thread's IoBound ends sooner) for the answer, connecting
    /// again first when the last call left the connection closed. Throws DeviceError as the
    /// class says, Cancelled when the thread's token is cancelled (the connection is closed).
    AgentReply call(nlohmann::json request, const std::string& payload = {}, double timeout = 10);
    /// The agent's hello answer (version, "os", "pid", limits).
    const nlohmann::json& hello() const { return hello_; }
    /// "HOST:PORT".
    const std::string& address() const { return address_; }

private:
    void open(double timeout);
    void close();
    AgentReply exchange(nlohmann::json request, const std::string& payload, double timeout);
    [[noreturn]] void lost(const std::string& why);
    [[noreturn]] void drop(const DeviceStalled& e);
    void sendAll(const char* p, size_t n, const DeviceWait& w);
    void recvAll(char* p, size_t n, const DeviceWait& w);

    std::string address_;
    std::string host_;
    int port_ = 0;
    std::string token_;
    int fd_ = -1;
    std::string gone_;  // why the connection is gone ("" while it is up)
    uint64_t next_id_ = 1;
    nlohmann::json hello_;
    std::mutex mu_;
};

}  // namespace eacu
