#include "server/RedisClient.h"

#include <hiredis/hiredis.h>
#include <sys/time.h>

namespace eacu::server {
namespace {

timeval toTimeval(double seconds) {
    timeval tv;
    tv.tv_sec = long(seconds);
    tv.tv_usec = long((seconds - double(tv.tv_sec)) * 1e6);
    return tv;
}

RedisReply convert(const redisReply* r) {
    RedisReply out;
    switch (r->type) {
        case REDIS_REPLY_INTEGER:
            out.type = RedisReply::Type::Integer;
            out.integer = r->integer;
            break;
        case REDIS_REPLY_STRING:
        case REDIS_REPLY_STATUS:
        case REDIS_REPLY_ERROR:
            out.type = RedisReply::Type::String;
            out.str.assign(r->str, r->len);
            break;
        case REDIS_REPLY_ARRAY:
            out.type = RedisReply::Type::Array;
            for (size_t i = 0; i < r->elements; ++i) out.elements.push_back(convert(r->element[i]));
            break;
        default:
            break;
    }
    return out;
}

// The first error reply in `r` (EXEC's array holds the errors of its commands), or "".
std::string errorIn(const redisReply* r) {
    if (r->type == REDIS_REPLY_ERROR) return std::string(r->str, r->len);
    return "";
}

}  // namespace

std::string RedisReply::text() const {
    if (type == Type::String) return str;
    if (type == Type::Integer) return std::to_string(integer);
    return "";
}

RedisClient::RedisClient(RedisUrl url, double timeout, double read_timeout)
    : url_(std::move(url)), timeout_(timeout), read_timeout_(read_timeout) {
    connect();
}

RedisClient::~RedisClient() { drop(); }

void RedisClient::drop() {
    if (ctx_) redisFree(ctx_);
    ctx_ = nullptr;
}

void RedisClient::connect() {
    drop();
    ctx_ = redisConnectWithTimeout(url_.host.c_str(), url_.port, toTimeval(timeout_));
    if (!ctx_ || ctx_->err) {
        std::string why = ctx_ ? ctx_->errstr : "out of memory";
        drop();
        throw RedisIoError("cannot reach Redis at " + where() + ": " + why);
    }
    redisSetTimeout(ctx_, toTimeval(read_timeout_));
    try {
        if (!url_.password.empty()) {
            std::vector<std::string> auth{"AUTH"};
            if (!url_.user.empty()) auth.push_back(url_.user);
            auth.push_back(url_.password);
            try {
                command(auth);
            } catch (const RedisIoError&) {
                throw;
            } catch (const RedisError& e) {
                std::string m = e.what();
                throw RedisError("Redis at " + where() + " refused the password" +
                                 (url_.user.empty() ? "" : " of user " + url_.user) + " (" +
                                 m.substr(m.find(": ") == std::string::npos ? 0 : m.find(": ") + 2) + ")");
            }
        }
        if (url_.db != 0) command({"SELECT", std::to_string(url_.db)});
    } catch (...) {
        drop();
        throw;
    }
}

RedisReply RedisClient::command(const std::vector<std::string>& args) {
    auto replies = pipeline({args});
    return std::move(replies.front());
}

std::vector<RedisReply> RedisClient::pipeline(const std::vector<std::vector<std::string>>& commands) {
    if (!ctx_) connect();
    for (const auto& args : commands) {
        std::vector<const char*> argv;
        std::vector<size_t> lens;
        for (const auto& a : args) {
            argv.push_back(a.data());
            lens.push_back(a.size());
        }
        redisAppendCommandArgv(ctx_, int(argv.size()), argv.data(), lens.data());
    }
    std::vector<RedisReply> out;
    std::string first_error;
    for (size_t i = 0; i < commands.size(); ++i) {
        void* raw = nullptr;
        if (redisGetReply(ctx_, &raw) != REDIS_OK || !raw) {
            std::string why = ctx_->errstr[0] ? ctx_->errstr : "connection lost";
            drop();
            throw RedisIoError("Redis at " + where() + ": " + why + " (during " + commands[i].front() + ")");
        }
        auto* r = static_cast<redisReply*>(raw);
        std::string err = errorIn(r);
        if (!err.empty() && first_error.empty()) first_error = commands[i].front() + ": " + err;
        out.push_back(convert(r));
        freeReplyObject(r);
    }
    if (!first_error.empty()) {
        if (first_error.find("NOAUTH") != std::string::npos)
            throw RedisError("Redis at " + where() +
                             " needs a password: give it in the URL (redis://USER:PASSWORD@HOST:PORT) or in "
                             "EACU_REDIS_PASSWORD");
        throw RedisError("Redis at " + where() + ": " + first_error);
    }
    return out;
}

void RedisClient::checkServer() {
    command({"PING"});
    RedisReply info = command({"COMMAND", "INFO", "XAUTOCLAIM"});
    bool has = info.type == RedisReply::Type::Array && !info.elements.empty() && !info.elements[0].isNil();
    if (!has) {
        std::string version = "?";
        std::string text = command({"INFO", "server"}).text();
        if (auto p = text.find("redis_version:"); p != std::string::npos)
            version = text.substr(p + 14, text.find_first_of("\r\n", p) - p - 14);
        throw RedisError("Redis at " + where() + " has no XAUTOCLAIM (redis_version " + version +
                         "; eacu needs Redis >= 6.2 with XAUTOCLAIM enabled)");
    }
}

}  // namespace eacu::server
