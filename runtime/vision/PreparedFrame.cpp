#include "vision/PreparedFrame.h"

#include <cmath>

#include <opencv2/imgproc.hpp>

#include "vision/ColourAgreement.h"

namespace eacu {

PreparedFrame::PreparedFrame(cv::Mat bgr) : bgr_(std::move(bgr)) {}

const cv::Mat& PreparedFrame::grey() const {
    std::call_once(grey_once_, [this] {
        cv::cvtColor(bgr_, grey_, cv::COLOR_BGR2GRAY);
        grey_ready_.store(true);
    });
    return grey_;
}

cv::Mat PreparedFrame::greyRegion(const cv::Rect& roi) const {
    if (grey_ready_.load()) return grey_(roi);
    cv::Mat out;
    cv::cvtColor(bgr_(roi), out, cv::COLOR_BGR2GRAY);
    return out;
}

bool isWholeLevel(double factor) { return factor > 1.0 && factor == std::floor(factor); }

namespace {

// The size of an image of `size` downsampled by `factor`: whole blocks (the last partial one
// counted) for a whole factor, else rounded.
cv::Size levelSize(cv::Size size, double factor) {
    if (isWholeLevel(factor)) {
        const int f = int(factor);
        return {(size.width + f - 1) / f, (size.height + f - 1) / f};
    }
    return {std::max(1, int(std::lround(size.width / factor))), std::max(1, int(std::lround(size.height / factor)))};
}

// `src` area-averaged (INTER_AREA) to levelSize(src, factor). For a whole factor the image is
// first extended (its last row and column replicated) to whole blocks, so that level pixel
// (i, j) is the mean of the f x f block at (i f, j f): a template reduced on the same grid
// (LocatorSearch's at()) then meets it without a fraction of a block between them.
cv::Mat shrink(const cv::Mat& src, double factor) {
    const cv::Size size = levelSize(src.size(), factor);
    const cv::Mat* from = &src;
    cv::Mat padded;
    if (isWholeLevel(factor)) {
        const int f = int(factor);
        if (size.width * f != src.cols || size.height * f != src.rows) {
            cv::copyMakeBorder(src, padded, 0, size.height * f - src.rows, 0, size.width * f - src.cols,
                               cv::BORDER_REPLICATE);
            from = &padded;
        }
    }
    cv::Mat out;
    cv::resize(*from, out, size, 0, 0, cv::INTER_AREA);
    return out;
}

}  // namespace

const cv::Mat& PreparedFrame::downsampled(double factor) const {
    if (factor <= 1.0) return grey();
    const cv::Mat* source = &grey();
    double by = factor;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        auto it = levels_.find(factor);
        if (it != levels_.end()) return it->second;
        // A level twice as coarse as one already made (2.5 of 1.25, 8 of 4) is halved from it
        // when that gives its size exactly, or both are whole factors (their blocks on one
        // grid, the half level extended to whole blocks as the frame is): area averaging by
        // two takes OpenCV's fast path, where a fractional factor over the whole frame costs
        // ~4 ms for a 1440p frame.
        const cv::Size size = levelSize(bgr_.size(), factor);
        if (auto h = levels_.find(factor / 2);
            h != levels_.end() &&
            (isWholeLevel(factor) ? isWholeLevel(factor / 2)
                                  : h->second.cols == 2 * size.width && h->second.rows == 2 * size.height)) {
            source = &h->second;
            by = 2.0;
        }
    }
    // Resized outside the lock so that search threads needing other levels run in parallel;
    // if two threads make the same level, the first one stored is kept.
    cv::Mat out = shrink(*source, by);
    std::lock_guard<std::mutex> lock(mutex_);
    return levels_.emplace(factor, std::move(out)).first->second;
}

const cv::Mat& PreparedFrame::softened(double factor, double sigma) const {
    const cv::Mat& level = downsampled(factor);
    const auto key = std::make_pair(factor, sigma);
    {
        std::lock_guard<std::mutex> lock(mutex_);
        auto it = softened_.find(key);
        if (it != softened_.end()) return it->second;
    }
    cv::Mat out;
    cv::GaussianBlur(level, out, {0, 0}, sigma, sigma, cv::BORDER_REPLICATE);
    std::lock_guard<std::mutex> lock(mutex_);
    return softened_.emplace(key, std::move(out)).first->second;
}

const cv::Mat& PreparedFrame::chromaOverview(double* factor) const {
    std::call_once(chroma_once_, [this] {
        chroma_factor_ = std::max(1.0, std::max(bgr_.cols, bgr_.rows) / 640.0);
        chroma_overview_ = chromaPlanes(chroma_factor_ > 1.0 ? shrink(bgr_, chroma_factor_) : bgr_, 0.5);
    });
    if (factor) *factor = chroma_factor_;
    return chroma_overview_;
}

}  // namespace eacu
