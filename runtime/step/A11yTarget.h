// Finding an element of an accessibility tree by role and name, for a11y targets.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "device/Accessibility.h"

namespace eacu {

/// An a11y target: an element found by its `role` and/or accessible `name` (either may be
/// absent, not both). `press`: "" taps at the centre of its bounds with the pointer; "*"
/// calls its default action (the first of click, press, activate, toggle, jump it has, else
/// its first action); another value calls that named action. `editable`: only elements whose
/// text can be set (set_text), also found through a label of that name beside them. `id`: the
/// element's toolkit id (A11yElement::id, Android's resource-id), whole ("com.example:id/send")
/// or the part after ":id/" ("send"); it may stand alone or narrow role and name.
/// The role "button" also finds "push button" (Android's and the web's word for it).
/// `value`: only an element holding that value (A11yElement::value, what a field holds where
/// the tree gives it), compared as names are; it narrows role, name or id, never stands alone
/// (a verify of what a field holds: `{ role = "text", name = "姓名", value = "张三" }`).
struct A11yQuery {
    std::optional<std::string> role;
    std::optional<std::string> name;
    std::string press;
    bool editable = false;
    std::optional<std::string> id;
    std::optional<std::string> value;
};

/// What findElement found: `element` (when found), `how` ("name", "similar name", "label":
/// through the label beside it) and, when not found, `why`: what was sought, the
/// applications in the tree and the names of interactive elements closest to the name
/// sought (a sentence for error messages).
struct A11yFound {
    std::optional<A11yElement> element;
    std::string how;
    std::string why;
};

/// Names are compared exactly first, then without case, surrounding spaces, mnemonic
/// underscores and a trailing ':' (how toolkits decorate labels). Among several matches the
/// first in tree order that is showing with non-empty bounds wins, interactive ones (with
/// actions or editable text) before others.
A11yFound findElement(const A11yElement& root, const A11yQuery& q);

/// The action `q.press` asks for on `e` ("*": its default, see A11yQuery). Throws
/// std::invalid_argument when `e` has no such action (listing the ones it has).
std::string chooseAction(const A11yElement& e, const A11yQuery& q);

/// True for elements a person acts on: buttons, entries, check and radio boxes, menu items,
/// combo boxes, links, tabs, sliders, spin buttons, toggle buttons, list and tree items, or
/// any element with actions or editable text.
bool isInteractive(const A11yElement& e);
/// True for the roles isInteractive counts by role alone (the list above); an element of any
/// other role is interactive only by its actions or editable text.
bool interactiveRole(const std::string& role);

/// The name of the label an unnamed editable element `e` sits beside (the label whose editable
/// element, as findElement finds it by that label, is `e`), or "" when none. `all`: flatten().
std::string labelOf(const A11yElement& e, const std::vector<const A11yElement*>& all);

/// Every element of the tree in order (depth first), without the root.
std::vector<const A11yElement*> flatten(const A11yElement& root);

/// How a query is written in messages and the run log: {role="push button", name="OK"}.
std::string describeQuery(const A11yQuery& q);

}  // namespace eacu
