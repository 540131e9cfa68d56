// A raw `screencap` (AOSP frameworks/base/cmds/screencap/screencap.cpp) read as a frame.
#pragma once
#include <string>

#include "base/Frame.h"

namespace eacu {

/// A raw `screencap` (no -p) as a BGR frame: u32 LE width, height and pixel format, on newer
/// Androids a u32 colour space (a 12- or 16-byte header, told apart by the byte count), then
/// width × height RGBA_8888 (format 1) or RGBX_8888 (2) pixels. An empty frame when the bytes are
/// not that (another pixel format, sides of 0 or over 16384, too few or too many bytes).
Frame decodeRawScreencap(const std::string& bytes);

}  // namespace eacu
