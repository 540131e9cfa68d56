// The hybrid locator: last-seen region → expected scale → coarse-to-fine multi-scale search →
// feature matching, each candidate confirmed by a template correlation at the scale found.
#pragma once
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "vision/Matcher.h"
#include "vision/PreparedFrame.h"

namespace eacu {

/// Settings of the search (scales are template scale factors: 1 = the template's own size).
/// - `min_scale`, `max_scale`: the bounded range of the multi-scale search.
/// - `scale_step`: ratio between neighbouring coarse scales (> 1); the fine stage searches
///   between them.
/// - `coarse_min_side`, `coarse_min_area`: the template's short side and area (pixels) at the
///   coarse level; the frame is downsampled as far as both allow.
/// - `candidates_per_scale`: coarse peaks kept per scale (each confirmed on a reduced level);
/// - `refine_budget`: how many of the confirmed candidates are refined at full resolution.
/// - `sure_score`: a confirmed score this high ends the search early.
/// - `threads`: search threads (scales are shared out between them).
/// - `features`: allow the ORB + homography stage.
/// - `scale_tolerance`: how far (ratio) a match's scale may be from the expected scale and
///   still count as at the expected scale.
/// - `off_scale_margin`: a match away from the expected scale needs its template's threshold
///   plus this (the threshold is raised for it, never lowered).
/// - `parts_slack`: every part of the template (strips about as wide as it is high) must
///   correlate at least at the threshold minus this, so a look-alike that differs in one
///   glyph is rejected.
/// - `tie_margin`: candidates within this score of the best are ranked in reading order (top
///   to bottom, then left to right), so of two identical elements the first is taken.
/// - `text_confirm`, `text_confirm_below`: a found match scoring below this whose template
///   shows legible words must show the same words (vision/ocr/TextConfirm: both read by
///   Tesseract; see there when a reading overrules the pixels), so a look-alike word ("ndex"
///   of "index" for "next") is rejected. Matches at or above it are not read.
struct LocatorOptions {
    double min_scale = 0.5;
    double max_scale = 2.0;
    double scale_step = 1.2;
    int coarse_min_side = 6;
    int coarse_min_area = 200;
    int candidates_per_scale = 12;
    int refine_budget = 6;
    double sure_score = 0.93;
    int threads = 2;
    bool features = true;
    double scale_tolerance = 1.1;
    double off_scale_margin = 0.1;
    double tie_margin = 0.01;
    double parts_slack = 0.15;
    bool text_confirm = true;
    double text_confirm_below = 0.9;
};

/// What a caller knows before searching (all optional):
/// - `region`: search only here (physical pixels);
/// - `last_seen`, `last_scale`: where and at what scale this target was found before;
/// - `last_score`: the score it was found with there: the last-seen stage ends the search only
///   with a match scoring at least this minus kLastSeenDrop (something else now standing at
///   that place, scoring less, is not taken without the full search);
/// - `expected_scale`: the template scale expected on this frame (the frame's device scale
///   factor over the template's recorded scale), tried before the full range.
struct LocateHints {
    std::optional<Rect> region;
    std::optional<Rect> last_seen;
    std::optional<double> last_scale;
    std::optional<double> last_score;
    std::optional<double> expected_scale;
};

/// How much less than LocateHints::last_score a match at the last-seen place may score and
/// still end the search there: a pointer's hover or a blinking caret changes a few percent of
/// a crop; another element standing where the target was scores far less.
inline constexpr double kLastSeenDrop = 0.03;

/// The best candidate of one stage, for diagnostics.
struct StageResult {
    std::string stage;  // last_seen | expected_scale | multi_scale | features
    Match best;         // best confirmed candidate of the stage (found tells if it passed)
    double ms = 0;
};

/// The outcome: the match (found or the best rejected candidate) and every stage that ran.
struct LocateReport {
    Match match;
    std::vector<StageResult> stages;
};

/// Finds templates at any scale in a frame. Every candidate, whatever stage proposed it, is
/// confirmed by a greyscale normalized cross-correlation (TM_CCOEFF_NORMED), then a colour
/// confirm at the same place (chroma agreement, vision/ColourAgreement.h); a match needs both
/// scores at the template's threshold, which no stage lowers. The confirm compares at the
/// lower of the two resolutions: a larger rendering is downsampled (area averaging) to the
/// template's size; for a smaller one the template is downsampled and the frame patch gets the
/// same softening (Gaussian, sigma 0.5 px), since a fresh small rendering is sharper than an
/// area-downsampled one. Scores are raw correlations.
class Locator : public Matcher {
public:
    explicit Locator(LocatorOptions options = {}) : options_(options) {}
    const LocatorOptions& options() const { return options_; }

    /// Runs the stages in order on `frame` for every variant in `variants` (any one matching is
    /// a hit; the best wins), stopping at the first stage that finds it.
    /// Throws std::invalid_argument for an empty variant list or an empty template.
    LocateReport locate(const PreparedFrame& frame, const std::vector<Template>& variants,
                        const LocateHints& hints = {}) const;

    Match locate(const cv::Mat& frame, const Template& tpl,
                 std::optional<Rect> region = std::nullopt) const override;
    /// Every occurrence at the scale where the best match is found (non-maximum suppressed).
    std::vector<Match> findAll(const cv::Mat& frame, const Template& tpl,
                               std::optional<Rect> region = std::nullopt,
                               int max_results = 100) const override;

private:
    LocatorOptions options_;
};

}  // namespace eacu
