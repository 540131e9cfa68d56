// A locate/OCR benchmark corpus in the format of ../shared/corpus/locate-v1 (see its README).
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "geometry/Rect.h"

namespace eacu {

/// One case of cases.json. `kind` is "positive", "negative" or "text"; paths are absolute.
/// `expect` is the true box (physical pixels of the screenshot), absent for negatives;
/// `scale` is how large the template appears (never given to the locator).
struct CorpusCase {
    std::string kind;
    std::string screenshot;
    std::string tmpl;  // template image (image cases)
    std::string text;  // phrase (text cases)
    std::optional<Rect> expect;
    double scale = 1.0;
};

/// Reads `dir`/cases.json. Throws std::runtime_error naming the file and the case for a
/// missing file, malformed JSON or a case without the fields its kind needs.
std::vector<CorpusCase> loadCorpus(const std::string& dir);

/// True when the centre of `found` lies inside `expect` (the corpus's definition of a hit).
bool isHit(const Rect& found, const Rect& expect);

/// Median and 90th percentile of `v` (0 for an empty list).
struct Percentiles {
    double median = 0, p90 = 0;
};
Percentiles percentiles(std::vector<double> v);

}  // namespace eacu
