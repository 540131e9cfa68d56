// The locator's search of one template variant in one frame (internal to the Locator files):
// the scaled-template cache, the coarse search (LocatorCoarse.cpp), the confirm and refine at
// a scale (LocatorSearch.cpp) and the confirm score at the lower resolution (LocatorScore.cpp).
#pragma once
#include <atomic>
#include <map>
#include <tuple>
#include <mutex>
#include <vector>

#include <opencv2/core.hpp>

#include "vision/Correlation.h"
#include "vision/Locator.h"
#include "vision/ocr/TextConfirm.h"

namespace eacu::locator {

// Downsampling factors of the coarse level; sharing a few levels lets scales reuse them.
inline constexpr double kLevels[] = {1.0, 1.25, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0, 8.0};

// Coarse peaks below this correlation are not worth confirming.
inline constexpr double kCoarseFloor = 0.2;

// At the coarse level a coloured template's peak is dropped when its colours clearly differ
// (chroma agreement below this: grey or black text where the template is a blue link scores
// about 0.1-0.2, the same colours about 0.9-1); the full-resolution confirm then applies the
// template's threshold. A template whose agreement with its own grey copy is below it counts
// as coloured.
inline constexpr double kCoarseColourFloor = 0.3;

// The coarse search of a small template on a large frame (its coarse level near full
// resolution) first correlates on a level reduced further, to under kPrepassPixels pixels
// while the template keeps a short side of kPrepassMinSide; only round the kPrepassPeaks best
// local maxima there is the coarse level correlated (matchTemplate's cost is per frame pixel,
// ~20 ns, whatever the template).
inline constexpr double kPrepassPixels = 600e3;
inline constexpr int kPrepassMinSide = 4;
inline constexpr int kPrepassPeaks = 256;

// On a reduced level the frame and the template are compared softened by this Gaussian
// (sigma, level pixels): on a level that is not whole (1.25, 1.5, 2.5) the frame's blocks fall
// a fraction of a block off the template's own, and on a whole one (at() reduces the template
// on the frame's grid) a candidate's place is known only to a fraction of a block until it is
// found there; at full sharpness that half-pixel shift costs a text-dense template so much
// correlation that a neighbouring size scores better than the true one.
inline constexpr double kLevelSoften = 0.6;

struct Scaled {
    cv::Mat grey;
    cv::Mat mask;
    ZeroMeanTemplate zm;  // for direct correlation (vision/Correlation.h); none with a mask
    // Where grey's first pixel lies from the scaled template's top-left (full-resolution
    // pixels): on a whole level the template is cut to the frame's blocks (see at()).
    cv::Point2d origin;
};

// How far from an estimated top-left a search looks, sideways and up and down (full-resolution
// pixels).
struct Margin {
    int x, y;
    Margin(int both) : x(both), y(both) {}  // NOLINT: a number is the same margin both ways
    Margin(int x_, int y_) : x(x_), y(y_) {}
};

struct Candidate {
    Point pos;      // estimated top-left at full resolution
    double coarse;  // coarse correlation
    double scale;
    Margin margin;  // search margin for the confirm
};

cv::Mat resizeTo(const cv::Mat& src, cv::Size size, bool nearest = false);

// The size at which the locator compares the colours of an image of `size`: its own up to
// 256x256 pixels' worth, else area-averaged down to about that (colour agreement is a property
// of regions; a 900x500 patch at full size costs ~10 ms).
cv::Size colourSize(cv::Size size);
// The chroma planes compared at `at` (colourSize): chromaPlanes blurred by 1 px at the image's
// own size (as chromaAgreement), by 0.5 px once area-averaged smaller.
cv::Mat colourPlanes(const cv::Mat& bgr, cv::Size at);

// The worst correlation over the parts of a template: it is cut into vertical strips about as
// wide as it is high (2 to 8), each compared with the patch within one pixel sideways; strips
// with almost no contrast (standard deviation under 10 grey levels) say nothing and are
// skipped. A look-alike word shares most glyphs with the template and differs in one, which
// the whole-template correlation averages away and the worst part does not.
double partsScore(const cv::Mat& patch, const cv::Mat& tpl);

// One variant searched in one frame (or region of it).
class Search {
public:
    Search(const PreparedFrame& pf, const Template& tpl, const Rect& area, const LocatorOptions& o);

    // The template at scale `s` on the frame downsampled by `f` (greyscale and mask, about
    // template size * s / f), cached; null when it is under 3 px or larger than the area.
    // On a reduced level it is resized from the template reduced by f (cached), as the frame's
    // levels are made (resizing the whole template for every nearby scale cost more than the
    // correlations), and softened as the level is (kLevelSoften). On a whole level
    // (isWholeLevel) the template is reduced on the frame's own grid: placed with its top-left
    // at `phase` (mod f) of a block, only its whole blocks are kept and averaged (a block
    // straddling two of the frame's cost a text-dense template so much correlation that a
    // neighbouring size scored better than the true one); elsewhere `phase` is ignored.
    const Scaled* at(double s, double f = 1.0, cv::Point phase = {});

