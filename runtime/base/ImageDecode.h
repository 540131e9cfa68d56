// Decoding a PNG or JPEG held in memory (reference images, run-log frames, browser screenshots)
// with the checks a file from elsewhere needs before any decoder runs.
#pragma once
#include <cstdint>
#include <string>
#include <optional>
#include <utility>
#include <vector>

#include <opencv2/core.hpp>

namespace eacu {

/// Pixels an image may declare: 64 Mi (an 8K screen is 33 Mi). A 90-byte JPEG can declare a
/// gigapixel, and decoding it as BGR takes 3 GB.
inline constexpr int64_t kMaxImagePixels = int64_t(64) << 20;

/// The width and height a JPEG's header declares (its first start-of-frame segment, read as
/// libjpeg reads it), or nullopt when `bytes` are no JPEG or declare none before the scan.
std::optional<std::pair<uint32_t, uint32_t>> jpegSize(const std::vector<unsigned char>& bytes);

/// True when `bytes` start with the PNG signature (RFC 2083, 3.1).
bool hasPngSignature(const std::vector<unsigned char>& bytes);

/// Decodes `bytes` with cv::imdecode(`flags`) after checking, from the bytes alone, that they are
/// a PNG (signature) or a JPEG (start of image) and that the size its header declares (PNG IHDR,
/// JPEG start of frame, found as libjpeg finds it) is known and at most kMaxImagePixels. Throws
/// std::runtime_error saying what was expected and what came: "not a PNG or JPEG (...)",
/// "declares no size (...)", "declares 63224x16393 pixels, more than ...", "the decoder refused it: ...", "cannot be decoded (truncated or corrupt)". The result is
/// never empty.
cv::Mat decodeImage(const std::vector<unsigned char>& bytes, int flags);

}  // namespace eacu
