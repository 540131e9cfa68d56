// OCR results cached per frame content, so that finding a second phrase on a frame already
// read costs a fingerprint and a lookup, not a recognition.
#pragma once
#include <cstdint>
#include <list>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include <opencv2/core.hpp>

#include "geometry/Rect.h"
#include "vision/ocr/OcrResult.h"

namespace eacu {

/// A small LRU cache of OCR results keyed by (frame content fingerprint, region, languages).
/// Thread-safe. Results are shared and immutable: two lookups of the same frame return the
/// same object.
class OcrCache {
public:
    /// Keeps the results of the `capacity` most recently used (frame, region, langs).
    explicit OcrCache(size_t capacity = 8);

    /// The process-wide cache.
    static OcrCache& shared();

    /// The result for `bgr` (and `region`, `langs`): from the cache, or recognised now by
    /// OcrEngine::shared(langs) and stored. `hit`, when given, tells which. Costs about 1 ms
    /// per 10 MB of pixels on a hit (the fingerprint). Throws as OcrEngine::recognize and
    /// OcrEngine::shared do.
    std::shared_ptr<const OcrResult> get(const cv::Mat& bgr, std::optional<Rect> region = {},
                                         const std::string& langs = "eng+chi_sim", bool* hit = nullptr);

    /// The cached result for this key, or nullptr; never recognises.
    std::shared_ptr<const OcrResult> find(const cv::Mat& bgr, std::optional<Rect> region = {},
                                          const std::string& langs = "eng+chi_sim");

    /// Stores `result` under this key (replacing any), evicting the least recently used.
    void put(const cv::Mat& bgr, std::optional<Rect> region, const std::string& langs,
             std::shared_ptr<const OcrResult> result);

    void clear();
    size_t size() const;
    size_t capacity() const { return capacity_; }

    /// A 64-bit fingerprint of every pixel of `img` and its size and type (not of where it is
    /// stored): equal images give equal fingerprints; any changed byte changes it (with
    /// probability ~1 - 2^-64).
    static uint64_t fingerprint(const cv::Mat& img);

private:
    struct Entry {
        uint64_t key;
        std::shared_ptr<const OcrResult> result;
    };
    static uint64_t key(const cv::Mat& bgr, std::optional<Rect> region, const std::string& langs);
    std::shared_ptr<const OcrResult> lookup(uint64_t key);
    void store(uint64_t key, std::shared_ptr<const OcrResult> result);

    size_t capacity_;
    mutable std::mutex mutex_;
    std::list<Entry> entries_;  // most recently used first
};

}  // namespace eacu
