// Set-of-Marks: numbered element proposals a model chooses from by ID (seed 000 §2.4, §3.2;
// OmniParser's element schema). Sources: rectangles of controls found from edges, blobs of
// text/icons (morphology), OCR lines and asset matches passed in as plain structs.
#pragma once
#include <map>
#include <string>
#include <vector>

#include <opencv2/core.hpp>
#include <nlohmann/json.hpp>

#include "geometry/Rect.h"

namespace eacu {

/// An OCR line as runtime/vision/ocr produces it: text, box (physical pixels), confidence 0..1.
struct SomOcrLine {
    std::string text;
    Rect box;
    double confidence = 0;
};

/// A located asset (template match): its name, box (physical pixels), raw score.
struct SomAssetHit {
    std::string name;
    Rect box;
    double score = 0;
};

/// An interactive element of the accessibility tree (device/Accessibility.h) as Set-of-Marks
/// takes it: its role ("push button", "text", "check box"), accessible name and box on the
/// frame (physical pixels).
struct SomA11yNode {
    std::string role;
    std::string name;
    Rect box;
};

/// One element.
/// - `id`: 0-based, assigned in reading order (top to bottom, then left to right, rows grouped by
///   vertical overlap), so the same screen gives the same IDs.
/// - `type`: OmniParser's "text" | "icon"; `kind`: finer, for the text list: button |
///   text_field | icon | control | label | asset.
/// - `box`: physical pixels of the frame; `interactivity` as OmniParser (text false, icon true).
///   Elements from the accessibility tree take their kind from its role (button,
///   text_field, or the role itself: "check box", "menu item").
/// - `content`: OCR text, the asset name or the accessible name ("" when unknown).
/// - `source`: box_ocr_content_ocr | box_contour | box_contour_content_ocr | box_blob |
///   box_asset_content_asset | box_a11y_content_a11y | box_a11y_content_ocr (an element of the
///   accessibility tree without a name, named by the OCR text inside it) (OmniParser's
///   "box_<detector>_content_<captioner>" pattern).
/// - `score`: OCR confidence, asset score, or the detector's rectangularity (0..1).
struct SomElement {
    int id = 0;
    std::string type;
    std::string kind;
    Rect box;
    bool interactivity = false;
    std::string content;
    std::string source;
    double score = 0;
};

/// Tuning. Sizes are physical pixels unless said otherwise.
/// - `max_elements`: cap (seed 000: 40). Kept by priority: assets, controls with text, OCR
///   lines, controls, blobs; ties in reading order.
/// - `iou_dedup`: two proposals overlapping more than this are one element (the higher priority).
/// - `min_side`, `max_w_frac`, `max_h_frac`: control-like size (fractions of the frame).
/// - `blob_gap`: horizontal gap (pixels at scale 1; multiplied by `scale`) bridged when
///   grouping glyphs into words/lines; 0 disables blobs.
/// - `scale`: device scale factor of the frame.
struct SomOptions {
    int max_elements = 40;
    double iou_dedup = 0.5;
    int min_side = 8;
    double max_w_frac = 0.5;
    double max_h_frac = 0.25;
    int blob_gap = 7;
    double scale = 1.0;
    bool contours = true;
};

/// The proposals for one frame: `elements` (IDs 0..n-1 in order), the frame `size`, and how many
/// candidates were found before de-duplication and the cap.
struct SomResult {
    std::vector<SomElement> elements;
    Size size;
    int candidates = 0;

    /// ID → box, for model::ActionContext::elements.
    std::map<int, Rect> boxes() const;
};

/// Rectangles of control-like size found from edges (Canny, closed contours whose area fills
/// their bounding box) and from glyph blobs (morphological gradient, Otsu, horizontal closing),
/// each with source "box_contour" or "box_blob". `bgr`: BGR or grey, physical pixels.
std::vector<SomElement> proposeControls(const cv::Mat& bgr, const SomOptions& opt = {});

/// Merges proposals from the accessibility tree, the image, OCR lines and asset hits. Elements of
/// the tree (`a11y`) come first: they are exact, their accessible names are their content (or
/// the OCR lines inside them when they have none), and proposals they cover are dropped. A
/// control that contains OCR lines
/// takes their text (and they are dropped), blobs covered by an OCR line or asset are dropped,
/// containers (holding 3+ other elements) are dropped, overlaps above `iou_dedup` are
/// de-duplicated, the rest capped at `max_elements` and numbered in reading order.
SomResult buildSom(const cv::Mat& bgr, const std::vector<SomOcrLine>& ocr = {},
                   const std::vector<SomAssetHit>& assets = {}, const SomOptions& opt = {},
                   const std::vector<SomA11yNode>& a11y = {});

/// OmniParser's schema plus the ID: [{"id","type","bbox":[x1,y1,x2,y2] (fractions of the frame),
/// "interactivity","content","source"}, ...].
nlohmann::json somToJson(const SomResult& som);

/// The element list in seed 000 §3.2's form, one line per element:
/// `  [2] 🔘 button | "发送" | 屏幕下右` (🔘 interactive, 📝 not; "(无文字)" for no text; the
/// position is the screen third: 上/中/下 and 左/中/右). Non-interactive elements with no text
/// are left out, as seed 000's format_for_claude does.
std::string somText(const SomResult& som);

/// A copy of `bgr` with each element's box and its ID drawn (colour by ID, label in a filled
/// tag at the box's top-left, inside the frame).
cv::Mat somOverlay(const cv::Mat& bgr, const SomResult& som);

}  // namespace eacu
