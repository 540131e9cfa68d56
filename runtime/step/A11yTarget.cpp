#include "step/A11yTarget.h"

#include <algorithm>
#include <cctype>
#include <set>
#include <stdexcept>

namespace eacu {

namespace {

std::string lower(std::string s) {
    for (char& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

// A name as compared loosely: ASCII lower case, no mnemonic underscores, no surrounding
// spaces, no trailing ':'.
std::string loose(const std::string& s) {
    std::string out;
    for (char c : s)
        if (c != '_') out += c;
    out = lower(out);
    while (!out.empty() && (out.back() == ' ' || out.back() == ':' || out.back() == '\n')) out.pop_back();
    size_t b = 0;
    while (b < out.size() && out[b] == ' ') ++b;
    return out.substr(b);
}

// Levenshtein distance over bytes, for ranking names in messages.
size_t distance(const std::string& a, const std::string& b) {
    std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
    for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
    for (size_t i = 1; i <= a.size(); ++i) {
        cur[0] = i;
        for (size_t j = 1; j <= b.size(); ++j)
            cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
        std::swap(prev, cur);
    }
    return prev[b.size()];
}

void collect(const A11yElement& e, std::vector<const A11yElement*>& out) {
    for (const auto& c : e.children) {
        out.push_back(&c);
        collect(c, out);
    }
}

bool onScreen(const A11yElement& e) { return !e.bounds.empty() && e.has("showing"); }

bool editable(const A11yElement& e) { return e.editable_text && (e.has("editable") || e.states.empty()); }

// The best of `cands` (tree order): on screen and interactive first.
const A11yElement* best(const std::vector<const A11yElement*>& cands) {
    const A11yElement* pick = nullptr;
    int pick_rank = -1;
    for (const A11yElement* e : cands) {
        int rank = (onScreen(*e) ? 2 : 0) + (isInteractive(*e) ? 1 : 0);
        if (rank > pick_rank) {
            pick = e;
            pick_rank = rank;
        }
    }
    return pick;
}

// The editable element beside the label `l`: on its row to its right (vertical centre within
// the label's height), else below it, nearest first.
const A11yElement* besideLabel(const A11yElement& l, const std::vector<const A11yElement*>& all,
                               long* distance = nullptr) {
    if (l.bounds.empty()) return nullptr;
    const A11yElement* pick = nullptr;
    long pick_d = 0;
    Point lc = l.bounds.center();
    for (const A11yElement* e : all) {
        if (!editable(*e) || !onScreen(*e)) continue;
        Point c = e->bounds.center();
        long d;
        if (c.y >= l.bounds.y && c.y < l.bounds.y + l.bounds.h && e->bounds.x >= l.bounds.x + l.bounds.w / 2)
            d = e->bounds.x - (l.bounds.x + l.bounds.w);
        else if (e->bounds.y >= l.bounds.y + l.bounds.h / 2 && std::abs(c.x - lc.x) < 400)
            d = 100000 + (e->bounds.y - l.bounds.y) + std::abs(e->bounds.x - l.bounds.x);
        else
            continue;
        if (!pick || std::abs(d) < pick_d) {
            pick = e;
            pick_d = std::abs(d);
        }
    }
    if (distance) *distance = pick_d;
    return pick;
}

}  // namespace

bool interactiveRole(const std::string& role) {
    static const std::set<std::string> roles = {
        "push button", "toggle button", "check box", "radio button", "menu item", "check menu item",
        "radio menu item", "combo box", "text", "entry", "password text", "spin button", "slider",
        "link", "page tab", "list item", "tree item", "table cell", "menu", "toggle switch", "button"};
    return roles.count(role) > 0;
}

bool isInteractive(const A11yElement& e) {
    if (e.role == "application" || e.role == "frame" || e.role == "desktop frame") return false;
    return interactiveRole(e.role) || !e.actions.empty() || e.editable_text;
}

std::string labelOf(const A11yElement& e, const std::vector<const A11yElement*>& all) {
    // The nearest of the labels that point at it (one on its row before one above it).
    std::string name;
    long best = 0;
    for (const A11yElement* l : all) {
        if (l->role != "label" || l->name.empty() || !onScreen(*l)) continue;
        long d = 0;
        const A11yElement* b = besideLabel(*l, all, &d);
        if (b && b->path == e.path && b->bounds == e.bounds && (name.empty() || d < best)) {
            name = l->name;
            best = d;
        }
    }
    return name;
}

std::vector<const A11yElement*> flatten(const A11yElement& root) {
    std::vector<const A11yElement*> out;
    collect(root, out);
    return out;
}

std::string describeQuery(const A11yQuery& q) {
    std::string s = "{";
    if (q.role) s += "role=\"" + *q.role + "\"";
    if (q.name) s += std::string(q.role ? ", " : "") + "name=\"" + *q.name + "\"";
    if (q.id) s += std::string(q.role || q.name ? ", " : "") + "resource_id=\"" + *q.id + "\"";
    if (q.value) s += std::string(q.role || q.name || q.id ? ", " : "") + "value=\"" + *q.value + "\"";
    return s + "}";
}

A11yFound findElement(const A11yElement& root, const A11yQuery& q) {
    if (!q.role && !q.name && !q.id)
        throw std::invalid_argument("an a11y target needs role=, name= or resource_id=, got none of them");
    std::vector<const A11yElement*> all = flatten(root);
    auto roleOk = [&](const A11yElement& e) {
        return !q.role || lower(e.role) == lower(*q.role) || (lower(*q.role) == "button" && e.role == "push button");
    };
    auto idOk = [&](const A11yElement& e) {
        if (!q.id) return true;
        size_t at = e.id.find(":id/");
        return e.id == *q.id || (at != std::string::npos && e.id.compare(at + 4, std::string::npos, *q.id) == 0);
    };
    auto valueOk = [&](const A11yElement& e) {
        return !q.value || e.value == *q.value || loose(e.value) == loose(*q.value);
    };
    auto kindOk = [&](const A11yElement& e) { return (!q.editable || editable(e)) && idOk(e) && valueOk(e); };
    A11yFound f;
    std::vector<const A11yElement*> exact, similar;
    for (const A11yElement* e : all) {
        if (e->role == "application" || !roleOk(*e) || !kindOk(*e)) continue;
        if (!q.name) exact.push_back(e);
        else if (e->name == *q.name) exact.push_back(e);
        else if (!q.name->empty() && loose(e->name) == loose(*q.name)) similar.push_back(e);
    }
    if (const A11yElement* e = best(exact.empty() ? similar : exact)) {
        f.element = *e;
        f.how = exact.empty() ? "similar name" : "name";
        return f;
    }
    // An entry is often named by the label beside it rather than by its own name.
    if (q.editable && q.name) {
        std::vector<const A11yElement*> labels;
        for (const A11yElement* e : all)
            if (!editable(*e) && (e->name == *q.name || loose(e->name) == loose(*q.name))) labels.push_back(e);
        for (const A11yElement* l : labels)
            if (const A11yElement* e = besideLabel(*l, all)) {
                f.element = *e;
                f.how = "label";
                return f;
            }
    }

    // Not found: say what the tree holds.
    std::vector<std::string> apps;
    for (const auto& a : root.children) apps.push_back(a.app.empty() ? "pid " + std::to_string(a.pid) : a.app);
    std::string what = (q.editable ? "no editable element " : "no element ") + describeQuery(q);
    if (q.value) {  // the element is there, holding something else
        A11yQuery without = q;
        without.value.reset();
        without.editable = false;
        if (q.role || q.name || q.id)
            if (A11yFound other = findElement(root, without); other.element) {
                f.why = what + ": the " + other.element->role + " \"" + other.element->name + "\" holds \"" +
                        other.element->value + "\"";
                return f;
            }
    }
    if (root.children.empty()) {
        f.why = what + ": the accessible tree is empty (no program here exports one; programs without a tree "
                       "are found by image or text targets)";
        return f;
    }
    std::vector<std::pair<size_t, std::string>> names;
    std::set<std::string> seen;
    std::string sought = q.name ? loose(*q.name) : "";
    for (const A11yElement* e : all) {
        if (!isInteractive(*e) && e->role != "label") continue;
        if (e->name.empty() && !q.editable) continue;
        std::string shown = e->name.substr(0, e->name.find('\n'));
        if (shown.size() > 40) shown = shown.substr(0, 40) + "...";
        else if (shown.size() < e->name.size()) shown += "...";
        std::string text = "\"" + shown + "\" (" + e->role + ")";
        if (!seen.insert(text).second) continue;
        names.push_back({q.name ? distance(loose(e->name), sought) : 0, text});
    }
    std::stable_sort(names.begin(), names.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    std::string near;
    for (size_t i = 0; i < names.size() && i < 8; ++i) near += (i ? ", " : "") + names[i].second;
    std::string app_list;
    for (size_t i = 0; i < apps.size(); ++i) app_list += (i ? ", " : "") + apps[i];
    f.why = what + " in the accessible tree of " + app_list + "; nearby names: " + (near.empty() ? "none" : near);
    return f;
}

std::string chooseAction(const A11yElement& e, const A11yQuery& q) {
    auto list = [&] {
        std::string s;
        for (const auto& a : e.actions) s += (s.empty() ? "" : ", ") + a;
        return s.empty() ? std::string("none") : s;
    };
    if (q.press.empty() || q.press == "*") {
        for (const char* pref : {"click", "press", "activate", "toggle", "jump"})
            for (const auto& a : e.actions)
                if (a == pref) return a;
        if (!e.actions.empty()) return e.actions.front();
        throw std::invalid_argument(e.role + " \"" + e.name + "\" has no action to press (actions: none); tap it "
                                    "without press = true to click its centre");
    }
    for (const auto& a : e.actions)
        if (a == q.press) return a;
    throw std::invalid_argument(e.role + " \"" + e.name + "\": expected one of its actions (" + list() + "), got \"" +
                                q.press + "\"");
}

}  // namespace eacu
