// Conversion of OCR results to Lua.
#pragma once
extern "C" {
#include <lua.h>
}

#include "vision/ocr/OcrResult.h"

namespace eacu {

/// Pushes {text = all lines joined by "\n", ms, langs, lines = {{text, x, y, w, h,
/// confidence, words = {{text, x, y, w, h, confidence}, ...}}, ...}}; boxes in physical
/// pixels of the frame, confidences in 0..1.
void luax_pushocr(lua_State* L, const OcrResult& r);

}  // namespace eacu
