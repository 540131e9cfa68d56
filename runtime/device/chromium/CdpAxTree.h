// A web page's accessibility tree as Chromium's DevTools give it (Accessibility.getFullAXTree),
// placed on the screen with the page's layout (DOMSnapshot.captureSnapshot): the element model
// of device/Accessibility.h for browser devices.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "device/Accessibility.h"
#include "geometry/Rect.h"

namespace eacu {

/// The page a tree is read on: its viewport in CSS pixels and device scale (physical pixels =
/// CSS pixels × scale, as the chromium device's frames), the application's name and process
/// for the tree's "application" level, and `who` for errors ("chromium (pid 42)").
struct CdpTreeView {
    Size viewport{1280, 800};
    double scale = 1.0;
    std::string app = "chromium";
    int pid = 0;
    std::string who = "chromium";
};

/// A parsed tree and the page's DOM node (its backendDOMNodeId) behind each element, by path.
struct CdpTree {
    A11yElement root;
    std::map<std::vector<int>, int64_t> nodes;
};

/// The toolkit-neutral role (A11yElement::role, AT-SPI's spelling) of a Chromium AX role, one
/// table: "button" → "push button", "textbox" and "searchbox" → "text", "checkbox" → "check
/// box", "radio" → "radio button", "link", "heading", "combobox" → "combo box", "listbox" →
/// "list box", "option" and "listitem" → "list item", "img"/"image" → "image", "menuitem" →
/// "menu item", "tab" → "page tab", "switch" → "toggle switch", "row" → "table row", "cell" and
/// "gridcell" → "table cell", "LabelText" → "label", "StaticText" → "static", "RootWebArea" →
/// "document web", "generic" → "section", landmarks (main, navigation, banner, ...) →
/// "landmark"; any other role lower-cased as Chromium spells it.
std::string roleForAxRole(const std::string& ax_role);

/// Builds the tree from an Accessibility.getFullAXTree answer `ax` ({nodes: [AXNode]}) and a
/// DOMSnapshot.captureSnapshot answer `snapshot` (its first document: the page's main frame).
/// The root is a "desktop frame" with one "application" (`view.app`, `view.pid`, named by the
/// page's title) holding the page's "document web". Ignored AX nodes (not rendered,
/// aria-hidden, presentational) are left out and their children take their place, as are
/// InlineTextBox nodes, a StaticText whose text its parent's name already holds (a button's
/// label) and the children of roles whose children are presentational (push button, check
/// box, radio button, image, slider, text fields, ...). A "label" without a name is named by
/// its text. Each element: `name` and `description` from the AX node; `id` the DOM element's
/// id attribute; states "enabled" and "sensitive" (unless disabled), "focusable", "focused",
/// "editable" (an editable node, not read-only), "checkable" and "checked", "expanded",
/// "selected", "required", "multi line", "password" (an <input type=password>, whose role is
/// then "password text"), "visible" (it has a box) and "showing" (the box meets the viewport);
/// `bounds` the part of its box in the viewport in physical pixels (empty when none: not
/// rendered or scrolled away); actions "click" (interactive roles, DOM nodes Chromium finds
/// clickable, focusable ones) and "focus" (focusable ones); `editable_text` for an editable
/// node not inside another editable one. At most `scope.max_elements` elements below the root
/// and `scope.max_depth` levels (then "truncated" on the root); `scope.pid` other than 0 and
/// `view.pid` gives a root without children. Throws DeviceError("WHO: Accessibility.getFullAXTree:
/// ...", or DOMSnapshot.captureSnapshot) naming what was expected and what came when either
/// answer is not of that shape.
CdpTree parseCdpAxTree(const nlohmann::json& ax, const nlohmann::json& snapshot, const CdpTreeView& view,
                       const A11yScope& scope = {});

}  // namespace eacu
