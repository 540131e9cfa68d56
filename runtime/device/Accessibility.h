// The accessibility tree of a device's screen (the element trees toolkits export for screen
// readers), without any platform type: AT-SPI2 implements it in device/atspi/; Windows UI
// Automation or Android's uiautomator could follow.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "geometry/Rect.h"

namespace eacu {

/// One element of an accessibility tree.
/// - `role`: the toolkit-neutral role name, lower case as AT-SPI spells it ("push button",
///   "text", "check box", "menu item", "frame", "application").
/// - `name`, `description`: the accessible name and description (UTF-8; may be empty).
/// - `value`: what a field holds, where the tree gives it (UTF-8; "" when it does not): the
///   agent's UI Automation ValuePattern value or MSAA accValue, the web page's AX value.
///   AT-SPI's and uiautomator's trees leave it empty (AT-SPI reads it through text()).
/// - `states`: state names ("enabled", "focusable", "focused", "showing", "visible",
///   "editable", "checked", "sensitive", ...).
/// - `bounds`: the element on the screen, physical pixels; empty (w = h = 0) when it has no
///   extent or is not on the screen.
/// - `actions`: the names of the actions it can do ("click", "press", "activate", "toggle").
/// - `editable_text`: it accepts its whole text being set (AT-SPI EditableText).
/// - `path`: where it is in the tree: the application's index on the desktop, then the child
///   index at each level (what Accessibility::doAction and setText take back).
/// - `pid`: the process of its application (0 when unknown); `app`: that application's name.
/// - `id`: the toolkit's stable identifier when it has one (Android's resource-id,
///   "com.example:id/send"); "" else.
struct A11yElement {
    std::string role;
    std::string name;
    std::string description;
    std::string value;
    std::string id;
    std::vector<std::string> states;
    Rect bounds;
    std::vector<std::string> actions;
    bool editable_text = false;
    std::vector<int> path;
    int pid = 0;
    std::string app;
    std::vector<A11yElement> children;

    /// True when `states` holds `state`.
    bool has(const std::string& state) const {
        for (const auto& s : states)
            if (s == state) return true;
        return false;
    }
};

/// The text field that has the keyboard focus in `root` (a snapshot), or nullptr: an element
/// with editable text and the state "focused". When some window (a child of an application)
/// has the state "active" (AT-SPI marks the window with the keyboard focus so), only fields in
/// an active window count: a background window's entry keeps its "focused" state.
const A11yElement* focusedTextField(const A11yElement& root);

/// True when `field` takes a secret: the role "password text" (AT-SPI) or the state
/// "password" (Android).
bool isPasswordField(const A11yElement& field);

/// The text a text element holds now.
/// - `text`: its whole text (UTF-8; a password field's as the toolkit shows it, e.g. bullets).
/// - `caret`: the caret's offset in characters (code points) from the start; -1 when unknown.
/// - `sel_start`, `sel_end`: the selected characters [sel_start, sel_end); both -1 when nothing
///   is selected or it is unknown.
struct A11yText {
    std::string text;
    int caret = -1;
    int sel_start = -1;
    int sel_end = -1;
};

/// Which part of the tree a snapshot reads: every application (`pid` 0) or the one of
/// process `pid`; at most `max_elements` elements (the rest is cut, `truncated` is set on
/// the root) and `max_depth` levels. `deadline`: the deadline of the step asking (monotonic
/// seconds, base/Clock.h), the same one its locate loop waits to: a tree that cannot be read
/// yet (Android's "could not get idle state" while the screen animates) is tried again until
/// then, never longer; 0 = one attempt (no step is waiting).
struct A11yScope {
    int pid = 0;
    int max_elements = 5000;
    int max_depth = 40;
    double deadline = 0;
};

/// Reading and acting on a device's accessibility tree. Every method throws DeviceError when
/// the accessibility bus cannot be reached (the message says which bus and how to get one,
/// e.g. --display virtual), or when an element is gone.
class Accessibility {
public:
    virtual ~Accessibility() = default;

    /// The tree now: a root of role "desktop frame" whose children are the applications (role
    /// "application", with `pid` and `app`), each with its windows and their elements. A
    /// `scope.pid` with no application in the tree gives a root with no children.
    virtual A11yElement snapshot(const A11yScope& scope = {}) = 0;
    /// Does the action `action` (one of the element's `actions`) of the element at
    /// `element.path`. Throws DeviceError when the element at that path is no longer the same
    /// (role and name differ) or is gone, or when it has no such action (the message lists
    /// the ones it has), or when the toolkit refuses.
    virtual void doAction(const A11yElement& element, const std::string& action) = 0;
    /// Replaces the whole text of the editable element at `element.path` by `utf8`. Throws
    /// DeviceError like doAction, and when the element's text is not editable.
    virtual void setText(const A11yElement& element, const std::string& utf8) = 0;
    /// The text of `element` as the snapshot it comes from read it, when the snapshot carries
    /// it (adb: an EditText's text is its name), so no second read is needed; std::nullopt
    /// else (the default: call readText()).
    virtual std::optional<A11yText> snapshotText(const A11yElement& element) const {
        (void)element;
        return std::nullopt;
    }
    /// True when readText() can give an element's text (false: it always gives std::nullopt, and
    /// a caller need not read the tree to find a field first).
    virtual bool readsText() const { return false; }
    /// The text (and caret) of the text element at `element.path` now, read live (not from a
    /// snapshot). std::nullopt when this tree cannot give an element's text (the default).
    /// Throws DeviceError like doAction when the element is gone (its role differs; the name
    /// is not compared: a field's name may be its text).
    virtual std::optional<A11yText> readText(const A11yElement& element) {
        (void)element;
        return std::nullopt;
    }
};

}  // namespace eacu
