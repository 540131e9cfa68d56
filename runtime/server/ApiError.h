// A request an HTTP API refuses (eacu serve's, eacu studio's): its status and message.
#pragma once
#include <stdexcept>
#include <string>

namespace eacu::server {

/// A request the API refuses: `status` is the HTTP status (400, 403, 404, 409, ...), what()
/// the message for the client.
class ApiError : public std::runtime_error {
public:
    ApiError(int status, const std::string& message) : std::runtime_error(message), status(status) {}
    int status;
};

}  // namespace eacu::server
