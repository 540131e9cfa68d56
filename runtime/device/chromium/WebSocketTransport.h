// The DevTools protocol over a WebSocket (Boost.Beast): what Chromium's --remote-debugging-port
// serves at ws://HOST:PORT/devtools/browser/ID.
#pragma once
#include <memory>
#include <string>

#include "device/chromium/CdpTransport.h"

namespace eacu {

/// The browser endpoint's address ("ws://127.0.0.1:9222/devtools/browser/ID") from a DevTools
/// HTTP endpoint ("http://127.0.0.1:9222"): GET /json/version, its "webSocketDebuggerUrl".
/// Throws DeviceError when the endpoint cannot be reached within `timeout` seconds or answers
/// something else (naming the URL and what came), std::invalid_argument when `http_url` is not
/// "http://HOST:PORT[/]".
std::string browserWebSocketUrl(const std::string& http_url, double timeout = 10);

/// Opens a WebSocket to `ws_url` ("ws://HOST:PORT/PATH"), connecting and completing the handshake
/// within `timeout` seconds. Reads and writes run on one thread of its own (an io_context), so
/// send() from any thread is safe. Throws DeviceError when it cannot connect.
std::unique_ptr<CdpTransport> openWebSocket(const std::string& ws_url, double timeout = 10);

}  // namespace eacu
