// Text recognition with Tesseract (libtesseract, LSTM models from Debian's tesseract-ocr-*).
#pragma once
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <opencv2/core.hpp>

#include "geometry/Rect.h"
#include "vision/ocr/LineCache.h"
#include "vision/ocr/OcrResult.h"

namespace tesseract {
class TessBaseAPI;
}

namespace eacu {

/// How an OcrEngine reads a frame.
/// - `threads`: Tesseract instances run in parallel on horizontal bands of the frame
///   (0 = one per CPU core, at most 4).
/// - `upscale`: fixed enlargement of the frame for the layout analysis; 0 = chosen from the
///   estimated text height so that glyphs are about `target_text_height` pixels high (never
///   below 1, at most `max_upscale`, and at most what keeps the enlarged image within ~40
///   megapixels), in quarter steps. 12 px is where Tesseract's layout analysis still finds
///   every line of screen text (measured on tests/corpus: 16 and 22 px found no more, at up
///   to 4x the cost); smaller text loses strokes when binarised. The lines themselves are read
///   from the frame at their own scale (`line_height`).
/// - `page_seg_mode`: Tesseract's page segmentation mode (11 = sparse text, good for UIs;
///   3 = automatic page layout). In a page mode (anything but 6, 7, 8, 10 and 13, which
///   read the whole image as one block, line, word or character) the frame is read in two
///   steps: Tesseract's layout analysis finds the text lines (on the frame enlarged as above,
///   in bands on parallel threads), then each line is cut out (lineCut), normalised
///   (prepareLine: `line_height` px high; 0 = 36 px, or 24 px for a language set with CJK
///   models, whose two-glyph lines enlarged 3x read as Latin letters: measured on a zenity
///   list) and read alone in single-line mode (PSM 7), the lines
///   spread over the threads. A line whose cut was read before (same pixels, by this engine)
///   is taken from the line cache (`line_cache` lines, LRU) instead; and a frame of the same
///   size as the one read before is laid out again only where it differs from it
///   (changedRegions: the changes and the lines they touch; text proposals likewise), every
///   line and proposal whose own pixels did not change kept as it was read.
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
    double target_text_height = 12;
    double max_upscale = 4;
    int page_seg_mode = 11;
    double line_height = 0;
    size_t line_cache = 4096;
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
    /// added back). Small text is enlarged first (see OcrOptions). Lines and places read
    /// before are reused (see OcrOptions::page_seg_mode). An empty image or region
    /// gives an empty result. Throws std::invalid_argument for an unsupported pixel type and
    /// std::runtime_error if Tesseract fails.
    OcrResult recognize(const cv::Mat& bgr, std::optional<Rect> region = {});

    /// Forgets the last page read, so that the next recognize() lays out the whole image
    /// (lines already read still come from the line cache).
    void forgetLastPage();
    /// Empties the line cache.
    void clearLineCache() { line_cache_.clear(); }

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
    /// The last page read: where (`area`, pixels of the frame), its grey pixels, its text
    /// height, the layout's scale, the text line boxes found and the lines its text proposals
    /// added (pixels of `grey`).
    struct LastPage {
        Rect area;
        cv::Mat grey;
        double text_height = 0;
        double upscale = 0;
        std::vector<Rect> lines;
        std::vector<OcrLine> proposals;
    };
    /// Where `grey` (the image of `area`) differs from last_ (changedRegions, grown by a text
    /// height): nullopt when last_ is another area or size, or when half the image or more
    /// changed (then everything is read). Caller holds mutex_.
    std::optional<std::vector<Rect>> changedSinceLast(const cv::Mat& grey, const Rect& area) const;
    /// Text line boxes (pixels of `grey`) found by the layout analysis on `grey` enlarged by
    /// `f`: all of it in bands, or only the `changed` regions, last_'s other lines kept.
    /// Caller holds mutex_.
    std::vector<Rect> findLines(const cv::Mat& grey, double f, const std::optional<std::vector<Rect>>& changed,
                                OcrResult& result);
    /// Reads every line of `lines` (pixels of `grey`) from the line cache or in single-line mode
    /// on the workers, adding what was read to `result` (boxes offset by `offset`). Caller
    /// holds mutex_.
    void readLines(const cv::Mat& grey, const std::vector<Rect>& lines, Point offset, OcrResult& result);
    /// What box i of `boxes` (pixels of `grey`) reads as: from the line cache when its patch
    /// (see lineCut) was read the same way (`how`) before, else read(engine, box) on the
    /// workers' Tesseract engines and stored. Lines in pixels of `grey`; counts into result.lines_read and
    /// lines_reused. Caller holds mutex_.
    std::vector<std::optional<OcrLine>> readPatches(
        const cv::Mat& grey, const std::vector<Rect>& boxes, uint64_t how,
        const std::function<std::optional<OcrLine>(tesseract::TessBaseAPI&, const Rect&)>& read, OcrResult& result);
    /// The proposal pass (see OcrOptions::proposals) on `grey`, the image read, whose pixel
    /// (0,0) is `offset` in the frame, or only in its `changed` regions (last_'s proposal
    /// lines kept elsewhere); adds the lines read to `result`. Caller holds mutex_.
    void readProposals(const cv::Mat& grey, Point offset, const std::optional<std::vector<Rect>>& changed,
                       OcrResult& result);
    std::string langs_;
    OcrOptions options_;
    std::vector<std::unique_ptr<Worker>> workers_;
    LineCache line_cache_;
    LastPage last_;
    std::mutex mutex_;
};

}  // namespace eacu
