// Healing without a model (issue 34 item 2a): Similo's idea (Nass et al., TOSEM 2023) on a
// screen: every element of the current frame scored against everything the line recorded,
// the best taken only when it is clearly the best and passes the recorder's own proof.
#pragma once
#include <string>
#include <thread>
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

/// How alike two texts must be (textSimilarity) to be the same label: the recorder's own
/// reading check (recorder/TargetProof kTextSimilarity).
inline constexpr double kHealSameText = 0.8;

/// One element's similarity to the reference, 0..1: the weighted mean (Similo's weighted sum,
/// Nass et al., TOSEM 2023, normalized by the weights of the features the reference has; the
/// weights are Similo's for the attribute each feature stands for) of
///   words (1.5, Similo's visible text and name): best textSimilarity of its content to a
///     recorded word;
///   role (1.5, Similo's tag): its tree role equals the recorded one (tree elements only); on
///     a screen without a tree (no recorded role), its Set-of-Marks kind equals the one kept
///     for the line (`ref.kind`, buildSom on the proof frame: "button", "label", ...) instead;
///   neighbours (1.5, Similo's neighbour text): the recorded neighbours (OCR lines, the tree's
///     labels and the element's siblings, recorder/Neighbours.h) seen again around the element
///     as they were kept, each 1 on the same side, 0.5 on another, divided by their number;
///   position (0.5, Similo's location): 1 - distance of the centres / (a quarter of the frame's
///     diagonal), at least 0 (centres as fractions of the frame, so another screen size compares);
///   look (1, no Similo counterpart: a crop is what a screen keeps instead of markup): the best
///     normalized correlation of the recorded crop within twice its size around the element's
///     centre (at least 0).
/// An element whose words are a recorded neighbour's (kHealSameText) and not a recorded word
/// scores 0: it is that neighbour, which stood beside the element when it was recorded.
/// (The crop is cut around the recorded point at a size of the recorder's choosing, so its size
/// says nothing of the element's: there is no size feature.)
/// `labels`: the frame's OCR lines and tree labels (neighbours); `tree`: the frame's tree (its
/// siblings are neighbours wherever they lie), or null; `frame`: its pixels. `why` receives the
/// features, for messages.
double similarity(const LineReference& ref, const SomElement& e, const std::string& role, const Frame& frame,
                  const std::vector<std::pair<std::string, Rect>>& labels, const A11yElement* tree, std::string& why);

/// The Healer of eacu run --heal with no model: candidates are the Set-of-Marks elements of a
/// fresh capture (controls, OCR lines, and the tree's elements of the program under the
/// recorded place when the line recorded a tree element), scored by similarity(); the best
/// is healed when it scores at least kHealMinScore, kHealMargin above the second, and
/// proveTargets (recorder/TargetProof) proves a target at it on that frame.
///
/// A heal's time is mostly the OCR engines' first load when it is the run's first reading in
/// a language set (docs/healing.md "Numbers": 1.3 s for eng+chi_sim, 0.65 s for chi_sim of a
/// 2.4 s heal, against 0.2 s to read the screen): warmUp() loads them ahead.
class SimilarityHealer : public Healer {
public:
    SimilarityHealer() = default;
    SimilarityHealer(const SimilarityHealer&) = delete;
    SimilarityHealer& operator=(const SimilarityHealer&) = delete;
    /// Waits for warmUp's loading to end (at most the models' load time, about 2 s).
    ~SimilarityHealer() override;

    HealResult heal(Session& session, const TargetSpec& target, const std::string& action, int step_idx) override;

    /// Starts loading, on a thread of its own, the OCR engines a heal reads with
    /// (OcrEngine::shared): "eng" (a Latin phrase's proof, read as a replay reads it; first, as
    /// the run's own text targets need it), kPhraseBandLangs (the current screen's reading, the
    /// proof's band) and "chi_sim" (the proof's check that a Latin phrase does not stand where
    /// Chinese reads better), as the recorder's
    /// PhraseReader loads its own. For a run that heals any line it breaks (`eacu run --heal`);
    /// a second call does nothing. A model that cannot be loaded is left to the heal to report.
    void warmUp();

private:
    std::thread warm_;
};

}  // namespace eacu
