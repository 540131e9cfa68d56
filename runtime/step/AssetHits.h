// The asset library's images found on a frame, as Set-of-Marks takes them (for the model's
// marks and for relative targets' image candidates).
#pragma once
#include <string>
#include <vector>

#include "assets/AssetLibrary.h"
#include "base/Cancel.h"
#include "base/Frame.h"
#include "vision/Matcher.h"
#include "vision/som/Som.h"

namespace eacu {

/// Every asset of `lib` found on `frame`, one best match each: the template scaled to the
/// frame's device scale, screened at half resolution (absent when its best score there is more
/// than 0.25 under its threshold), then located by `matcher` round that place; an asset found
/// inside a larger one's box (a digit on a key) is dropped. Each hit is named by its first
/// alias, else its qualified name; box in physical pixels of the frame. `apps`: only assets of
/// these apps ("" = the shared index); empty = every asset. `script_dir` resolves relative image
/// paths; an unreadable image is skipped. Checks `cancel` between assets (throws Cancelled).
std::vector<SomAssetHit> findAssetHits(const AssetLibrary& lib, const std::string& script_dir, const Frame& frame,
                                       const std::vector<std::string>& apps, const Matcher& matcher,
                                       CancelToken& cancel);

}  // namespace eacu
