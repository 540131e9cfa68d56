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
/// - `coarse_min_side`: the template's short side (pixels) at the coarse level; the frame is
///   downsampled as far as this allows.
/// - `candidates_per_scale`, `verify_budget`: coarse peaks kept per scale, and how many of all
///   coarse peaks are confirmed at full resolution.
/// - `sure_score`: a confirmed score this high ends the search early.
/// - `threads`: search threads (scales are shared out between them).
/// - `features`: allow the ORB + homography stage.
struct LocatorOptions {
    double min_scale = 0.5;
    double max_scale = 2.0;
    double scale_step = 1.12;
    int coarse_min_side = 7;
    int candidates_per_scale = 4;
    int verify_budget = 40;
    double sure_score = 0.93;
    int threads = 2;
    bool features = true;
};

/// What a caller knows before searching (all optional):
/// - `region`: search only here (physical pixels);
/// - `last_seen`, `last_scale`: where and at what scale this target was found before;
/// - `expected_scale`: the template scale expected on this frame (the frame's device scale
///   factor over the template's recorded scale), tried before the full range.
struct LocateHints {
    std::optional<Rect> region;
    std::optional<Rect> last_seen;
    std::optional<double> last_scale;
    std::optional<double> expected_scale;
};

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
/// confirmed by a greyscale normalized cross-correlation (TM_CCOEFF_NORMED) of the template
/// resized to the candidate's scale, then a colour confirm at the same place; a match needs
/// both scores at the template's threshold, which no stage lowers. Scores are raw.
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
