// Lines of text already read, keyed by the content of the patch they were read from, so that
// a frame that differs from an earlier one in a few places has only those places read again.
#pragma once
#include <cstdint>
#include <list>
#include <mutex>
#include <optional>
#include <unordered_map>

#include "vision/ocr/OcrResult.h"

namespace eacu {

/// A thread-safe LRU map from a patch key (see OcrEngine: the fingerprint of the cut a line is
/// read from and how it is read) to what was read there: a line whose boxes are relative to
/// the cut's top-left corner, or nothing (a patch that read as no text is remembered too).
class LineCache {
public:
    /// Keeps the `capacity` most recently used patches (a 1080p page has ~100-200 lines).
    explicit LineCache(size_t capacity = 4096);

    /// Whether `key` is cached; if so `*line` is set to what was read (relative boxes).
    bool find(uint64_t key, std::optional<OcrLine>* line);
    /// Stores what was read for `key` (relative boxes), evicting the least recently used.
    void put(uint64_t key, std::optional<OcrLine> line);

    size_t size() const;
    void clear();

private:
    struct Entry {
        uint64_t key;
        std::optional<OcrLine> line;
    };
    size_t capacity_;
    mutable std::mutex mutex_;
    std::list<Entry> entries_;  // most recently used first
    std::unordered_map<uint64_t, std::list<Entry>::iterator> index_;
};

}  // namespace eacu
