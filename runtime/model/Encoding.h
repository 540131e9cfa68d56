// SHA-256 for model cache keys.
#pragma once
#include <string>
#include <string_view>

namespace eacu::model {

/// SHA-256 (FIPS 180-4) of `bytes` as 64 lower-case hex digits.
std::string sha256Hex(std::string_view bytes);

}  // namespace eacu::model
