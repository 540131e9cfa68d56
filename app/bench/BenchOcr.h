// eacu bench ocr: the OCR text cases of a locate corpus (see bench/Corpus.h), blind.
#pragma once
#include <string>

namespace eacu {

/// Runs every "text" case of `corpus_dir`/cases.json in order: reads the screenshot through
/// an OcrCache (OCR once per frame and language set; `langs` "auto" = OcrEngine::langsFor
/// the phrase, i.e. "eng" unless it holds CJK, else a Tesseract set such as "eng+chi_sim") and finds the phrase with
/// findText (default options). Writes one JSON line per case to `out_path` unless empty:
/// {"found", "x", "y", "w", "h", "score", "confidence", "text", "ms", "lookup_ms", "hit"}
/// where ms is the frame's OCR time (0 when it was already recognised) and lookup_ms the time
/// of a cached lookup plus the phrase search. Prints per scale (the case's scale, for
/// reporting only) hit rate, median and p90 of OCR ms and lookup ms, then totals.
/// Returns 0 when done (whatever the hit rate), 1 on an error (printed to stderr).
int benchOcr(const std::string& corpus_dir, const std::string& out_path, const std::string& langs = "auto");

}  // namespace eacu
