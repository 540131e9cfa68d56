// eacu bench locate: the image cases of a corpus, blind, with hit rate, false positives, times.
#pragma once
#include <string>

namespace eacu {

/// Runs every positive and negative case of `corpus_dir`/cases.json in order. The locator is
/// never given a case's scale or expected box; it may learn a device scale factor from its own
/// earlier hits on the same screenshot file (one file = one device), as a session learns the
/// scale of its screen, unless `learn_scale` is false. Writes one JSON line per case to
/// `out_path` (if not empty) and prints per scale: hit rate, false positives, median and p90 ms.
/// Returns 0, or 1 when the corpus cannot be read.
/// `threshold` (if > 0) replaces the default similarity threshold of the templates.
int benchLocate(const std::string& corpus_dir, const std::string& out_path, bool learn_scale,
                double threshold = 0);

}  // namespace eacu
