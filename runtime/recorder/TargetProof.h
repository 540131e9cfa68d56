// The most robust target that can be proven for a point on a frame: what `eacu record` and
// `eacu script` write for a pointer action (issue 29).
#pragma once
#include <memory>
#include <optional>
#include <string>

#include <opencv2/core.hpp>

#include "base/Frame.h"
#include "device/Accessibility.h"
#include "geometry/Rect.h"
#include "vision/Locator.h"
#include "vision/ocr/OcrResult.h"

namespace eacu {

/// A target proven for a point.
/// - `kind`: A11y (the element under the point, by role and name), Relative (an unnamed entry,
///   by the label beside it), Text (a phrase OCR reads there and nowhere else), Image (a crop
///   around the point found only there), Point (nothing could be proven).
/// - `lua`: the target as Lua source (`{ role = "push button", name = "OK" }`, `"text:Postpone"`,
///   `"rec_assets/tap_3.png"`, `{ x = 70, y = 347 }`).
/// - `why`: the reason, for the line's comment (for Point: what was tried and why it failed).
/// - `box`: where the target lies on the frame (physical pixels).
/// - `crop`: for Image, the pixels to save as `image_file` (in the folder the script names
///   ProofOptions::image_ref);
///   `scale` the frame's device scale factor they were cut at.
/// - `ms`: the time the proof took, milliseconds.
struct ProvenTarget {
    enum class Kind { A11y, Relative, Text, Image, Point };
    Kind kind = Kind::Point;
    std::string lua;
    std::string why;
    Rect box;
    cv::Mat crop;
    std::string image_file;
    double scale = 1;
    double ms = 0;
    /// For Image: the threshold the line must run with when it is not the default
    /// (kDefaultThreshold): a look-alike scores close enough to need it. It is in `lua`.
    std::optional<double> threshold;

    /// "a11y", "relative", "text", "image" or "point": the kind's name, as an alternative's
    /// method is logged (`alt:<kind>`).
    const char* kindName() const;
};

/// How to prove: `image_ref` is how the script names the folder crops are saved in (relative
/// to the script, e.g. "calc_assets"), `image_stem` the crop's file name without ".png"
/// ("tap_3"); `text` and `image` allow those kinds.
struct ProofOptions {
    std::string image_ref = "assets";
    std::string image_stem = "target";
    bool text = true;
    bool image = true;
    /// The phraseBand of this frame and point read ahead (PhraseReader), or null: read now.
    std::shared_ptr<const OcrResult> band;
    /// The screen before the pointer set off towards the point (the recorder's: the pointer
    /// still where the action before left it), or null. A replay looks for the target on such a
    /// screen, with the pointer elsewhere: an image crop is cut from it and proven on it as well
    /// as on `frame`, so the look a hover gives the element (a key highlighted under the
    /// pointer) is neither what is written nor what makes it unique.
    const Frame* approach = nullptr;
    /// A tree that may not be the frame's (read while the screen changed), when no `tree` is
    /// given, or null: no target is taken from it, but where the name of its element under the
    /// point reads like the phrase OCR reads there (similarity >= 0.8), the text written is
    /// that name, as with `tree` (a misreading, "Press #8" for "Press 按", is not written).
    const A11yElement* name_tree = nullptr;
    /// For a verify: in a field (the tree's editable element under the point, not a password)
    /// whose tree gives its value (A11yElement::value: the agent's UIA or MSAA value, a web
    /// page's AX value), what it holds is proven rather than that it is there: first of all
    /// the element by its role, name (or id) and value (`{ role = "text", name = "姓名",
    /// value = "张三" }`, when findElement finds that very element so); the text target is
    /// the value read at the point (as step 2 proves a text: the band's reading, then the
    /// whole frame's), never the name (the label beside it: where the field is, not what it
    /// holds). A field whose tree gives no value is proven as without this option.
    bool field_value = false;
};

/// The most robust target for point `p` (physical pixels) on `frame`, proven on that frame:
/// 1. the interactive accessibility element of `tree` (when given) under `p`, the smallest;
///    kept when findElement finds that very element by its role and name (an unnamed one by
///    its resource-id, `{ resource_id = "input" }`, when it has one); an unnamed entry is
///    taken by the label beside it ({ right_of = { role = "label", name = ... }, kind = "field" })
///    when that label is found and the entry is the field pickRelative chooses right of it;
/// 2. else a phrase OCR reads at `p` in a 640x64 band around it (logical pixels, times the
///    frame's scale; a short line of up to 4 words, else the word): kept when it is a reading
///    of the element's label (provenReading: the name of the tree's element under `p` where it
///    has one, else every word read with confidence >= 0.8 and in the script the place reads
///    best in; for a named element the text written is its name, not OCR's reading), and findText, on the frame read with the languages a replay uses, finds it
///    first at `p` with similarity >= 0.8 (its centre, where a replay taps, near `p`) and
///    nowhere else at that similarity;
/// 3. else an image cut around `p` (40x28 up to 160x96 pixels, then 28x20 and 20x14, times the
///    frame's scale; cut from `o.approach` when given, else from `frame`): kept when the
///    replay's own locate (Locator::locate with the hints a replay's first look and later looks
///    have: the expected scale, and the last-seen place with its score) finds it at its own
///    place (IoU >= 0.8) on `frame` and on `o.approach`, with the threshold the line will run
///    with: the default, or half way between its own lowest score there and the best score of
///    any other place (TemplateMatcher::findAll at its size) when that look-alike reaches the
///    default; a crop whose own score is not at least kSeparation above every look-alike's is
///    not kept;
/// 4. else the point, saying why.
ProvenTarget proveTarget(const Frame& frame, const A11yElement* tree, Point p, const Locator& locator,
                         const ProofOptions& o = {});

/// Every target that can be proven for `p`, in proveTarget's order (the a11y element or the
/// relative target, the text, the image crop), each proven as proveTarget proves it; a single
/// Point target when none can be. A position is never an alternative: it is always "found".
std::vector<ProvenTarget> proveTargets(const Frame& frame, const A11yElement* tree, Point p, const Locator& locator,
                                       const ProofOptions& o = {});

/// How far (raw score) an image crop's own score must stand above every other place's for it
/// to be proven unique.
inline constexpr double kSeparation = 0.04;

/// The region OCR reads around `p` for the phrase there (proveTarget step 2): 640x64 logical
/// pixels centred on it, times the frame's scale, clipped to the frame. Reading it ahead (the
/// recorder does while the person acts) puts it in OcrCache::shared() for the proof.
Rect phraseBand(const Frame& frame, Point p);
/// The languages that band is read with.
inline constexpr const char* kPhraseBandLangs = "eng+chi_sim";

/// `s` as a Lua string literal: double quotes, with \\, \", \n, \r, \t and other control
/// characters escaped; UTF-8 kept as it is.
std::string luaQuote(const std::string& s);


}  // namespace eacu
