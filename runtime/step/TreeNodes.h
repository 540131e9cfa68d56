// The accessibility tree's elements as Set-of-Marks takes them (for the model's marks and for
// relative targets' candidates).
#pragma once
#include <vector>

#include "device/Device.h"
#include "geometry/Rect.h"
#include "vision/som/Som.h"

namespace eacu {

/// The interactive elements (step/A11yTarget.h isInteractive) of `device`'s accessibility tree
/// that are showing and overlap `screen` (physical pixels of the screen), each with its role,
/// accessible name (an unnamed entry named by the label beside it) and bounds; of process
/// `pid` only when `pid` > 0. Empty when the device has no tree or its bus cannot be reached
/// (the marks then come from the pixels alone).
std::vector<SomA11yNode> treeNodesOnScreen(Device& device, const Rect& screen, int pid = 0);

/// The same elements of a tree already read (`root`, a snapshot of the device's tree).
std::vector<SomA11yNode> treeNodesOf(const A11yElement& root, const Rect& screen);

}  // namespace eacu
