// A locate/OCR benchmark corpus in the format of tests/corpus/locate-v1 (see its README).
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "geometry/Rect.h"

namespace eacu {

/// One case of cases.json. `kind` is "positive", "negative" or "text"; paths are absolute.
/// `expect` is the true box (physical pixels of the screenshot), absent for negatives;
/// `also` (text cases) the phrase's other occurrences on the screenshot, each as good a hit;
/// `scale` is how large the template appears (never given to the locator); `toolkit` (widget
/// corpus: "gtk3", "gtk2", "tk", "xaw") the toolkit that drew the label, "" when not given.
struct CorpusCase {
    std::string kind;
    std::string screenshot;
    std::string tmpl;  // template image (image cases)
    std::string text;  // phrase (text cases)
    std::optional<Rect> expect;
    std::vector<Rect> also;
    double scale = 1.0;
    std::string toolkit;
};

/// Reads `dir`/cases.json. Throws std::runtime_error naming the file and the case for a
/// missing file, malformed JSON, a case without the fields its kind needs or a malformed box.
std::vector<CorpusCase> loadCorpus(const std::string& dir);

/// True when the centre of `found` lies inside `expect` (the corpus's definition of a hit).
bool isHit(const Rect& found, const Rect& expect);

/// True when the centre of `found` lies inside the case's `expect` or one of its `also` boxes.
bool isHit(const Rect& found, const CorpusCase& c);

/// Median and 90th percentile of `v` (0 for an empty list).
struct Percentiles {
    double median = 0, p90 = 0;
};
Percentiles percentiles(std::vector<double> v);

}  // namespace eacu
