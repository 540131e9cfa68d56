#include "server/RedisUrl.h"

#include <cstdlib>
#include <stdexcept>

namespace eacu::server {
namespace {

int wholeNumber(const std::string& s, int lo, int hi, const std::string& what) {
    if (s.empty() || s.find_first_not_of("0123456789") != std::string::npos || s.size() > 9)
        throw std::invalid_argument("--queue: expected " + what + " as a whole number, got \"" + s + "\"");
    int v = std::atoi(s.c_str());
    if (v < lo || v > hi)
        throw std::invalid_argument("--queue: expected " + what + " in [" + std::to_string(lo) + ", " +
                                    std::to_string(hi) + "], got " + s);
    return v;
}

}  // namespace

RedisUrl RedisUrl::parse(const std::string& url) {
    const std::string scheme = "redis://";
    if (url.compare(0, scheme.size(), scheme) != 0)
        throw std::invalid_argument("--queue: expected redis://[USER:PASSWORD@]HOST:PORT[/DB] (rediss:// and unix "
                                    "sockets are not supported: Debian's hiredis 0.14 has no TLS)");
    RedisUrl u;
    std::string rest = url.substr(scheme.size());
    if (auto at = rest.rfind('@'); at != std::string::npos) {
        std::string cred = rest.substr(0, at);
        rest = rest.substr(at + 1);
        auto colon = cred.find(':');
        if (colon == std::string::npos) {
            u.password = cred;  // redis://PASSWORD@HOST:PORT, as redis-cli -u takes it
        } else {
            u.user = cred.substr(0, colon);
            u.password = cred.substr(colon + 1);
        }
    }
    std::string hostport = rest;
    if (auto slash = rest.find('/'); slash != std::string::npos) {
        hostport = rest.substr(0, slash);
        std::string db = rest.substr(slash + 1);
        if (!db.empty()) u.db = wholeNumber(db, 0, 100000, "the database number after '/'");
    }
    auto colon = hostport.rfind(':');
    if (colon == std::string::npos) {
        u.host = hostport;
    } else {
        u.host = hostport.substr(0, colon);
        u.port = wholeNumber(hostport.substr(colon + 1), 1, 65535, "the port");
    }
    if (u.host.size() > 2 && u.host.front() == '[' && u.host.back() == ']') u.host = u.host.substr(1, u.host.size() - 2);
    if (u.host.empty()) throw std::invalid_argument("--queue: expected a host in redis://HOST:PORT, got none");
    if (u.password.empty())
        if (const char* p = std::getenv("EACU_REDIS_PASSWORD"); p && *p) u.password = p;
    return u;
}

std::string RedisUrl::redacted() const {
    std::string s = "redis://";
    if (!user.empty() || !password.empty()) s += user + (password.empty() ? "" : ":***") + "@";
    return s + database();
}

std::string RedisUrl::database() const {
    return (host.find(':') != std::string::npos ? "[" + host + "]" : host) + ":" + std::to_string(port) + "/" +
           std::to_string(db);
}

}  // namespace eacu::server
