// Text recognition with Tesseract (libtesseract, LSTM models from Debian's tesseract-ocr-*).
#pragma once
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <opencv2/core.hpp>

#include "geometry/Rect.h"
#include "vision/ocr/OcrResult.h"

namespace eacu {

/// How an OcrEngine reads a frame.
/// - `threads`: Tesseract instances run in parallel on horizontal bands of the frame
///   (0 = one per CPU core, at most 4).
/// - `upscale`: fixed enlargement before recognition; 0 = chosen from the estimated text
///   height so that glyphs are about `target_text_height` pixels high (never below 1, at most
///   `max_upscale`, and at most what keeps the enlarged image within ~40 megapixels), in
///   quarter steps. 22 px glyphs (x-height ~16 px) is where Tesseract's
///   LSTM models read screen text reliably; smaller text loses strokes when binarised.
/// - `page_seg_mode`: Tesseract's page segmentation mode (11 = sparse text, good for UIs;
///   3 = automatic page layout).
/// - `variables`: Tesseract parameters (name, value), set after loading the models. The
///   default picks Sauvola's adaptive binarisation (thresholding_method 2): with Tesseract's
///   global Otsu threshold, small anti-aliased CJK glyphs fall apart into strokes.
/// - `proposals`: after the page pass, text-like blobs found in the image (textProposals:
///   widget labels, one- and two-character words, labels beside icons, light text on dark)
///   that words read with a confidence of at least `proposal_covered_confidence` do not
///   cover (half of the proposal's area) are read one by one in Tesseract's single-line mode (PSM 7,
///   polarity and contrast normalised); a line kept needs a mean word confidence of at least
///   `proposal_min_confidence` (0..1).
struct OcrOptions {
    int threads = 0;
    double upscale = 0;
    double target_text_height = 22;
    double max_upscale = 4;
    int page_seg_mode = 11;
    bool proposals = true;
    double proposal_min_confidence = 0.4;
    double proposal_covered_confidence = 0.8;
    std::vector<std::pair<std::string, std::string>> variables{{"thresholding_method", "2"}};
};

/// A set of Tesseract engines for one language set, kept alive between calls (loading the
/// models takes ~0.1-0.5 s). recognize() is thread-safe (calls are serialised per engine).
class OcrEngine {
public:
    /// Creates the engines for `langs` ("eng", "chi_sim", "eng+chi_sim": Tesseract names
    /// joined by '+'). Throws std::runtime_error naming the language, the folder searched and
    /// the Debian package to install (e.g. tesseract-ocr-chi-sim) when a model is missing, or
    /// when Tesseract fails to load it.
    explicit OcrEngine(const std::string& langs = "eng+chi_sim", OcrOptions options = {});
    ~OcrEngine();
    OcrEngine(const OcrEngine&) = delete;
    OcrEngine& operator=(const OcrEngine&) = delete;

    /// The process-wide engine for `langs`, created on first use and kept until exit.
    /// Throws as the constructor does.
    static OcrEngine& shared(const std::string& langs = "eng+chi_sim");
    /// The process-wide engine for `langs` set up with `options` under the name `variant`
    /// (e.g. "line/otsu"): one engine per (langs, variant), made with the options given on
    /// first use. Throws as the constructor does.
    static OcrEngine& shared(const std::string& langs, const std::string& variant, const OcrOptions& options);

    /// Reads the text of `bgr` (8-bit BGR, BGRA or grey; physical pixels), or only of `region`
    /// (clipped to the image). Boxes in the result are in pixels of `bgr` (region offset
    /// added back). Small text is enlarged first (see OcrOptions). An empty image or region
    /// gives an empty result. Throws std::invalid_argument for an unsupported pixel type and
    /// std::runtime_error if Tesseract fails.
    OcrResult recognize(const cv::Mat& bgr, std::optional<Rect> region = {});

    const std::string& langs() const { return langs_; }
    const OcrOptions& options() const { return options_; }

    /// The language set a phrase needs: "eng+chi_sim" when it holds CJK characters
    /// (ideographs, kana, hangul, CJK or fullwidth punctuation), else "eng".
    static std::string langsFor(const std::string& phrase);
    /// Throws std::runtime_error unless every language of `langs` has its model
    /// (<lang>.traineddata) in the tessdata folder; the message names the missing language
    /// and the package that provides it.
    static void checkLanguages(const std::string& langs);
    /// The tessdata folder used: $TESSDATA_PREFIX if set, else the first existing of
    /// /usr/share/tesseract-ocr/5/tessdata, /usr/share/tesseract-ocr/4.00/tessdata,
    /// /usr/share/tessdata.
    static std::string tessdataDir();
    /// The median height in pixels of glyph-like shapes (connected edge components) of a
    /// grey image; 0 when there are too few of them to tell.
    static double estimateTextHeight(const cv::Mat& grey);

private:
    struct Worker;
    /// The proposal pass (see OcrOptions::proposals) on `grey`, the image read, whose pixel
    /// (0,0) is `offset` in the frame; adds the lines read to `result`. Caller holds mutex_.
    void readProposals(const cv::Mat& grey, Point offset, OcrResult& result);
    std::string langs_;
    OcrOptions options_;
    std::vector<std::unique_ptr<Worker>> workers_;
    std::mutex mutex_;
};

}  // namespace eacu
