// Redis replies (RESP) from a hostile server: RedisClient (hiredis's reader and our conversion
// to RedisReply, the AUTH and SELECT of its connect, a pipeline) against a loopback peer that
// answers with the input's bytes. Invariants: only RedisError (RedisIoError included) escapes;
// a reply that was returned is well formed (integers, strings or arrays of them).
#include <cstdint>
#include <string>

#include "HostilePeer.h"
#include "server/RedisClient.h"
#include "server/RedisUrl.h"

using namespace eacu;
using namespace eacu::server;

namespace {

size_t count(const RedisReply& r) {
    size_t n = 1;
    for (const auto& e : r.elements) n += count(e);
    if (r.type != RedisReply::Type::Array && !r.elements.empty()) fuzz::broken("a non-array reply has elements");
    return n;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    static fuzz::HostilePeer peer;
    if (size < 1) return 0;
    // The first byte: which connect the client does (password, db) before its commands.
    const uint8_t mode = data[0];
    std::string url = "redis://";
    if (mode & 1) url += "eacu:secret@";
    url += "127.0.0.1:" + std::to_string(peer.port());
    if (mode & 2) url += "/3";
    peer.answer(std::string(reinterpret_cast<const char*>(data + 1), size - 1));
    try {
        RedisClient c(RedisUrl::parse(url), 1.0, 1.0);
        auto r = c.command({"XREADGROUP", "GROUP", "g", "w", "COUNT", "10", "STREAMS", "s", ">"});
        count(r);
        for (const auto& x : c.pipeline({{"HGETALL", "h"}, {"SMEMBERS", "w"}, {"EXEC"}})) count(x);
        r.text();
    } catch (const RedisError&) {
    }
    peer.join();
    return 0;
}
