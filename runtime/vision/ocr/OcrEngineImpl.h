// OcrEngine's pieces shared by its files: set-up (OcrEngine.cpp), the page image
// (OcrPageImage.cpp), one Tesseract instance's readings (OcrTesseract.cpp) and recognize()
// (OcrRecognize.cpp). Internal to ocr/.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include <opencv2/core.hpp>
#include <tesseract/baseapi.h>

#include "geometry/Rect.h"
#include "vision/ocr/OcrEngine.h"
#include "vision/ocr/OcrResult.h"

namespace eacu {

struct OcrEngine::Worker {
    tesseract::TessBaseAPI api;
};

namespace ocr_detail {

// ---- set-up (OcrEngine.cpp) ----
/// The languages of a set joined by '+' ("eng+chi_sim" -> eng, chi_sim).
std::vector<std::string> splitLangs(const std::string& langs);

// ---- the page image (OcrPageImage.cpp) ----
/// `img` (8-bit grey, BGR or BGRA) as grey; throws std::invalid_argument for another type.
cv::Mat toGrey(const cv::Mat& img);
/// Rows where a horizontal band may be cut: the row with the least horizontal detail
/// (sum of |dI/dx|) within `window` rows of each wanted cut.
std::vector<int> bandCuts(const cv::Mat& grey, int bands);
/// `grey` with its dark bands inverted, so that the layout analysis, which looks for dark text
/// on a light page, also finds light text on a dark band (a selected item, a highlighted menu
/// entry, a dark button or header). A dark area is where the median of ~20x20 px windows is
/// under 100 of 255 (on a quarter-size copy: 5x5 windows); one at most 3 text heights tall
/// (at least 48 px) is inverted as the box of its rows and columns that are at least half
/// dark. Larger dark areas (a dark backdrop, a dark theme, a picture) are left as they are.
/// The image itself when nothing is inverted.
cv::Mat darkBackgroundInverted(const cv::Mat& grey, double text_height);
/// `grey` enlarged by `f` (bicubic), or itself (continuous) when f is 1.
cv::Mat enlarge(const cv::Mat& grey, double f);
/// A box of an image enlarged by `f` in pixels of the image, moved by `offset`.
Rect unscale(const Rect& r, double f, Point offset);

// ---- one Tesseract instance (OcrTesseract.cpp) ----
struct Band {
    int own0, own1;  // rows owned (a line belongs to the band holding its centre)
    int y0, y1;      // rows given to Tesseract (owned rows plus overlap)
};
/// Reads one band with one Tesseract instance; boxes in pixels of the enlarged image.
std::vector<OcrLine> readBand(tesseract::TessBaseAPI& api, const cv::Mat& big, const Band& band, int ppi);
/// Reads the line or proposal in box `r` of `grey` (cut and normalised by prepareLine,
/// `line_height` px high) in page segmentation `mode` (single line for a page's line; single
/// line or sparse text for a proposal), all words as one line; boxes in pixels of `grey`.
/// Empty when nothing was read or the words' mean confidence is under `min_confidence`.
/// `erase_frames` as prepareLine's (a proposal's frame; never in a page's line).
std::optional<OcrLine> readLine(tesseract::TessBaseAPI& api, const cv::Mat& grey, const Rect& r, double line_height,
                                double min_confidence, tesseract::PageSegMode mode, bool erase_frames);
/// Text line boxes found by Tesseract's layout analysis (in the engine's page segmentation
/// mode) in `roi` of `big`, in pixels of `big`; only lines whose centre row is in
/// [own0, own1) (a line cut by one band is whole in the next).
std::vector<Rect> layoutLines(tesseract::TessBaseAPI& api, const cv::Mat& big, const Rect& roi, int own0, int own1,
                              int ppi);

}  // namespace ocr_detail

}  // namespace eacu
