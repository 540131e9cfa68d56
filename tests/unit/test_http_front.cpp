// server/HttpFront: how it listens.
#include <catch2/catch.hpp>

#include <string>
#include <string_view>

#include "server/HttpFront.h"

using namespace eacu;

TEST_CASE("http front: a second server cannot bind a port already listened on", "[serve]") {
    server::HttpOptions o;
    o.port = 0;
    auto none = [](std::string_view) -> std::string_view { return {}; };
    server::HttpFront first(o, none);
    const int port = first.bind();
    REQUIRE(port > 0);
    // cpp-httplib's default sets SO_REUSEPORT, with which this bind succeeded and the kernel
    // shared the first server's connections with the second (two REPLs' studios on 8766).
    o.port = port;
    server::HttpFront second(o, none);
    REQUIRE_THROWS_WITH(second.bind(), "cannot listen on 127.0.0.1:" + std::to_string(port) +
                                            " (in use, or not an address of this machine)");
}
