// Whether two same-sized images have the same colours where they have colour.
#pragma once
#include <opencv2/core.hpp>

namespace eacu {

/// Chroma agreement of `a` and `b` (same size, CV_8UC3 BGR), in (-1, 1]: 1 when their colours
/// agree, near 0 when one is coloured where the other is grey (blue link text against black
/// body text of the same shape), negative for opposite hues.
///
/// Both images are converted to CIE L*a*b* and only the chroma (a*, b*) is compared, after a
/// Gaussian blur of `blur_sigma` pixels, so antialiasing and sub-pixel placement count little
/// and lightness, which the grey correlation already judges, not at all. The measure has the
/// form of SSIM's luminance term (Wang et al., "Image quality assessment: from error
/// visibility to structural similarity", IEEE TIP 2004) applied to the chroma vectors without
/// removing their means, so absolute colour counts:
///   (2 Σ ca·cb + N c0²) / (Σ|ca|² + Σ|cb|² + N c0²)
/// where the sums run over the N pixels (only the non-zero ones of `mask`, CV_8U, when given)
/// and `c0` (ΔE units, default 5: about twice CIE76's just-noticeable difference) keeps two
/// greys, whose chroma is noise, in agreement.
/// Throws std::invalid_argument when the sizes or types differ.
double chromaAgreement(const cv::Mat& a, const cv::Mat& b, const cv::Mat& mask = cv::Mat(),
                       double blur_sigma = 1.0, double c0 = 5.0);

/// The chroma planes chromaAgreement compares: CIE 1976 a*, b* of a BGR image (CV_8UC3, sRGB,
/// D65 white) as CV_32FC2 (ΔE units), Gaussian-blurred by `blur_sigma` pixels (none when 0).
/// Computed here (within 0.5 of OpenCV's cvtColor, whose Lab tables take ~90 ms to set up on
/// first use). Throws std::invalid_argument for another image type.
cv::Mat chromaPlanes(const cv::Mat& bgr, double blur_sigma);

/// chromaAgreement on planes made by chromaPlanes (same size, CV_32FC2), for callers that
/// compare many patches of one prepared image. Throws std::invalid_argument on other shapes.
double chromaAgreementOfPlanes(const cv::Mat& ca, const cv::Mat& cb, const cv::Mat& mask = cv::Mat(),
                               double c0 = 5.0);

}  // namespace eacu
