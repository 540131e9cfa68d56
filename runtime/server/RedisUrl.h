// Where a Redis server is: redis://[USER:PASSWORD@]HOST:PORT[/DB], and the same without its
// password for every log line, error message and page.
#pragma once
#include <string>

namespace eacu::server {

/// A parsed redis:// URL. `password` comes from the URL, else from EACU_REDIS_PASSWORD.
struct RedisUrl {
    std::string user;      // "" = the default user
    std::string password;  // "" = no AUTH
    std::string host;
    int port = 6379;
    int db = 0;

    /// Parses `url`; throws std::invalid_argument naming what was expected (the message never
    /// holds the password). EACU_REDIS_PASSWORD fills in a password the URL does not give.
    static RedisUrl parse(const std::string& url);
    /// redis://[USER:***@]HOST:PORT/DB: the URL without its password.
    std::string redacted() const;
    /// HOST:PORT/DB: which database of which Redis, without user or password (IPv6 hosts in []).
    std::string database() const;
};

}  // namespace eacu::server
