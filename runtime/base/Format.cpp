#include "base/Format.h"

#include <cstdio>

namespace eacu {

std::string fixed(double v, int digits) {
    char buf[64];
    int n = std::snprintf(buf, sizeof buf, "%.*f", digits, v);
    return n < 0 ? std::string() : std::string(buf, std::min<size_t>(size_t(n), sizeof buf - 1));
}

}  // namespace eacu
