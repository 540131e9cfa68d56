#include "device/chromium/CdpAxTree.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <unordered_map>

#include "device/Device.h"
#include "device/PeerJson.h"

namespace eacu {

namespace {

using nlohmann::json;

// Levels of the AX tree followed at most (ignored nodes included): a hostile answer's chain
// of ignored nodes must not exhaust the stack.
constexpr int kMaxAxLevels = 512;

// One AX node as read from the answer.
struct AxNode {
    std::string role;  // Chromium's ("button", "StaticText")
    std::string name;
    std::string description;
    std::string value;  // a field's AX value (what it holds)
    bool ignored = false;
    int64_t backend = 0;
    std::vector<std::string> children;
    std::map<std::string, json> props;  // property name -> its AXValue's value
};

// The page's layout of one DOM node (CSS pixels, viewport coordinates).
struct DomBox {
    bool has_box = false;
    double x = 0, y = 0, w = 0, h = 0;
    std::string dom_id;
    std::string input_type;
    bool clickable = false;
};

std::string axLower(std::string s) {
    for (char& c : s)
        if (c >= 'A' && c <= 'Z') c = char(c - 'A' + 'a');
    return s;
}

std::string axTrim(const std::string& s) {
    size_t b = s.find_first_not_of(" \t\n\r"), e = s.find_last_not_of(" \t\n\r");
    return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

// `v` as JSON text, at most 60 characters (for messages).
std::string axClipDump(const json& v) {
    std::string s = v.dump();
    return s.size() > 60 ? s.substr(0, 57) + "..." : s;
}

// The AXValue `key` of `node` as a string ("" when absent); a number or boolean as JSON spells it.
std::string axValueString(const json& node, const char* key, const std::string& who) {
    const json& v = peerObject(node, key, who);
    if (!v.is_object() || !v.contains("value") || v["value"].is_null()) return "";
    const json& x = v["value"];
    if (x.is_string()) return x.get<std::string>();
    if (x.is_number() || x.is_boolean()) return x.dump();
    throw DeviceError(who + ": field \"" + key + "\" should hold a string value, got " + axClipDump(x));
}

bool axTruthy(const json& v) { return (v.is_boolean() && v.get<bool>()) || (v.is_string() && v.get<std::string>() == "true"); }

std::map<std::string, AxNode> readAxNodes(const json& ax, const std::string& who, std::string& root_id) {
    if (!ax.is_object()) throw DeviceError(who + ": expected an object {nodes: [...]}, got " + axClipDump(ax));
    const json& nodes = peerArray(ax, "nodes", who);
    std::map<std::string, AxNode> out;
    for (const json& n : nodes) {
        if (!n.is_object()) throw DeviceError(who + ": expected each node to be an object, got " + axClipDump(n));
        std::string id = peerString(n, "nodeId", who);
        if (id.empty()) throw DeviceError(who + ": a node without a nodeId: " + axClipDump(n));
        AxNode a;
        a.ignored = peerBool(n, "ignored", who);
        a.role = axValueString(n, "role", who);
        a.name = axValueString(n, "name", who);
        a.description = axValueString(n, "description", who);
        a.value = axValueString(n, "value", who);
        a.backend = peerInt(n, "backendDOMNodeId", who);
        a.children = peerStrings(n, "childIds", who);
        for (const json& p : peerArray(n, "properties", who)) {
            std::string pname = peerString(p, "name", who);
            const json& v = peerObject(p, "value", who);
            if (!pname.empty() && v.is_object() && v.contains("value")) a.props[pname] = v["value"];
        }
        if (root_id.empty() && peerString(n, "parentId", who).empty()) root_id = id;
        out.emplace(std::move(id), std::move(a));
    }
    if (out.empty()) throw DeviceError(who + ": expected the page's nodes, got none");
    if (root_id.empty()) throw DeviceError(who + ": no root node (every node has a parentId)");
    return out;
}

std::unordered_map<int64_t, DomBox> readLayout(const json& snap, const std::string& who) {
    std::unordered_map<int64_t, DomBox> out;
    if (!snap.is_object()) throw DeviceError(who + ": expected an object {documents, strings}, got " + axClipDump(snap));
    const json& docs = peerArray(snap, "documents", who);
    if (docs.empty()) return out;
    const std::vector<std::string> strings = peerStrings(snap, "strings", who);
    auto str = [&](int i) -> std::string {
        if (i < 0) return "";
        if (static_cast<size_t>(i) >= strings.size())
            throw DeviceError(who + ": string index " + std::to_string(i) + " out of range (" +
                              std::to_string(strings.size()) + " strings)");
        return strings[static_cast<size_t>(i)];
    };
    const json& doc = docs[0];
    if (!doc.is_object()) throw DeviceError(who + ": expected documents[0] to be an object, got " + axClipDump(doc));
    const json& nodes = peerObject(doc, "nodes", who);
    const std::vector<int> backend = peerInts(nodes, "backendNodeId", who);
    const json& attrs = peerArray(nodes, "attributes", who);
    for (size_t i = 0; i < backend.size(); ++i) {
        DomBox& b = out[backend[i]];
        if (i >= attrs.size()) continue;
        if (!attrs[i].is_array()) throw DeviceError(who + ": expected attributes[" + std::to_string(i) +
                                                    "] to be an array, got " + axClipDump(attrs[i]));
        for (size_t k = 0; k + 1 < attrs[i].size(); k += 2) {
            if (!attrs[i][k].is_number_integer() || !attrs[i][k + 1].is_number_integer())
                throw DeviceError(who + ": expected attributes to be string indexes, got " + axClipDump(attrs[i]));
            const std::string key = str(attrs[i][k].get<int>());
            if (key == "id") b.dom_id = str(attrs[i][k + 1].get<int>());
            else if (key == "type") b.input_type = axLower(str(attrs[i][k + 1].get<int>()));
        }
    }
    for (int i : peerInts(peerObject(nodes, "isClickable", who), "index", who))
        if (i >= 0 && static_cast<size_t>(i) < backend.size()) out[backend[static_cast<size_t>(i)]].clickable = true;
    const double sx = peerNumber(doc, "scrollOffsetX", who), sy = peerNumber(doc, "scrollOffsetY", who);
    const json& layout = peerObject(doc, "layout", who);
    const std::vector<int> index = peerInts(layout, "nodeIndex", who);
    const json& bounds = peerArray(layout, "bounds", who);
    for (size_t k = 0; k < index.size() && k < bounds.size(); ++k) {
        const json& r = bounds[k];
        if (!r.is_array() || r.size() != 4 || !r[0].is_number() || !r[1].is_number() || !r[2].is_number() ||
            !r[3].is_number())
            throw DeviceError(who + ": expected layout bounds [x, y, width, height], got " + axClipDump(r));
        if (index[k] < 0 || static_cast<size_t>(index[k]) >= backend.size())
            throw DeviceError(who + ": layout node index " + std::to_string(index[k]) + " out of range (" +
                              std::to_string(backend.size()) + " nodes)");
        DomBox& b = out[backend[static_cast<size_t>(index[k])]];
        b.x = r[0].get<double>() - sx;
        b.y = r[1].get<double>() - sy;
        b.w = r[2].get<double>();
        b.h = r[3].get<double>();
        b.has_box = std::isfinite(b.x) && std::isfinite(b.y) && std::isfinite(b.w) && std::isfinite(b.h) && b.w > 0 &&
                    b.h > 0;
    }
    return out;
}

bool axChildrenPresentational(const std::string& role) {
    static const std::set<std::string> roles = {"push button", "check box", "radio button", "image", "slider",
                                                "progress bar", "separator", "toggle switch", "text",
                                                "password text", "scroll bar", "check menu item",
                                                "radio menu item", "spin button", "static"};
    return roles.count(role) > 0;
}

bool axInteractiveRole(const std::string& role) {
    static const std::set<std::string> roles = {"push button", "link", "check box", "radio button", "combo box",
                                                "list item", "menu item", "check menu item", "radio menu item",
                                                "page tab", "toggle switch", "tree item", "text", "password text",
                                                "slider", "spin button"};
    return roles.count(role) > 0;
}

class AxBuilder {
public:
    AxBuilder(const std::map<std::string, AxNode>& ax, const std::unordered_map<int64_t, DomBox>& boxes,
            const CdpTreeView& view, const A11yScope& scope, CdpTree& out)
        : ax_(ax), boxes_(boxes), view_(view), scope_(scope), out_(out) {}

    // Adds the elements of `n`'s children to `parent` (at level `depth`), hoisting the children
    // of ignored nodes; `in_editable`: `parent` is (inside) an editable element.
    void addChildren(const AxNode& n, A11yElement& parent, int depth, int levels, bool in_editable) {
        if (levels >= kMaxAxLevels) {
            truncated = true;
            return;
        }
        for (const std::string& cid : n.children) {
            auto it = ax_.find(cid);
            if (it == ax_.end() || !seen_.insert(cid).second) continue;
            const AxNode& c = it->second;
            if (c.ignored || c.role == "InlineTextBox" || c.role == "none" || c.role == "presentation") {
                addChildren(c, parent, depth, levels + 1, in_editable);
                continue;
            }
            if (c.role == "StaticText") {
                std::string text = axTrim(c.name);
                if (text.empty() || parent.name.find(text) != std::string::npos) continue;
            }
            if (count >= scope_.max_elements) {
                truncated = true;
                return;
            }
            A11yElement e = element(c, parent, in_editable);
            add(c, std::move(e), parent, depth + 1, levels + 1, in_editable);
        }
    }

    // Adds `e` (of AX node `n`) to `parent` and reads its children.
    void add(const AxNode& n, A11yElement e, A11yElement& parent, int depth, int levels, bool in_editable) {
        ++count;
        e.path = parent.path;
        e.path.push_back(static_cast<int>(parent.children.size()));
        if (n.backend) out_.nodes[e.path] = n.backend;
        if (!axChildrenPresentational(e.role) && !n.children.empty()) {
            if (depth >= scope_.max_depth) truncated = true;
            else addChildren(n, e, depth, levels, in_editable || e.editable_text);
        }
        parent.children.push_back(std::move(e));
    }

    A11yElement element(const AxNode& n, const A11yElement& parent, bool in_editable) {
        A11yElement e;
        DomBox box;
        if (auto b = boxes_.find(n.backend); n.backend && b != boxes_.end()) box = b->second;
        e.role = roleForAxRole(n.role);
        if (e.role == "text" && box.input_type == "password") e.role = "password text";
        e.name = n.name;
        if (e.role == "label" && axTrim(e.name).empty()) e.name = axTrim(textOf(n, 0));
        e.description = n.description;
        e.value = n.value;
        e.id = box.dom_id;
        e.pid = parent.pid;
        e.app = parent.app;
        auto prop = [&](const char* k) -> const json* {
            auto p = n.props.find(k);
            return p == n.props.end() ? nullptr : &p->second;
        };
        const bool disabled = prop("disabled") && axTruthy(*prop("disabled"));
        const bool focusable = prop("focusable") && axTruthy(*prop("focusable"));
        const bool readonly = prop("readonly") && axTruthy(*prop("readonly"));
        const json* editable = prop("editable");
        const bool is_editable = editable && editable->is_string() && !editable->get<std::string>().empty() &&
                                 !readonly && !disabled;
        if (!disabled) e.states.insert(e.states.end(), {"enabled", "sensitive"});
        if (focusable) e.states.push_back("focusable");
        if (prop("focused") && axTruthy(*prop("focused"))) e.states.push_back("focused");
        if (is_editable) e.states.push_back("editable");
        if (const json* c = prop("checked")) {
            e.states.push_back("checkable");
            if (axTruthy(*c)) e.states.push_back("checked");
            else if (c->is_string() && c->get<std::string>() == "mixed") e.states.push_back("indeterminate");
        }
        for (const char* s : {"expanded", "selected", "required"})
            if (prop(s) && axTruthy(*prop(s))) e.states.push_back(s);
        if (prop("multiline") && axTruthy(*prop("multiline"))) e.states.push_back("multi line");
        if (e.role == "password text") e.states.push_back("password");
        if (box.has_box) {
            e.states.push_back("visible");
            e.bounds = onScreen(box);
            if (!e.bounds.empty()) e.states.push_back("showing");
        }
        if (axInteractiveRole(e.role) || box.clickable || focusable) e.actions.push_back("click");
        if (focusable) e.actions.push_back("focus");
        e.editable_text = is_editable && !in_editable;
        return e;
    }

    // The part of `b` in the viewport, physical pixels (empty when none).
    Rect onScreen(const DomBox& b) const {
        const double x0 = std::max(b.x, 0.0), y0 = std::max(b.y, 0.0);
        const double x1 = std::min(b.x + b.w, double(view_.viewport.w));
        const double y1 = std::min(b.y + b.h, double(view_.viewport.h));
        if (!(x1 > x0 && y1 > y0)) return {};
        const int px0 = int(std::lround(x0 * view_.scale)), py0 = int(std::lround(y0 * view_.scale));
        const int px1 = int(std::lround(x1 * view_.scale)), py1 = int(std::lround(y1 * view_.scale));
        if (px1 <= px0 || py1 <= py0) return {};
        return {px0, py0, px1 - px0, py1 - py0};
    }

    // The text of the StaticText nodes under `n`, in order (a label's words).
    std::string textOf(const AxNode& n, int levels) const {
        std::string s;
        if (levels >= 64) return s;
        for (const std::string& cid : n.children) {
            auto it = ax_.find(cid);
            if (it == ax_.end()) continue;
            const AxNode& c = it->second;
            std::string t = c.role == "StaticText" ? c.name : textOf(c, levels + 1);
            if (!t.empty()) s += (s.empty() ? "" : " ") + t;
            if (s.size() > 1000) break;
        }
        return s;
    }

    int count = 0;
    bool truncated = false;

private:
    const std::map<std::string, AxNode>& ax_;
    const std::unordered_map<int64_t, DomBox>& boxes_;
    const CdpTreeView& view_;
    const A11yScope& scope_;
    CdpTree& out_;
    std::set<std::string> seen_;
};

}  // namespace

std::string roleForAxRole(const std::string& ax_role) {
    static const std::map<std::string, std::string> table = {
        {"button", "push button"},
        {"textbox", "text"},
        {"searchbox", "text"},
        {"checkbox", "check box"},
        {"radio", "radio button"},
        {"link", "link"},
        {"heading", "heading"},
        {"combobox", "combo box"},
        {"listbox", "list box"},
        {"option", "list item"},
        {"list", "list"},
        {"listitem", "list item"},
        {"img", "image"},
        {"image", "image"},
        {"menu", "menu"},
        {"menubar", "menu bar"},
        {"menuitem", "menu item"},
        {"menuitemcheckbox", "check menu item"},
        {"menuitemradio", "radio menu item"},
        {"tab", "page tab"},
        {"tablist", "page tab list"},
        {"tabpanel", "panel"},
        {"table", "table"},
        {"grid", "table"},
        {"treegrid", "tree table"},
        {"row", "table row"},
        {"cell", "table cell"},
        {"gridcell", "table cell"},
        {"columnheader", "column header"},
        {"rowheader", "row header"},
        {"slider", "slider"},
        {"spinbutton", "spin button"},
        {"switch", "toggle switch"},
        {"progressbar", "progress bar"},
        {"scrollbar", "scroll bar"},
        {"separator", "separator"},
        {"dialog", "dialog"},
        {"alertdialog", "dialog"},
        {"alert", "alert"},
        {"tooltip", "tool tip"},
        {"toolbar", "tool bar"},
        {"status", "status bar"},
        {"tree", "tree"},
        {"treeitem", "tree item"},
        {"group", "panel"},
        {"paragraph", "paragraph"},
        {"form", "form"},
        {"main", "landmark"},
        {"navigation", "landmark"},
        {"banner", "landmark"},
        {"contentinfo", "landmark"},
        {"complementary", "landmark"},
        {"region", "landmark"},
        {"search", "landmark"},
        {"article", "article"},
        {"figure", "panel"},
        {"blockquote", "block quote"},
        {"document", "document frame"},
        {"RootWebArea", "document web"},
        {"WebArea", "document web"},
        {"generic", "section"},
        {"LabelText", "label"},
        {"StaticText", "static"},
        {"Iframe", "internal frame"},
        {"IframePresentational", "internal frame"},
        {"Canvas", "canvas"},
        {"LineBreak", "static"},
    };
    auto it = table.find(ax_role);
    return it != table.end() ? it->second : axLower(ax_role);
}

CdpTree parseCdpAxTree(const json& ax, const json& snapshot, const CdpTreeView& view, const A11yScope& scope) {
    CdpTree out;
    out.root.role = "desktop frame";
    out.root.name = "main";
    if (scope.pid && scope.pid != view.pid) return out;
    std::string root_id;
    const auto nodes = readAxNodes(ax, view.who + ": Accessibility.getFullAXTree", root_id);
    const auto boxes = readLayout(snapshot, view.who + ": DOMSnapshot.captureSnapshot");
    AxBuilder b(nodes, boxes, view, scope, out);
    const AxNode& doc = nodes.at(root_id);
    A11yElement app;
    app.role = "application";
    app.name = doc.name;
    app.app = view.app;
    app.pid = view.pid;
    if (scope.max_elements <= 0) {
        out.root.states.push_back("truncated");
        return out;
    }
    // The application holds the page's document (the AX tree's root).
    AxNode holder;
    holder.children = {root_id};
    b.add(holder, std::move(app), out.root, 1, 0, false);
    if (b.truncated) out.root.states.push_back("truncated");
    return out;
}

}  // namespace eacu
