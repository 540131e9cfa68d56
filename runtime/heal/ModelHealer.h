// Healing with a model (issue 34 item 2b): after the similarity search, grounding with the
// line's recorded crop as a reference image (seed 002's one-shot reference-image locator).
#pragma once
#include <string>

#include "heal/LineReference.h"
#include "heal/SimilarityHealer.h"
#include "planner/ModelContext.h"
#include "step/Healer.h"

namespace eacu {

/// What the model is asked to find for a line: its recorded words, role, neighbours and place
/// (0..1000 of the recorded screen), and that it may have been renamed, restyled or moved.
std::string healDescription(const LineReference& ref);

/// The Healer of eacu run --heal: SimilarityHealer first; when it heals nothing and the run
/// has a model (`ctx` with a client), planner's ground() with healDescription and the
/// recorded crop as reference; the element the model names must then be proven on a fresh
/// capture by acceptHealed (method "heal:model", score 1). What both tried is in the result.
class ModelHealer : public Healer {
public:
    /// `ctx`: the run's model context (it outlives the script's steps), or null (similarity only).
    explicit ModelHealer(ModelContext* ctx) : ctx_(ctx) {}
    HealResult heal(Session& session, const TargetSpec& target, const std::string& action, int step_idx) override;
    /// SimilarityHealer::warmUp: the OCR engines a heal reads with, loaded ahead.
    void warmUp() { similar_.warmUp(); }

private:
    ModelContext* ctx_;
    SimilarityHealer similar_;
};

}  // namespace eacu
