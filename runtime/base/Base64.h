// Base64 (RFC 4648 §4): images in model requests and in the HTML report.
#pragma once
#include <string>
#include <string_view>

namespace eacu {

/// Standard base64 (RFC 4648 §4, with '=' padding) of raw bytes.
std::string base64Encode(std::string_view bytes);
/// Decodes standard base64 (whitespace ignored). Throws std::invalid_argument on bad input.
std::string base64Decode(std::string_view text);

}  // namespace eacu
