// An element's neighbours: the labels around it, from OCR lines or from the accessibility tree,
// each with the side it lies on (issue 34: what the recorder keeps of a line for healing, and
// what a heal compares; Similo's neighbour-text attribute, Nass et al., TOSEM 2023).
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "device/Accessibility.h"
#include "geometry/Rect.h"
#include "vision/ocr/OcrResult.h"
#include "vision/som/Som.h"

namespace eacu {

/// One label near an element: its text, and the side of the element it lies on ("left",
/// "right", "above", "below": the larger of the centres' horizontal and vertical offsets).
struct Neighbour {
    std::string text;
    std::string side;
    bool operator==(const Neighbour&) const = default;
};

/// The labels near `box` (their centre within the box grown by twice its larger side plus 40
/// pixels times `scale` each way) and not inside it, and the `siblings` wherever they lie
/// (treeSiblings), each text once, nearest first, at most `max`. `labels`: text and box
/// (physical pixels), OCR lines or treeLabels().
std::vector<Neighbour> neighboursOf(const std::vector<std::pair<std::string, Rect>>& labels, const Rect& box,
                                    double scale, const std::vector<std::pair<std::string, Rect>>& siblings = {},
                                    size_t max = SIZE_MAX);

/// The labels of the siblings of the tree element whose bounds are `box` (the other children
/// of its parent: their names or descriptions, showing ones only); none when no element of the
/// tree has those bounds (overlap over union above 0.9).
std::vector<std::pair<std::string, Rect>> treeSiblings(const A11yElement& root, const Rect& box);

/// Every labelled element of the tree under `root` that shows on the screen: its name (its
/// description when it has no name) and bounds, in tree order. Unlabelled and empty elements
/// are left out.
std::vector<std::pair<std::string, Rect>> treeLabels(const A11yElement& root);

/// The kept form of neighbours (docs/healing.md "What is kept per line"): [[text, side], ...].
nlohmann::json neighboursJson(const std::vector<Neighbour>& ns);

/// Reads neighboursJson's form; entries that are not [string, string] are skipped.
std::vector<Neighbour> neighboursFromJson(const nlohmann::json& j);

// ---- What the recorder keeps beside the frame a line's targets were proven on, for healing
// (issue 34, docs/healing.md "What is kept per line"): `<stem>_frame.json` next to
// `<stem>_frame.jpg`. The words and labels OCR reads on that frame are known when the line is
// written; keeping them spares each heal a whole-screen reading of the recorded frame.

/// The evidence kept for one proof frame.
/// - `box`: where the line's image crop lies on the frame (physical pixels), nullopt when the
///   reading below was not kept (a file written before it was, or a line with no crop);
///   `frame_size`: the frame's size (physical pixels).
/// - `words`: the text of the confident OCR lines (confidence >= 0.8, letters or digits) whose
///   centre lies inside `box`, each once, in reading order.
/// - `ocr_neighbours`: the confident OCR lines around `box` and not inside it, with their sides
///   (neighboursOf with the crop's scale).
/// - `tree_neighbours`: the accessibility tree's labels and the element's siblings around the
///   line's first target (neighboursOf, the 8 nearest), empty when the device had no tree.
/// - `kind`: the Set-of-Marks kind (vision/som: "button", "text_field", "icon", "control",
///   "label") of the smallest element whose box holds the centre of `box`, built from the
///   frame's pixels and the same reading (somKindAt); "" when none holds it or the file was
///   written before it was kept. On a screen without a tree it stands for the element's tag
///   (Similo's tag attribute).
struct FrameEvidence {
    std::optional<Rect> box;
    Size frame_size;
    std::string kind;
    std::vector<std::string> words;
    std::vector<Neighbour> ocr_neighbours;
    std::vector<Neighbour> tree_neighbours;
};

/// The least confidence an OCR line must be read with to count as a word or a neighbour (the
/// recorder's own reading check).
inline constexpr float kEvidenceMinConfidence = 0.8f;

/// The Set-of-Marks options that the evidence's kind and healing's candidates are both built
/// with: every element (up to 200), at device scale `scale`.
SomOptions evidenceSomOptions(double scale);

/// The Set-of-Marks kind of the smallest element of buildSom(`bgr`, `reading`'s lines,
/// evidenceSomOptions(`scale`)) whose box holds `point` (physical pixels); "" when none does or
/// `bgr` is empty.
std::string somKindAt(const cv::Mat& bgr, const OcrResult& reading, Point point, double scale);

/// Fills `ev.box`, `ev.frame_size`, `ev.kind`, `ev.words` and `ev.ocr_neighbours` from
/// `reading`, a whole-frame OCR (kPhraseBandLangs) of the frame `bgr` of `frame_size`, for the
/// crop at `box` cut at device scale `scale` (`bgr` empty: no kind). The one computation of both
/// the writer and a heal of a line whose file has no reading.
void readEvidence(FrameEvidence& ev, const OcrResult& reading, const cv::Mat& bgr, const Rect& box, Size frame_size,
                  double scale);

/// The file's form: {"tree_neighbours": [[text, side], ...], "ocr": {"box": [x, y, w, h],
/// "frame": [w, h], "kind": "button", "words": [...], "neighbours": [[text, side], ...]}}; "ocr"
/// only when `box` is set, "tree_neighbours" only when there are some, "kind" only when known.
nlohmann::json frameEvidenceJson(const FrameEvidence& ev);

/// Reads frameEvidenceJson's form; a missing or malformed part is left empty (`box` nullopt
/// when "ocr" is not complete).
FrameEvidence frameEvidenceFromJson(const nlohmann::json& j);

/// Writes `ev` to `path` (frameEvidenceJson). Throws std::runtime_error naming the path when it
/// cannot be written.
void writeFrameEvidence(const std::string& path, const FrameEvidence& ev);

/// The evidence in the file at `path`; empty (no box, no neighbours) when there is no such file
/// or it is not one of writeFrameEvidence's.
FrameEvidence readFrameEvidence(const std::string& path);

}  // namespace eacu
