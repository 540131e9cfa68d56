// What OCR read on a frame, kept in a file beside it: a proof frame's lines read once when the
// frame is saved (eacu record, eacu script, the studio), not again at each heal (issue 34).
#pragma once
#include <optional>
#include <string>

#include "vision/ocr/OcrResult.h"

namespace eacu {

/// Writes the lines of `r` (text, box in physical pixels, confidence; not the words) and its
/// languages as JSON to `path`: {"langs": "eng+chi_sim", "lines": [{"text", "box": [x, y, w,
/// h], "confidence"}]}. Throws std::runtime_error when the file cannot be written.
void writeOcrLines(const std::string& path, const OcrResult& r);

/// The lines a file of writeOcrLines holds, when they were read with `langs`; nullopt when
/// there is no such file, it is not one, or it holds another language set (the frame is then
/// read again).
std::optional<OcrResult> readOcrLines(const std::string& path, const std::string& langs);

/// The file beside a saved frame that holds its lines: `shot.jpg` -> `shot.ocr.json`.
std::string ocrLinesPath(const std::string& frame_path);

}  // namespace eacu
