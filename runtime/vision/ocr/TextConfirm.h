// A check that a match of a template showing words shows the same words.
#pragma once
#include <string>

#include <opencv2/core.hpp>

#include "geometry/Rect.h"
#include "vision/Template.h"

namespace eacu {

/// What the text confirm found. `judged` is false when it could not tell (the template shows
/// no legible words, or the words at the match are not legible): the pixel match then stands.
/// Otherwise `agrees` tells whether the words at the match are the template's words: they
/// contain them (containmentSimilarity >= the options' min_similarity) and are not much
/// longer (`coverage`, the template's characters over theirs, >= min_coverage), so "os" is
/// not found inside "Glossary". The readings are given for diagnostics.
struct TextVerdict {
    bool judged = false;
    bool agrees = true;
    bool template_legible = false;  // the template shows words read the same both ways
    std::string template_text;
    std::string frame_text;
    double template_confidence = 0;  // lowest word confidence of each reading, 0..1
    double frame_confidence = 0;
    double similarity = 1.0;
    double coverage = 1.0;
    double ms = 0;
};

/// Settings: `min_confidence` is the least OCR word confidence (0..1, Tesseract's own) a
/// reading needs on both sides before it may overrule a pixel match; `min_similarity` the
/// least containment similarity that counts as the same words (0.7: one wrong letter in
/// four already fails, so "next" is not "index" and "os" is not "as"); `min_coverage` the
/// least share of the words at the match the template's words must make up (a third: a
/// label, or two words a layout ran together as in "interfacesprevious", not a syllable of a
/// longer word such as the "os" of "Glossary"); `min_text_height` the match height (pixels)
/// from which text is expected to be legible, so that seeing no words at all there counts
/// against the match; `glyph_height` the height (pixels) the text is enlarged to before
/// recognition (LSTM models read screen text reliably from about 22-32 px).
struct TextConfirmOptions {
    double min_confidence = 0.5;
    double min_similarity = 0.7;
    double min_coverage = 1.0 / 3;
    int min_text_height = 8;
    double glyph_height = 32;
};

/// Reads the template once (cached by its pixels) and the frame around `box` (physical pixels;
/// the box grown by four times its height on the left and right, so the words it touches are
/// read whole, and a third of it above and below), each as one line by Tesseract (page
/// segmentation mode 7) in two ways: Sauvola's binarisation at `glyph_height`, and Otsu's at
/// three quarters of it. The template shows legible words only when both its readings are
/// confident, agree and hold at least two letters or digits (OCR reads a single glyph into an
/// icon); the match is vetoed only when both readings of the frame miss them.
/// English is read unless the template reads as Chinese (then eng+chi_sim). Thread-safe.
/// Throws std::runtime_error when Tesseract or its models are missing.
TextVerdict confirmText(const cv::Mat& frame_bgr, const Template& tpl, const Rect& box,
                        const TextConfirmOptions& options = {});

}  // namespace eacu
