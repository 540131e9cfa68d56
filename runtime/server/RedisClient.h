// One connection to a Redis server (Debian's hiredis 0.14): commands as argument vectors
// (binary safe), replies as values, the start-up checks (reachable, password, XAUTOCLAIM) as
// clear errors, and a reconnect after a lost connection. Not thread-safe: one per thread (a
// blocking read needs a connection of its own anyway).
#pragma once
#include <stdexcept>
#include <string>
#include <vector>

#include "server/RedisUrl.h"

struct redisContext;

namespace eacu::server {

/// A reply: nil, integer, string (bulk or status) or array.
struct RedisReply {
    enum class Type { Nil, Integer, String, Array };
    Type type = Type::Nil;
    long long integer = 0;
    std::string str;
    std::vector<RedisReply> elements;

    bool isNil() const { return type == Type::Nil; }
    /// The string (or the integer as text); "" for nil and arrays.
    std::string text() const;
};

/// Redis answered with an error ("ERR ...", "NOSCRIPT ...", "WRONGPASS ..."). what() names the
/// command and the server's message (never an argument: they may hold a password).
class RedisError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

/// The connection failed (unreachable, reset, timed out). The client reconnects on its next
/// command.
class RedisIoError : public RedisError {
public:
    using RedisError::RedisError;
};

class RedisClient {
public:
    /// Connects to `url` (at most `timeout` seconds), AUTHs and SELECTs. Throws RedisIoError
    /// ("cannot reach Redis at redis://HOST:PORT/DB: Connection refused") or RedisError (a
    /// wrong password, ...). `read_timeout`: how long a reply may take (a blocking read's
    /// BLOCK must be shorter).
    explicit RedisClient(RedisUrl url, double timeout = 3.0, double read_timeout = 5.0);
    ~RedisClient();
    RedisClient(const RedisClient&) = delete;
    RedisClient& operator=(const RedisClient&) = delete;

    /// Runs one command; throws RedisError for an error reply, RedisIoError when the
    /// connection is lost (the next command reconnects first).
    RedisReply command(const std::vector<std::string>& args);
    /// Runs several commands in one round trip (MULTI/EXEC is up to the caller); returns
    /// their replies in order; throws as command() (the first error reply).
    std::vector<RedisReply> pipeline(const std::vector<std::vector<std::string>>& commands);
    /// The checks `eacu serve --queue` and `eacu worker` make at start: the server speaks, the
    /// password was right, and it has XAUTOCLAIM (Redis >= 6.2). Throws RedisError with the
    /// reason (and the server's version when it is too old).
    void checkServer();
    /// The URL without its password (for messages).
    std::string where() const { return url_.redacted(); }

private:
    void connect();
    void drop();

    RedisUrl url_;
    double timeout_, read_timeout_;
    redisContext* ctx_ = nullptr;
};

}  // namespace eacu::server
