// A Chrome DevTools Protocol connection: commands answered by id with a deadline, and events.
#pragma once
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "device/chromium/CdpTransport.h"

namespace eacu {

/// One connection to a browser endpoint. Pages are reached through flattened sessions: a
/// command or event for a page carries its "sessionId" (Target.attachToTarget {flatten: true}).
/// Thread-safe: call() from any thread; event handlers run on the transport's thread and must
/// not call call() (they may post()).
class CdpConnection {
public:
    /// An event handler: `method` ("Page.loadEventFired"), `params`, `session` ("" for the
    /// browser's own events).
    using EventHandler = std::function<void(const std::string& method, const nlohmann::json& params,
                                            const std::string& session)>;

    /// Takes the transport and starts it. `peer` names the other end in errors ("chromium (pid
    /// 123)", "cdp http://127.0.0.1:9222").
    CdpConnection(std::unique_ptr<CdpTransport> transport, std::string peer);
    /// Closes the transport (close()).
    ~CdpConnection();
    CdpConnection(const CdpConnection&) = delete;
    CdpConnection& operator=(const CdpConnection&) = delete;

    /// Sends `method` with `params` (to `session` when not empty) and waits up to `timeout`
    /// seconds for its answer, less when the thread's IoBound (the step's deadline) or its token
    /// ends the wait sooner (DeviceWait); returns its "result". Throws DeviceError on an error
    /// answer ("Page.navigate: Cannot navigate to invalid URL"), when the session failed
    /// (failSession) and when the connection is lost ("chromium (pid 123) is gone: ...");
    /// DeviceStalled when no answer came in time ("chromium (pid 123): Page.captureScreenshot:
    /// no answer within 5.0 s (the step's deadline of 4 s)"); Cancelled when the token is.
    nlohmann::json call(const std::string& method, const nlohmann::json& params = nlohmann::json::object(),
                        const std::string& session = "", double timeout = 30);
    /// Sends a command without waiting for its answer (an answer that comes is dropped; an error
    /// answer is kept as lastPostError()). For event handlers.
    void post(const std::string& method, const nlohmann::json& params, const std::string& session);
    /// Ends every call to `session`, waiting or to come, with DeviceError "PEER: `reason`"
    /// (its page crashed: Chromium answers none of them). May be called from an event handler.
    void failSession(const std::string& session, const std::string& reason);
    /// Adds an event handler; handlers are never removed while the connection lives.
    void onEvent(EventHandler handler);

    /// Closes the transport and joins its thread: once it returns no event handler runs again
    /// and every call ends "the connection was closed". Idempotent. An owner whose handlers reach
    /// the connection through its own pointer closes it before letting go of that pointer
    /// (a unique_ptr's reset() clears the pointer before the destructor joins the thread).
    void close();
    /// True until the connection is lost.
    bool alive() const;
    /// Why the connection was lost ("" while alive).
    std::string lostReason() const;
    const std::string& peer() const { return peer_; }

private:
    void receive(std::string text);
    void lost(const std::string& reason);

    std::unique_ptr<CdpTransport> transport_;
    std::string peer_;
    mutable std::mutex mu_;
    std::condition_variable cv_;
    int64_t next_id_ = 0;
    std::map<int64_t, nlohmann::json> answers_;  // answers to calls still waiting (in waiting_)
    std::set<int64_t> waiting_;                   // ids of call()s waiting for their answer
    std::map<int64_t, bool> posted_;
    std::string lost_;
    std::map<std::string, std::string> failed_;  // session -> why its calls fail
    std::vector<EventHandler> handlers_;
};

}  // namespace eacu
