// The locator's stages over a Search (internal to the Locator files): confirming and refining
// coarse candidates, the multi-scale search (LocatorMultiScale.cpp), the final checks and the
// choice among candidates (LocatorPick.cpp), and the feature stage (LocatorFeatures.cpp).
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "vision/LocatorSearch.h"

namespace eacu::locator {

// Phase 1 of confirming coarse candidates: each is located on its confirm level within the
// coarse scale step; the result keeps the candidate's margin for the full-resolution refine.
struct Confirmed {
    Match match;
    int margin;
};

Confirmed confirmCandidate(Search& search, const Candidate& c, double log_range);

// How far below the threshold a candidate's confirmed score (on its reduced confirm level,
// within the coarse scale step) may be and still be refined at full resolution. The refine
// raised confirmed scores by at most 0.18 over the candidates of tests/corpus/locate-v1 (a
// large template's reduced level blurs its detail: an exact copy can confirm at 0.85 there).
inline constexpr double kRefineReach = 0.2;

// The best `keep` phase-1 results refined at full resolution, non-maximum suppressed. Those
// whose colours disagree are passed over (among the best 3 * keep) unless none agree, when
// the best of them is refined for diagnostics. Once one refines to `sure` or more, only those
// that confirmed within `tie` of it are refined after it. Those that confirmed more than
// kRefineReach below `threshold` are not refined: when none is left, the best of them is
// returned as confirmed (a target not found still has its best candidate to report).
std::vector<Match> refineBest(Search& search, std::vector<Confirmed> pool, int keep, double log_range, double sure,
                              double tie, double threshold);

// Multi-scale coarse-to-fine search over `scales` (in the order given), shared by `threads`:
// coarse peaks per scale, confirmed on a reduced level, the best refined at full resolution.
// A refined score of at least `sure` ends the search early. Returns refined candidates.
std::vector<Match> multiScale(Search& search, const std::vector<double>& scales, const LocatorOptions& o,
                              double step_log, double threshold);

// Fills score (the confirm at the lower resolution), colour score, target, threshold and found
// of a located candidate. `required` is the threshold it must reach (the template's, or higher
// for a match away from the expected scale).
Match finish(Search& s, Match m, const std::string& method, double required);

bool better(const Match& a, const Match& b);

// The text confirm of a found candidate below options.text_confirm_below (see
// LocatorOptions and vision/ocr/TextConfirm): when it judges that the place does not show the
// template's words, the candidate is rejected and `veto` says why. Once a look-alike has been
// rejected on this screen, pixel evidence alone no longer suffices: a later candidate whose
// words cannot be read is rejected too. An OCR failure (Tesseract missing) leaves the pixel
// match standing.
void confirmWords(Search& search, Match& m);

// The final choice among confirmed candidates: each is rescored (finish), the best passing
// one wins; candidates within tie_margin of it are taken in reading order. The chosen one is
// text-confirmed (confirmWords); if that rejects it, the choice is made again. `required`
// gives the threshold for a candidate's scale.
Match pick(Search& search, const std::vector<Match>& cands, const std::string& method,
           const std::function<double(double)>& required);

// ORB keypoints + RANSAC homography; the projected box is then confirmed by correlation.
Match featureStage(Search& search, const PreparedFrame& pf, const LocatorOptions& o, bool* ran);

}  // namespace eacu::locator
