// Android's `uiautomator dump` XML as the element model of device/Accessibility.h.
#pragma once
#include <string>

#include "device/Accessibility.h"

namespace eacu {

/// The role eacu gives an Android view class ("android.widget.Button" → "push button",
/// EditText → "text", TextView → "label", CheckBox → "check box", Switch → "toggle switch",
/// ImageView → "image", layouts and other views → "panel", ...): AT-SPI's spelling, so the same
/// targets work on both.
std::string roleForAndroidClass(const std::string& cls);

/// Parses a `<hierarchy rotation=...>` document into a tree: a root of role "desktop frame"
/// whose children are one "application" per package (in the order they first appear; `app` the
/// package), each holding that package's top-level nodes. Each node: role from its class,
/// `name` its text (else its content-desc), `description` its content-desc when it has text,
/// `id` its resource-id, `bounds` from "[x1,y1][x2,y2]", states (enabled, sensitive, focusable,
/// focused, checkable, checked, selected, scrollable, editable and password where set; showing
/// and visible when its bounds are not empty), actions ("click" when clickable, "long_click"
/// when long-clickable, "scroll" when scrollable), editable_text for an EditText, and `path` the
/// child indexes from the root. At most `scope.max_elements` elements and `scope.max_depth`
/// levels. Throws std::runtime_error("uiautomator dump: ...") when it is not such a document.
A11yElement parseUiautomatorXml(const std::string& xml, const A11yScope& scope = {});

}  // namespace eacu
