// eacu studio's HTTP side, on server/HttpFront (the token rules and the page files of eacu
// serve): the studio page at /, its API under /api/studio/ (docs/studio.md), live frames and
// script changes as one SSE stream.
#pragma once
#include <memory>

#include "server/HttpFront.h"
#include "studio/Studio.h"

namespace eacu::studio {

class StudioHttp {
public:
    /// Throws std::invalid_argument when `options.host` is not loopback and there is no token.
    StudioHttp(Studio& studio, server::HttpOptions options);
    ~StudioHttp();
    /// Binds host:port (0: any free port); returns the port. Throws std::runtime_error.
    int bind();
    /// Serves until stop(). False if the listener failed.
    bool listen();
    /// Ends every stream and stops listen() (any thread); idempotent.
    void stop();

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace eacu::studio
