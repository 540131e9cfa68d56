// A frame prepared for repeated searches: greyscale and downsampled copies, made once.
#pragma once
#include <atomic>
#include <map>
#include <mutex>

#include <opencv2/core.hpp>

namespace eacu {

/// Whether `factor` is a whole number > 1 (2, 3, 4, ...): PreparedFrame's level for it is an
/// exact block average, level pixel (i, j) the mean of the factor x factor block at
/// (i factor, j factor), the frame extended by replicating its last row and column.
bool isWholeLevel(double factor);

/// Holds a BGR frame (CV_8UC3, physical pixels) and lazily computed derivatives that several
/// locates on the same frame share: the greyscale image and greyscale copies downsampled by a
/// factor (INTER_AREA). Thread-safe: search threads may ask for levels concurrently.
class PreparedFrame {
public:
    explicit PreparedFrame(cv::Mat bgr);

    const cv::Mat& bgr() const { return bgr_; }
    /// The greyscale frame (CV_8UC1), computed once.
    const cv::Mat& grey() const;
    /// The greyscale pixels of `roi` (inside the frame): a view into grey() once that exists,
    /// else converted for the region alone (a small search need not convert the whole frame).
    cv::Mat greyRegion(const cv::Rect& roi) const;
    /// The greyscale frame downsampled by `factor` (>= 1; 1 returns grey()), cached by factor:
    /// for a whole factor (isWholeLevel) ceil(size / factor) exact block averages, else
    /// round(size / factor) by area averaging.
    /// The returned reference stays valid for the life of the PreparedFrame.
    const cv::Mat& downsampled(double factor) const;
    /// downsampled(factor) (factor > 1) blurred by a Gaussian of `sigma` of its pixels
    /// (borders replicated), cached by factor and sigma; valid for the life of the frame.
    const cv::Mat& softened(double factor, double sigma) const;
    /// The chroma planes (vision/ColourAgreement chromaPlanes, blurred by 0.5 px) of the frame
    /// downsampled so that its longer side is at most 640 px, made once, for quick colour checks
    /// of coarse candidates; `factor` receives the downsampling factor (>= 1).
    const cv::Mat& chromaOverview(double* factor) const;

private:
    cv::Mat bgr_;
    mutable cv::Mat grey_;
    mutable std::once_flag grey_once_;
    mutable std::atomic<bool> grey_ready_{false};
    mutable std::map<double, cv::Mat> levels_;
    mutable std::map<std::pair<double, double>, cv::Mat> softened_;
    mutable cv::Mat chroma_overview_;
    mutable double chroma_factor_ = 1.0;
    mutable std::once_flag chroma_once_;
    mutable std::mutex mutex_;
};

}  // namespace eacu
