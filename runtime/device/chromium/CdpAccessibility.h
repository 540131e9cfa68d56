// The accessibility tree of a chromium/cdp device's page: Chromium's own (the one screen readers
// get), read over the DevTools protocol.
#pragma once
#include <optional>
#include <string>

#include "device/Accessibility.h"
#include "device/chromium/CdpAxTree.h"

namespace eacu {

class ChromiumDevice;

/// Accessibility (device/Accessibility.h) on a ChromiumDevice's page. snapshot() is two
/// DevTools calls whatever the page's size: Accessibility.getFullAXTree (the page's main frame;
/// the documents of iframes are not read) and DOMSnapshot.captureSnapshot (every DOM node's
/// layout box at once, instead of a DOM.getBoxModel per node), parsed by parseCdpAxTree: boxes
/// in physical pixels (CSS pixels × the device's scale). Each call goes through the device's
/// call path (ChromiumDevice::call: the page-gone check, DeviceWait's bound by the step's
/// deadline and the run's token), with what is left of `scope.deadline` (at least 2 s: a page's first read makes Chromium build
/// its tree; 30 s without a deadline).
/// doAction() and setText() first read the tree again and check that the element at that path
/// is still the same (role and name), then act on its DOM node: "click" is
/// DOM.scrollIntoViewIfNeeded, DOM.getContentQuads and a left click at the centre of its first
/// quad through the device's Input events (the pointer moves there, as a person's click);
/// "focus" is DOM.focus. setText() is DOM.focus, select-all (Ctrl+A as key events), then
/// Input.insertText of the new text (BackSpace for ""), so the page sees input events as from
/// typing. Thread-safe (it keeps no state): the studio's capture thread reads trees while a
/// step acts.
class CdpAccessibility : public Accessibility {
public:
    explicit CdpAccessibility(ChromiumDevice& device);

    A11yElement snapshot(const A11yScope& scope = {}) override;
    void doAction(const A11yElement& element, const std::string& action) override;
    void setText(const A11yElement& element, const std::string& utf8) override;
    bool readsText() const override { return true; }
    /// The text of the element's DOM node read by the page itself (DOM.resolveNode, then
    /// Runtime.callFunctionOn): an input's or textarea's value with its caret and selection
    /// (converted from UTF-16 units to characters; none for input types without a selection, such
    /// as email or number), else the node's innerText (a contenteditable; no caret). Throws
    /// DeviceError when the element at that path is no longer the same role (its name is not
    /// compared) or the page does not answer.
    std::optional<A11yText> readText(const A11yElement& element) override;

    /// The tree and each element's DOM node (snapshot() without dropping the nodes).
    CdpTree read(const A11yScope& scope);

private:
    // The DOM node of the element at `element.path` in a fresh tree, checked to be the same;
    // `now` gets that element.
    // `check_name`: the name must be the same too (readText() compares the role only: a field's
    // name may come from its text).
    int64_t current(const A11yElement& element, A11yElement& now, bool check_name = true);
    ChromiumDevice& device_;
};

}  // namespace eacu
