// Typed text arrives whole (issue 36, item 7): the one check every device's `input` and
// `set_text` steps make, reading the field back through the device's accessibility tree, else
// looking for the typed text on the screen.
#pragma once
#include <optional>
#include <string>

#include <opencv2/core.hpp>

#include "device/Accessibility.h"
#include "device/Device.h"

namespace eacu {

/// What a text field must hold after text was typed into it or set.
/// - `exact`: the field's whole text must be this (the caret was known, or set_text);
/// - else the field must contain `contains` (the caret was unknown: Android's tree, whose
///   text is a hint while the field is empty).
/// - `secret`: only lengths in characters are compared: exactly `length` (exact), at least
///   `length` (contains). No text of a secret rule is ever written anywhere.
struct TypedRule {
    std::optional<std::string> exact;
    std::string contains;
    bool secret = false;
    size_t length = 0;
};

/// The rule for `typed` typed into a field that held `before` (std::nullopt: not read):
/// - caret known (0 <= caret <= length of before.text, in characters): `typed` replaces the
///   selection [sel_start, sel_end) when there is one, else is inserted at the caret; the
///   field must then hold exactly before[0, s) + typed + before[e, end);
/// - caret unknown, or no before: the field must contain `typed`.
/// `secret`: lengths only (TypedRule). Throws std::invalid_argument on invalid UTF-8.
TypedRule typedRule(const std::optional<A11yText>& before, const std::string& typed, bool secret);
/// The rule for set_text of `text`: the field holds exactly `text` (`secret`: its length).
TypedRule setTextRule(const std::string& text, bool secret);
/// True when a field holding `now` satisfies `rule` (invalid UTF-8 in `now` never does).
bool typedHolds(const TypedRule& rule, const std::string& now);
/// What `rule` expects, for messages: "\"张三abc\"", "text containing \"abc\"", "8 characters",
/// "at least 8 characters".
std::string describeRule(const TypedRule& rule);
/// What a field holding `now` holds, for messages: "\"张三ab\"" (clipped to 200 bytes), or
/// "5 characters" when `secret`.
std::string describeHeld(const std::string& now, bool secret);

/// The check around one input or set_text step: the field read before the text is sent, then
/// read again after until it holds what was sent. Nothing is checked (never a failure) when the
/// device has no tree, no text field has the focus in it, its text cannot be read, the text has
/// Return or Tab ("\n", "\t": keys that may act, not type) or the field is gone afterwards;
/// note() then says "not checked: " and why.
class TypedCheck {
public:
    /// Before an input of `text` on `device`: reads the focused text field (focusedTextField)
    /// and its text. `secret`: the script marked the text secret. Reads the tree within the
    /// thread's IoBound (the step's deadline).
    static TypedCheck forInput(Device& device, const std::string& text, bool secret);
    /// Before set_text of `text` into `element` (found in the tree).
    static TypedCheck forSetText(Device& device, const A11yElement& element, const std::string& text);
    /// A check that is off: note() is "not checked: " + `why`.
    static TypedCheck off(const std::string& why);
    /// The tree cannot check an input of `text` (`why`): off, but onScreen() will look for the
    /// text where the screen changed, unless `secret`.
    static TypedCheck screenOnly(const std::string& text, bool secret, const std::string& why);

    /// True when there is a field to check.
    bool active() const { return field_.has_value(); }
    /// True when the field is a password field (isPasswordField): the text is then a secret.
    bool fieldSecret() const { return field_ && isPasswordField(*field_); }
    /// "not checked: <why>", "checked: ..." after a check that held, "" before after().
    const std::string& note() const { return note_; }

    /// After the text was sent: reads the field until it holds what the rule expects, every
    /// 0.1 s for up to `own_timeout` seconds, never past the thread's IoBound (ioWaitEnd);
    /// throws Cancelled when the run is. Returns std::nullopt when it holds or nothing is
    /// checked (note() says which), else the failure: "the focused text field \"Name\" holds
    /// \"张三ab\" after 10.0 s, expected \"张三abc\"" (a secret's by length only).
    std::optional<std::string> after(double own_timeout = 10);

    /// Where the tree could not check (screenOnly): reads the text on the screen instead, the
    /// way a text target is found (OcrCache, findText at TextFindOptions' threshold, the
    /// language set OcrEngine::langsFor picks: the whole frame read, per frame), among the
    /// lines read that touch a place where `after` differs from `before` (the step's frames,
    /// BGR, physical pixels; changedRegions).
    /// Never a failure, as OCR misreads: note() says "checked on the screen: ..." when the
    /// text reads there, else "not confirmed on the screen: ..." with what OCR read there, or
    /// that the screen did not change. `secret` (the step's text became a secret): nothing is
    /// read. Does nothing for a check that is not screenOnly. Costs a text target's OCR of the
    /// frame: whole the first time, then only its changed lines (the engine's own reuse).
    void onScreen(const cv::Mat& before, const cv::Mat& after, bool secret);

private:
    Device* device_ = nullptr;
    std::optional<A11yElement> field_;
    TypedRule rule_;
    bool secret_ = false;
    bool keys_ = false;  // typed as keys into the focused field (input), not set through the tree
    std::optional<std::string> screen_text_;  // screenOnly: the text onScreen() looks for
    std::string tree_why_;                    // screenOnly: why the tree could not check
    std::string note_;
};

}  // namespace eacu
