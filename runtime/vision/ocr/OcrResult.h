// What OCR read from a frame: lines of words, with boxes in physical pixels of the frame.
#pragma once
#include <string>
#include <vector>

#include "geometry/Rect.h"

namespace eacu {

/// One recognised word. `text` is UTF-8 (one CJK character or a run of them for Chinese);
/// `box` is in physical pixels of the whole frame (not of the region searched);
/// `confidence` is the recogniser's confidence in 0..1.
struct OcrWord {
    std::string text;
    Rect box;
    float confidence = 0;
};

/// One line of text, in reading order of its words. `text` is the line as the recogniser
/// spelled it (UTF-8, words separated by spaces where it saw them); `box` bounds its words.
struct OcrLine {
    std::string text;
    Rect box;
    float confidence = 0;
    std::vector<OcrWord> words;
};

/// Everything read from one frame (or one region of it), lines top to bottom.
/// - `ms`: wall time of the recognition in milliseconds.
/// - `upscale`: the factor the image was enlarged by before recognition (1 = none).
/// - `text_height`: the estimated median glyph height in the frame, physical pixels
///   (0 when no text-like shapes were seen).
/// - `langs`: the Tesseract language set used, e.g. "eng+chi_sim".
/// - `lines_read`, `lines_reused`: text patches (page lines and text proposals) recognised
///   now, and taken from what was read before (same pixels).
/// - `laid_out`: the fraction (0..1) of the image whose layout was analysed now (1 for a
///   new frame; less for a frame that differs from the one read before in a few places).
struct OcrResult {
    std::vector<OcrLine> lines;
    double ms = 0;
    int lines_read = 0;
    int lines_reused = 0;
    double laid_out = 0;
    double upscale = 1;
    double text_height = 0;
    std::string langs;
};

}  // namespace eacu
