#include "vision/ocr/OcrCache.h"

#include <cstring>
#include <functional>

#include "vision/ocr/OcrEngine.h"

namespace eacu {

namespace {

constexpr uint64_t kMul = 0x9E3779B97F4A7C15ull;

inline uint64_t mix(uint64_t h, uint64_t v) {
    h ^= v + kMul + (h << 6) + (h >> 2);
    return h * 0xBF58476D1CE4E5B9ull;
}

/// Four independent lanes over 8-byte words, so the loop runs at memory speed.
uint64_t hashBytes(const uint8_t* p, size_t n, uint64_t seed) {
    uint64_t a = seed ^ 0x243F6A8885A308D3ull, b = seed ^ 0x13198A2E03707344ull, c = seed ^ 0xA4093822299F31D0ull,
             d = seed ^ 0x082EFA98EC4E6C89ull;
    size_t i = 0;
    for (; i + 32 <= n; i += 32) {
        uint64_t w[4];
        std::memcpy(w, p + i, 32);
        a = (a ^ w[0]) * kMul;
        b = (b ^ w[1]) * kMul;
        c = (c ^ w[2]) * kMul;
        d = (d ^ w[3]) * kMul;
        a ^= a >> 29;
        b ^= b >> 29;
        c ^= c >> 29;
        d ^= d >> 29;
    }
    uint64_t tail = 0;
    for (size_t k = 0; i < n; ++i, ++k) tail = mix(tail, p[i]);
    return mix(mix(mix(mix(mix(seed, a), b), c), d), tail ^ n);
}

}  // namespace

uint64_t OcrCache::fingerprint(const cv::Mat& img) {
    uint64_t h = mix(mix(mix(0x51ED270B27C3A1E5ull, uint64_t(img.rows)), uint64_t(img.cols)), uint64_t(img.type()));
    if (img.empty()) return h;
    // Row by row, so that a view into a larger image hashes like a copy of it.
    size_t row_bytes = size_t(img.cols) * img.elemSize();
    for (int y = 0; y < img.rows; ++y) h = hashBytes(img.ptr<uint8_t>(y), row_bytes, h);
    return h;
}

uint64_t OcrCache::key(const cv::Mat& bgr, std::optional<Rect> region, const std::string& langs) {
    uint64_t h = fingerprint(bgr);
    if (region) {
        h = mix(h, 1);
        h = mix(h, uint64_t(uint32_t(region->x)) | (uint64_t(uint32_t(region->y)) << 32));
        h = mix(h, uint64_t(uint32_t(region->w)) | (uint64_t(uint32_t(region->h)) << 32));
    }
    return mix(h, std::hash<std::string>{}(langs));
}

OcrCache::OcrCache(size_t capacity) : capacity_(std::max<size_t>(1, capacity)) {}

OcrCache& OcrCache::shared() {
    static OcrCache cache;
    return cache;
}

std::shared_ptr<const OcrResult> OcrCache::lookup(uint64_t k) {
    std::lock_guard lock(mutex_);
    for (auto it = entries_.begin(); it != entries_.end(); ++it)
        if (it->key == k) {
            entries_.splice(entries_.begin(), entries_, it);
            return entries_.front().result;
        }
    return nullptr;
}

void OcrCache::store(uint64_t k, std::shared_ptr<const OcrResult> result) {
    std::lock_guard lock(mutex_);
    for (auto it = entries_.begin(); it != entries_.end(); ++it)
        if (it->key == k) {
            entries_.erase(it);
            break;
        }
    entries_.push_front({k, std::move(result)});
    while (entries_.size() > capacity_) entries_.pop_back();
}

std::shared_ptr<const OcrResult> OcrCache::get(const cv::Mat& bgr, std::optional<Rect> region,
                                               const std::string& langs, bool* hit) {
    uint64_t k = key(bgr, region, langs);
    if (auto r = lookup(k)) {
        if (hit) *hit = true;
        return r;
    }
    if (hit) *hit = false;
    auto r = std::make_shared<const OcrResult>(OcrEngine::shared(langs).recognize(bgr, region));
    // Another thread may have stored the same frame meanwhile: keep the first, so every
    // caller sees one object.
    if (auto other = lookup(k)) return other;
    store(k, r);
    return r;
}

std::shared_ptr<const OcrResult> OcrCache::find(const cv::Mat& bgr, std::optional<Rect> region,
                                                const std::string& langs) {
    return lookup(key(bgr, region, langs));
}

void OcrCache::put(const cv::Mat& bgr, std::optional<Rect> region, const std::string& langs,
                   std::shared_ptr<const OcrResult> result) {
    store(key(bgr, region, langs), std::move(result));
}

void OcrCache::clear() {
    std::lock_guard lock(mutex_);
    entries_.clear();
}

size_t OcrCache::size() const {
    std::lock_guard lock(mutex_);
    return entries_.size();
}

}  // namespace eacu
