// What a line recorded about the element it acts on, gathered from its targets and the frame
// they were proven on (issue 34, docs/healing.md "What is kept per line").
#pragma once
#include <optional>
#include <string>
#include <vector>

#include <opencv2/core.hpp>

#include "assets/AssetLibrary.h"
#include "geometry/Rect.h"
#include "recorder/Neighbours.h"
#include "step/Target.h"

namespace eacu {

/// The recorded element.
/// - `words`: its own words (a11y name, text targets, and the words OCR reads inside its box on
///   the proof frame); `role`: its tree role ("" when none was recorded); `kind`: its
///   Set-of-Marks kind on the proof frame as kept beside it (FrameEvidence::kind; "" unknown).
/// - `crop`, `crop_scale`, `crop_path`: the first image alternative's pixels, the device scale
///   they were cut at, and the file (absolute; "" when the line has no image target).
/// - `proof_frame`: `<crop stem>_frame.jpg` beside the crop (what eacu record keeps), empty when
///   there is none; `box`: where the crop lies on it (physical pixels), `frame_size` its size.
/// - `neighbours`: the labels around the element with the side each lies on: the OCR lines
///   around `box` on the proof frame (not inside it), and the accessibility tree's labels
///   around the element when it was recorded (`tree_kept` when there were some), each text once.
///   All of it, with `box` and the OCR words, as the recorder kept it beside the proof frame
///   (`<crop stem>_frame.json`, recorder/Neighbours FrameEvidence); a file without the OCR
///   part (written before it was kept) has the proof frame read now.
/// - `assets_ref`: the folder (as the script names it) new crops are written to.
struct LineReference {
    std::vector<std::string> words;
    std::string role;
    std::string kind;
    cv::Mat crop;
    double crop_scale = 1;
    std::string crop_path;
    std::string proof_frame;
    std::optional<Rect> box;
    Size frame_size;
    std::vector<Neighbour> neighbours;
    bool tree_kept = false;  // tree neighbours were kept for the line (it was recorded with a tree)
    std::string assets_ref = "assets";

    /// A short description for messages and the model: words, role, neighbours.
    std::string describe() const;
};

/// Gathers the reference of target `t` (the first and its alternatives) of a script in
/// `script_dir`; a proof frame whose reading was not kept beside it is read with OCR (`langs`).
/// Images that cannot be read are
/// left out (the rest of the reference stays).
LineReference lineReference(const TargetSpec& t, const AssetLibrary& assets, const std::string& script_dir,
                            const std::string& langs);

}  // namespace eacu
