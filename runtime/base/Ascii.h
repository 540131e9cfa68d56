// ASCII case folding for names, keys and patterns.
#pragma once
#include <string>
#include <string_view>

namespace eacu {

/// `s` with the ASCII letters A-Z lower-cased; every other byte (UTF-8 of CJK text included)
/// kept. Locale-independent.
std::string asciiLower(std::string_view s);

}  // namespace eacu
