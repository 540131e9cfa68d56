// A raw `screencap` (AOSP frameworks/base/cmds/screencap/screencap.cpp) read as a frame.
#pragma once
#include <cstdint>
#include <string>

#include <opencv2/imgproc.hpp>

#include "base/Frame.h"
#include "device/adb/AdbProtocol.h"

namespace eacu {

/// A raw `screencap` (no -p) as a BGR frame: u32 LE width, height and pixel format, on newer
/// Androids a u32 colour space (a 12- or 16-byte header, told apart by the byte count), then
/// width × height RGBA_8888 (format 1) or RGBX_8888 (2) pixels. An empty frame when the bytes are
/// not that (another pixel format, sides of 0 or over 16384, too few or too many bytes).
inline Frame decodeRawScreencap(const std::string& bytes) {
    if (bytes.size() < 12) return {};
    uint32_t w = readLe32(bytes.data()), h = readLe32(bytes.data() + 4);
    uint32_t format = readLe32(bytes.data() + 8);
    uint64_t pixels = uint64_t(w) * h * 4;
    if (w == 0 || h == 0 || w > 16384 || h > 16384 || bytes.size() < pixels) return {};
    uint64_t header = bytes.size() - pixels;
    if ((header != 12 && header != 16) || (format != 1 && format != 2)) return {};  // RGBA_8888, RGBX_8888
    cv::Mat rgba(static_cast<int>(h), static_cast<int>(w), CV_8UC4, const_cast<char*>(bytes.data() + header));
    Frame f;
    cv::cvtColor(rgba, f.bgr, cv::COLOR_RGBA2BGR);
    return f;
}

}  // namespace eacu
