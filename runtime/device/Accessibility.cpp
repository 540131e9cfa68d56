#include "device/Accessibility.h"

namespace eacu {

namespace {

const A11yElement* focusedFieldUnder(const A11yElement& e) {
    if (e.editable_text && e.has("focused")) return &e;
    for (const A11yElement& c : e.children)
        if (const A11yElement* f = focusedFieldUnder(c)) return f;
    return nullptr;
}

}  // namespace

const A11yElement* focusedTextField(const A11yElement& root) {
    bool any_active = false;
    for (const A11yElement& app : root.children)
        for (const A11yElement& w : app.children) any_active = any_active || w.has("active");
    if (!any_active) return focusedFieldUnder(root);
    for (const A11yElement& app : root.children)
        for (const A11yElement& w : app.children)
            if (w.has("active"))
                if (const A11yElement* f = focusedFieldUnder(w)) return f;
    return nullptr;
}

bool isPasswordField(const A11yElement& field) { return field.role == "password text" || field.has("password"); }

}  // namespace eacu
