// UTF-8 decoding, encoding and clipping: one strict decoder for typed text, key names and OCR.
#pragma once
#include <string>
#include <string_view>

namespace eacu {

/// Decodes UTF-8 into code points (RFC 3629: no overlong forms, no surrogates, at most
/// U+10FFFF). Throws std::invalid_argument at the first invalid byte, naming its offset:
/// "invalid UTF-8 at byte 3: truncated sequence".
std::u32string decodeUtf8(std::string_view s);
/// Encodes code points as UTF-8.
std::string encodeUtf8(std::u32string_view s);
/// `s` cut to at most `n` bytes on a character boundary, with "..." appended when cut.
std::string clipUtf8(const std::string& s, size_t n);

}  // namespace eacu
