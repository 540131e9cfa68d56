// The wire under a DevTools protocol connection: whole JSON text messages both ways.
#pragma once
#include <functional>
#include <string>

namespace eacu {

/// A message transport for the Chrome DevTools Protocol (one implementation today:
/// WebSocketTransport). Messages arrive on the transport's own thread.
class CdpTransport {
public:
    /// Called with each message received, from the transport's thread.
    using OnMessage = std::function<void(std::string message)>;
    /// Called once when the connection is lost or closed, with the reason.
    using OnClosed = std::function<void(const std::string& reason)>;

    virtual ~CdpTransport() = default;
    /// Starts delivering messages; called once, before any send().
    virtual void start(OnMessage on_message, OnClosed on_closed) = 0;
    /// Queues one message; thread-safe, never blocks on the network. After the connection is
    /// lost the message is dropped (the caller learns it from OnClosed).
    virtual void send(std::string message) = 0;
    /// Closes the connection and stops the thread; idempotent.
    virtual void close() = 0;
};

}  // namespace eacu
