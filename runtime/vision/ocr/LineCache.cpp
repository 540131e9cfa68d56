#include "vision/ocr/LineCache.h"

namespace eacu {

LineCache::LineCache(size_t capacity) : capacity_(capacity == 0 ? 1 : capacity) {}

bool LineCache::find(uint64_t key, std::optional<OcrLine>* line) {
    std::lock_guard lock(mutex_);
    auto it = index_.find(key);
    if (it == index_.end()) return false;
    entries_.splice(entries_.begin(), entries_, it->second);
    *line = it->second->line;
    return true;
}

void LineCache::put(uint64_t key, std::optional<OcrLine> line) {
    std::lock_guard lock(mutex_);
    if (auto it = index_.find(key); it != index_.end()) {
        it->second->line = std::move(line);
        entries_.splice(entries_.begin(), entries_, it->second);
        return;
    }
    entries_.push_front(Entry{key, std::move(line)});
    index_[key] = entries_.begin();
    while (entries_.size() > capacity_) {
        index_.erase(entries_.back().key);
        entries_.pop_back();
    }
}

size_t LineCache::size() const {
    std::lock_guard lock(mutex_);
    return entries_.size();
}

void LineCache::clear() {
    std::lock_guard lock(mutex_);
    entries_.clear();
    index_.clear();
}

}  // namespace eacu
