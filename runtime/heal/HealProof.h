// The last step of every heal (issue 34): the element found again must be proven on the frame
// it was found on as the recorder proves a recorded target (recorder/TargetProof), and is then
// written into the heal's result.
#pragma once
#include <optional>
#include <string>

#include "base/Frame.h"
#include "device/Accessibility.h"
#include "heal/LineReference.h"
#include "step/Healer.h"

namespace eacu {

/// The device's accessibility tree (a snapshot of the whole screen) when the line recorded a
/// tree element or its tree neighbours (`ref.role`, `ref.tree_kept`); nullopt when it did not,
/// or the device has no tree (the pixels alone then).
std::optional<A11yElement> healTree(Session& session, const LineReference& ref);

/// Proves targets at `p` on `frame` with proveTargets (`tree`: the accessibility tree, or
/// null), new crops named `<action>_<step_idx>_healed` in `ref.assets_ref`. When one is proven
/// (not a Point), fills `r` as healed: match (method `method`, score `score`, threshold
/// `threshold`, box `box`, input point the proven target's centre when it lies in `box`, else
/// `p`), targets, crops (each recorded as a frame of the run log) and record ("healed",
/// "new", "crops", "box", "method"), and returns true. Else returns false and sets `why` to the
/// proof's reason.
bool acceptHealed(Session& session, const Frame& frame, const A11yElement* tree, Point p, const Rect& box,
                  const LineReference& ref, const std::string& action, int step_idx, const std::string& method,
                  double score, double threshold, HealResult& r, std::string& why);

}  // namespace eacu
