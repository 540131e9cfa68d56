// What a line recorded about the element it acts on, gathered from its targets and the frame
// they were proven on (issue 34, docs/healing.md "What is kept per line").
#pragma once
#include <optional>
#include <string>
#include <vector>

#include <opencv2/core.hpp>

#include "assets/AssetLibrary.h"
#include "geometry/Rect.h"
#include "step/Target.h"

namespace eacu {

/// The recorded element.
/// - `words`: its own words (a11y name, text targets, and the words OCR reads inside its box on
///   the proof frame); `role`: its tree role ("" when none was recorded).
/// - `crop`, `crop_scale`, `crop_path`: the first image alternative's pixels, the device scale
///   they were cut at, and the file (absolute; "" when the line has no image target).
/// - `proof_frame`: `<crop stem>_frame.jpg` beside the crop (what eacu record keeps), empty when
///   there is none; `box`: where the crop lies on it (physical pixels), `frame_size` its size.
/// - `neighbours`: the OCR lines around `box` on the proof frame (not inside it).
/// - `assets_ref`: the folder (as the script names it) new crops are written to.
struct LineReference {
    std::vector<std::string> words;
    std::string role;
    cv::Mat crop;
    double crop_scale = 1;
    std::string crop_path;
    std::string proof_frame;
    std::optional<Rect> box;
    Size frame_size;
    std::vector<std::string> neighbours;
    std::string assets_ref = "assets";

    /// A short description for messages and the model: words, role, neighbours.
    std::string describe() const;
};

/// The lines of OCR text near `box` (within the box grown by twice its larger side plus 40
/// pixels each way, times `scale`) and not inside it: the element's neighbourhood.
std::vector<std::string> neighbourWords(const std::vector<std::pair<std::string, Rect>>& lines, const Rect& box,
                                        double scale);

/// Gathers the reference of target `t` (the first and its alternatives) of a script in
/// `script_dir`; the proof frame is read with OCR (`langs`). Images that cannot be read are
/// left out (the rest of the reference stays).
LineReference lineReference(const TargetSpec& t, const AssetLibrary& assets, const std::string& script_dir,
                            const std::string& langs);

}  // namespace eacu
