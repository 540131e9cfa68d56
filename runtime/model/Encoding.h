// Base64 and SHA-256 for model requests and cache keys.
#pragma once
#include <string>
#include <string_view>

namespace eacu::model {

/// Standard base64 (RFC 4648 §4, with '=' padding) of raw bytes.
std::string base64Encode(std::string_view bytes);
/// Decodes standard base64 (whitespace ignored). Throws std::invalid_argument on bad input.
std::string base64Decode(std::string_view text);
/// SHA-256 (FIPS 180-4) of `bytes` as 64 lower-case hex digits.
std::string sha256Hex(std::string_view bytes);

}  // namespace eacu::model