    // Locates the template around `approx` (full-resolution top-left, within `margin` full
    // pixels) at scales s·e^(i·log_range/n), i in [-n, n], on the frame downsampled by `f`
    // (1 = full resolution). Returns the best (grey correlation; box in full-resolution
    // pixels, exact only when f = 1: on a level its top-left is interpolated between the
    // level's pixels, from the parabola through the peak and its neighbours), or score -2
    // when no scale fits.
    Match confirmAt(Point approx, double s, Margin margin, double log_range, int n, double f = 1.0);

    // The level on which candidates at scale s are first confirmed: as coarse as keeps the
    // template's short side >= 10 px and its area >= 2000 px (big templates stay
    // discriminative when reduced).
    double confirmLevel(double s) const;

    // Full-resolution refinement of a candidate: position and scale, halving the scale step
    // until it changes the template's width by less than a pixel. With `stop`, cut short
    // (returning what it has) once that is set (another thread found a sure match).
    Match refine(Match m, double log_range, int margin, const std::atomic<bool>* stop = nullptr);

    // Coarse search at scale s: the frame downsampled as far as the template allows, the
    // best `k` separated peaks.
    std::vector<Candidate> coarse(double s, int k);

    // The correlation of `tpl` (with `mask`, or none) over `croi` of the frame reduced by
    // `factor`, as matchTemplate's TM_CCOEFF_NORMED; on a large level only round the
    // pre-pass's peaks (see kPrepassPixels), -1 elsewhere.
    cv::Mat coarseCorrelation(const cv::Rect& croi, double factor, const cv::Mat& tpl, const cv::Mat& mask);

    // The confirm score of a located candidate, compared at the lower of the two resolutions
    // (see Locator), best over one-pixel shifts of the box. Sets m.score, m.color_score (the
    // chroma agreement at the best shift) and moves m.box to the best shift.
    void rescore(Match& m);

    // Whether a refined candidate's colours agree with the template's (the colour confirm of
    // finish, at the template's own threshold), so that a differently coloured look-alike
    // (black body text shaped like a blue link) neither uses up the refine budget nor ends
    // the search early.
    bool colourAgrees(Match m);

    // The chroma planes of the template at the size of `sized` (the template itself or a copy
    // resized to a match) reduced to `at`: chromaPlanes with blur 1 px (as chromaAgreement) at
    // its own size, 0.5 px when area-averaged smaller. Made once per pair of sizes.
    cv::Mat templateChroma(const cv::Mat& sized, cv::Size at);

    // Set once the text confirm has rejected a candidate of this search (see confirmWords).
    bool lookalike_rejected = false;

    // The text confirm's verdict on `box` (confirmText), read once per box of this search:
    // the stages and the choice among tied candidates come back to the same boxes. Throws as
    // confirmText does.
    TextVerdict textVerdict(const Rect& box);

    const Template& tpl() const { return tpl_; }
    const cv::Mat& frameBgr() const { return pf_.bgr(); }
    const cv::Mat& tgrey() const { return tgrey_; }
    const Rect& area() const { return area_; }
    const LocatorOptions& options() const { return o_; }

private:
    // The best correlation of a scaled template in a window of a level: its score and place.
    struct Peak {
        double score = -2;
        cv::Point at;
        cv::Point2d sub;  // the peak's offset from `at` between pixels (parabola), within ±0.5
    };
    // The peak of `t` (from at(), for level `f`) in `roi` of that level, memoised: the refine
    // comes back to the scale and window it started from.
    Peak peakIn(const cv::Rect& roi, const Scaled& t, double f);

    const PreparedFrame& pf_;
    const Template& tpl_;
    Rect area_;
    const LocatorOptions& o_;
    cv::Mat tgrey_;
    bool chromatic_ = false;  // the template has colour (it disagrees with its own grey)
    std::map<std::tuple<int, int, int, int>, Scaled> cache_;  // at(), by scale, level and phase
    // The template (grey and mask) reduced by a level, by level and phase; `origin` where its
    // first pixel lies in the template.
    struct Reduced {
        cv::Mat grey, mask;
        cv::Point origin;
    };
    std::map<std::tuple<int, int, int>, Reduced> level_templates_;
    // The means of the template's f x f blocks at every top-left (CV_32F), by whole level f:
    // a phase's reduced template samples it every f pixels.
    std::map<int, cv::Mat> block_means_;
    std::map<std::tuple<int, int, int, int>, cv::Mat> chroma_cache_;
    std::map<std::tuple<int, int, int, int>, Match> rescored_;  // rescore's results by box
    std::map<std::tuple<int, int, int, int>, TextVerdict> verdicts_;  // textVerdict's, by box
    std::map<std::tuple<const Scaled*, int, int, int, int>, Peak> peaks_;  // peakIn's, by template and window
    std::mutex mutex_;
};

}  // namespace eacu::locator
