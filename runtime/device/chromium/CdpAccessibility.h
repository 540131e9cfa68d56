// The accessibility tree of a chromium/cdp device's page: Chromium's own (the one screen readers
// get), read over the DevTools protocol.
#pragma once
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

    /// The tree and each element's DOM node (snapshot() without dropping the nodes).
    CdpTree read(const A11yScope& scope);

private:
    // The DOM node of the element at `element.path` in a fresh tree, checked to be the same;
    // `now` gets that element.
    int64_t current(const A11yElement& element, A11yElement& now);
    ChromiumDevice& device_;
};

}  // namespace eacu
