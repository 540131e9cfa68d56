// Healing without a model (issue 34 item 2a): Similo's idea (Nass et al., TOSEM 2023) on a
// screen: every element of the current frame scored against everything the line recorded,
// the best taken only when it is clearly the best and passes the recorder's own proof.
#pragma once
#include <string>
#include <vector>

#include "base/Frame.h"
#include "heal/LineReference.h"
#include "step/Healer.h"
#include "vision/som/Som.h"

namespace eacu {

/// The least similarity a candidate must have, and how far it must stand above the second, to
/// be healed (docs/healing.md "What counts as proof"). Not tuned to any test: two thirds of
/// the weighted evidence must agree, and the runner-up must be a tenth behind.
inline constexpr double kHealMinScore = 0.6;
inline constexpr double kHealMargin = 0.1;

/// One element's similarity to the reference, 0..1: the weighted mean (Similo's weighted sum,
/// normalized by the weights of the features the reference has) of
///   words (1.5): best textSimilarity of its content to a recorded word;
///   role (0.5): its tree role equals the recorded one (tree elements only);
///   neighbours (1): the share of recorded neighbour lines read again within the same reach;
///   position (1): 1 - distance of the centres / (a quarter of the frame's diagonal), at least 0
///     (centres as fractions of the frame, so another screen size compares);
///   look (1): the best normalized correlation of the recorded crop within twice its size
///     around the element's centre (at least 0).
/// (The crop is cut around the recorded point at a size of the recorder's choosing, so its size
/// says nothing of the element's: there is no size feature.)
/// `lines`: the frame's OCR lines (neighbours); `frame`: its pixels. `why` receives the
/// features, for messages.
double similarity(const LineReference& ref, const SomElement& e, const std::string& role, const Frame& frame,
                  const std::vector<std::pair<std::string, Rect>>& lines, std::string& why);

/// The Healer of eacu run --heal with no model: candidates are the Set-of-Marks elements of a
/// fresh capture (controls, OCR lines, and the tree's elements of the program under the
/// recorded place when the line recorded a tree element), scored by similarity(); the best
/// is healed when it scores at least kHealMinScore, kHealMargin above the second, and
/// proveTargets (recorder/TargetProof) proves a target at it on that frame.
class SimilarityHealer : public Healer {
public:
    HealResult heal(Session& session, const TargetSpec& target, const std::string& action, int step_idx) override;
};

}  // namespace eacu
