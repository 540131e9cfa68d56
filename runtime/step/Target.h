// What a step acts on, as the script described it.
#pragma once
#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "geometry/Rect.h"
#include "step/A11yTarget.h"
#include "step/RelativeTarget.h"

namespace eacu {

/// A target: an image (asset name, alias or image path), a text phrase read by OCR, or a point.
/// - `image`: asset name/alias or image path, resolved by AssetLibrary::resolve.
/// - `text`: a phrase (UTF-8) to find on screen by OCR, exact or fuzzy (vision/ocr/TextFinder);
///   `threshold` is then the least text similarity (default 0.8); `lang` a Tesseract language
///   set ("eng", "chi_sim", "eng+chi_sim"; default: chosen from the phrase).
/// - `point`: x, y in physical pixels, or fractions of the screen when both lie in 0..1 and
///   one is fractional (geometry/Coords.h).
/// - `threshold`: overrides the asset's similarity threshold (0..1).
/// - `region`: x, y, w, h to search in: pixels, or fractions when all four lie in 0..1.
/// - `offset`: input point offset from the match centre (pixels), overriding the asset's.
/// - `window`: search only this window's own pixels (Windows::capture, also where other
///   windows cover it); `region` is then in the window's pixels, and the match is mapped
///   back to the screen (a `point` stays in screen pixels). An input at it is refused when
///   another window covers the input point on screen (StepError "covered").
/// - `raise`: (with `window`) focus and raise the window (restoring it when minimized) before
///   looking and acting.
/// - `focus`: false (with `window`): the input goes to the window as synthetic events
///   (Windows::sendClick/sendKeys/sendText) without moving the pointer, raising or focusing
///   it, and a covered point is no obstacle. Only taps, double taps, input and key.
/// - `a11y`: an element of the accessibility tree, by role and/or name (step/A11yTarget.h): found
///   in the tree of the whole screen, or of `window`'s program; tapped at its bounds' centre,
///   or by its action when `a11y->press` is set.
/// - `anchor` + `relative`: a relative target (step/RelativeTarget.h): the element in
///   `relative.relation` to where `anchor` is found, of `relative.kind`, the `relative.nth`
///   nearest; candidates are the frame's Set-of-Marks proposals and OCR lines.
/// - `alternatives`: other targets for the same element (docs/targets.md, "Alternatives"),
///   none of them a point and none with alternatives of its own: within the one timeout,
///   each look tries this target, then each alternative in order, once; the first found wins
///   (its match's method "alt:<kind>", kindName). Missing means none is found.
/// - `label`: how the script wrote the target, for messages and the run log.
/// - `where`: the script line that gave it ("PATH:LINE", "" when unknown), so that a healed
///   line can be written back there (eacu heal).
struct TargetSpec {
    std::string label;
    std::string where;
    std::optional<std::string> image;
    std::optional<std::string> text;
    std::optional<std::string> lang;
    std::optional<std::array<double, 2>> point;
    std::optional<double> threshold;
    std::optional<std::array<double, 4>> region;
    std::optional<Point> offset;
    std::optional<uint64_t> window;
    std::optional<A11yQuery> a11y;
    bool raise = false;
    bool focus = true;
    std::shared_ptr<const TargetSpec> anchor;
    RelQuery relative;
    std::vector<TargetSpec> alternatives;

    /// True for targets that are searched for (an image, a text, an a11y element or a relative
    /// target), not points.
    bool searched() const { return image.has_value() || text.has_value() || a11y.has_value() || anchor != nullptr; }

    /// "image", "text", "a11y", "relative" or "point": what kind of target this is, as a match
    /// found by an alternative is logged ("alt:text").
    const char* kindName() const {
        if (anchor) return "relative";
        if (a11y) return "a11y";
        if (text) return "text";
        if (image) return "image";
        return "point";
    }
};

}  // namespace eacu
