// Finding a phrase in OCR output: exact or fuzzy, folding case, width (CJK) and punctuation.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "geometry/Rect.h"
#include "vision/ocr/OcrResult.h"

namespace eacu {

/// How findText compares.
/// - `threshold`: the least similarity (0..1) a match needs; 1 = exact after folding.
/// - `case_sensitive`: false folds case (ASCII, Latin-1, Greek, Cyrillic).
/// - `max_results`: at most this many matches are returned (best first).
struct TextFindOptions {
    double threshold = 0.8;
    bool case_sensitive = false;
    size_t max_results = 10;
};

/// One place where the phrase was read.
/// - `box`: union of the matched words, physical pixels of the frame; when the phrase is only
///   part of a word (e.g. CJK text read without spaces) the box is narrowed to that part,
///   in proportion to the characters matched.
/// - `text`: the matched words as OCR spelled them (UTF-8).
/// - `score`: similarity in 0..1 of the folded phrase and the folded text matched
///   (1 - edit distance / phrase length); raw, never rescaled.
/// - `confidence`: the lowest OCR confidence (0..1) of the matched words.
/// - `line`, `first_word`: where the match starts (indices into the OcrResult);
///   `end_line`, `last_word`: where it ends. `end_line` differs from `line` when the phrase
///   continues in the line read beside it on the same row or wraps onto the next line (the
///   box then bounds both parts).
/// - `whole_words`: the match starts and ends on word boundaries.
struct TextMatch {
    Rect box;
    std::string text;
    double score = 0;
    float confidence = 0;
    int line = -1;
    int first_word = -1;
    int end_line = -1;
    int last_word = -1;
    bool whole_words = false;
};

/// Every place in `ocr` where `phrase` (UTF-8) is read with similarity >= options.threshold,
/// best first: by score, then whole-word matches, then exact case, then a match within one
/// line before a phrase wrapped onto the next line, then labels standing on their own
/// (separated from the rest of the line by punctuation such as "|", a wide gap, a list
/// bullet, or the line's ends) before words inside running text, then reading order; except
/// that among the first equally ranked, a clearly larger rendering (over 10 % wider per
/// character, e.g. a heading) goes first. Phrase and text are compared after folding (see
/// foldText); a phrase may span several words of one line, continue in the line read beside
/// it on the same row (at most one text height away), wrap onto the next line, or be part of
/// a word. Throws std::invalid_argument for an empty phrase (after folding) or
/// invalid UTF-8.
std::vector<TextMatch> findText(const OcrResult& ocr, const std::string& phrase,
                                const TextFindOptions& options = {});

/// The folded form text is compared in: UTF-8 decoded to code points; fullwidth ASCII
/// (U+FF01..U+FF5E) and the ideographic space mapped to ASCII; case folded unless
/// `case_sensitive`; whitespace dropped; punctuation and symbols (ASCII, Latin-1, general,
/// CJK, fullwidth, arrows, bullets) dropped unless `keep_punct`. A phrase of punctuation only
/// is compared with punctuation kept. Throws std::invalid_argument on invalid UTF-8.
std::u32string foldText(std::string_view utf8, bool case_sensitive = false, bool keep_punct = false);

/// Similarity in 0..1 of two strings after folding: 1 - Levenshtein distance / longer length
/// (1 for two empty strings).
double textSimilarity(std::string_view a, std::string_view b, bool case_sensitive = false);

/// How well `needle` appears inside `haystack` (both folded), in 0..1: 1 - (the least
/// Levenshtein distance from the needle to any substring of the haystack, Sellers' approximate
/// substring search) / the needle's length. 1 when it appears exactly ("os" in "Glossary") or
/// the needle folds to nothing; 0.5 for "next" in "index" or in "ex".
double containmentSimilarity(std::string_view needle, std::string_view haystack, bool case_sensitive = false);

}  // namespace eacu
