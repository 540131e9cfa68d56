#include "device/adb/UiautomatorXml.h"

#include <charconv>
#include <cstdint>
#include <cstring>
#include <map>
#include <stdexcept>

#include <libxml/parser.h>
#include <libxml/tree.h>

namespace eacu {

namespace {

std::string attr(xmlNode* n, const char* name) {
    xmlChar* v = xmlGetProp(n, reinterpret_cast<const xmlChar*>(name));
    if (!v) return "";
    std::string s(reinterpret_cast<const char*>(v));
    xmlFree(v);
    return s;
}

bool isNode(xmlNode* n) { return n->type == XML_ELEMENT_NODE && std::strcmp(reinterpret_cast<const char*>(n->name), "node") == 0; }

// The largest |coordinate| and side taken from a dump: uiautomator gives bounds clipped to the
// screen, and a screen's side is at most 16384 (the raw screencap's limit); 2^15 leaves room
// and keeps a side (x2 - x1) and an area (w * h, Rect::area) within an int.
constexpr int64_t kMaxCoordinate = 1 << 15;

// uiautomator's bounds "[x1,y1][x2,y2]" (corners, x2/y2 exclusive) as a Rect; an empty Rect when
// they are not that, not of positive size, or a corner or a side is over kMaxCoordinate (a
// hostile dump's "[-2000000000,0][2000000000,1]", whose width would overflow an int).
Rect parseBounds(const std::string& s) {
    int64_t v[4] = {};
    const char* p = s.data();
    const char* const end = s.data() + s.size();
    for (int i = 0; i < 4; ++i) {
        const char want = i % 2 == 0 ? '[' : ',';
        if (p == end || *p++ != want) return {};
        const auto [next, ec] = std::from_chars(p, end, v[i]);
        if (ec != std::errc() || v[i] < -kMaxCoordinate || v[i] > kMaxCoordinate) return {};
        p = next;
        if (i % 2 == 1 && (p == end || *p++ != ']')) return {};
    }
    if (p != end) return {};
    const int64_t w = v[2] - v[0], h = v[3] - v[1];
    if (w <= 0 || h <= 0 || w > kMaxCoordinate || h > kMaxCoordinate) return {};
    return Rect{static_cast<int>(v[0]), static_cast<int>(v[1]), static_cast<int>(w), static_cast<int>(h)};
}

bool endsWith(const std::string& s, const char* suffix) {
    size_t n = std::strlen(suffix);
    return s.size() >= n && s.compare(s.size() - n, n, suffix) == 0;
}

struct Walk {
    const A11yScope& scope;
    int count = 0;
    bool truncated = false;

    A11yElement element(xmlNode* n, std::vector<int> path, int depth) {
        A11yElement e;
        std::string cls = attr(n, "class");
        e.role = roleForAndroidClass(cls);
        std::string text = attr(n, "text"), desc = attr(n, "content-desc");
        e.name = text.empty() ? desc : text;
        if (!text.empty()) e.description = desc;
        e.id = attr(n, "resource-id");
        e.app = attr(n, "package");
        e.bounds = parseBounds(attr(n, "bounds"));
        auto flag = [&](const char* a) { return attr(n, a) == "true"; };
        if (flag("enabled")) {
            e.states.push_back("enabled");
            e.states.push_back("sensitive");
        }
        for (const char* s : {"focusable", "focused", "checkable", "checked", "selected", "scrollable", "password"})
            if (flag(s)) e.states.push_back(s);
        e.editable_text = e.role == "text" || e.role == "password text";
        if (e.editable_text) e.states.push_back("editable");
        if (!e.bounds.empty()) {
            e.states.push_back("showing");
            e.states.push_back("visible");
        }
        if (flag("clickable")) e.actions.push_back("click");
        if (flag("long-clickable")) e.actions.push_back("long_click");
        if (flag("scrollable")) e.actions.push_back("scroll");
        e.path = path;
        if (depth >= scope.max_depth) return e;
        int i = 0;
        for (xmlNode* c = n->children; c; c = c->next) {
            if (!isNode(c)) continue;
            if (++count > scope.max_elements) {
                truncated = true;
                break;
            }
            std::vector<int> p = path;
            p.push_back(i++);
            e.children.push_back(element(c, p, depth + 1));
        }
        return e;
    }
};

}  // namespace

std::string roleForAndroidClass(const std::string& cls) {
    std::string c = cls.substr(cls.rfind('.') == std::string::npos ? 0 : cls.rfind('.') + 1);
    static const std::map<std::string, std::string> roles = {
        {"Button", "push button"},        {"ImageButton", "push button"},
        {"FloatingActionButton", "push button"}, {"MaterialButton", "push button"},
        {"EditText", "text"},             {"AutoCompleteTextView", "text"},
        {"TextView", "label"},            {"CheckBox", "check box"},
        {"CheckedTextView", "check box"}, {"RadioButton", "radio button"},
        {"Switch", "toggle switch"},      {"SwitchCompat", "toggle switch"},
        {"ToggleButton", "toggle button"}, {"ImageView", "image"},
        {"ListView", "list"},             {"RecyclerView", "list"},
        {"GridView", "table"},            {"ScrollView", "scroll pane"},
        {"HorizontalScrollView", "scroll pane"}, {"ProgressBar", "progress bar"},
        {"SeekBar", "slider"},            {"RatingBar", "slider"},
        {"Spinner", "combo box"},         {"WebView", "document web"},
        {"TabWidget", "page tab list"},   {"Toolbar", "tool bar"},
        {"VideoView", "video"},
    };
    auto it = roles.find(c);
    if (it != roles.end()) return it->second;
    if (endsWith(c, "Button")) return "push button";
    if (endsWith(c, "EditText")) return "text";
    if (endsWith(c, "TextView")) return "label";
    return "panel";
}

A11yElement parseUiautomatorXml(const std::string& xml, const A11yScope& scope) {
    xmlDoc* doc = xmlReadMemory(xml.data(), static_cast<int>(xml.size()), "dump.xml", "UTF-8",
                                XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
    if (!doc)
        throw std::runtime_error("uiautomator dump: expected an XML document, got \"" + xml.substr(0, 120) + "\"");
    xmlNode* root = xmlDocGetRootElement(doc);
    if (!root || std::strcmp(reinterpret_cast<const char*>(root->name), "hierarchy") != 0) {
        xmlFreeDoc(doc);
        throw std::runtime_error("uiautomator dump: expected a <hierarchy> document, got \"" + xml.substr(0, 120) + "\"");
    }
    A11yElement top;
    top.role = "desktop frame";
    top.name = "android";
    Walk walk{scope};
    std::map<std::string, size_t> apps;
    for (xmlNode* c = root->children; c; c = c->next) {
        if (!isNode(c)) continue;
        std::string pkg = attr(c, "package");
        auto it = apps.find(pkg);
        if (it == apps.end()) {
            A11yElement app;
            app.role = "application";
            app.name = pkg;
            app.app = pkg;
            app.path = {static_cast<int>(top.children.size())};
            it = apps.emplace(pkg, top.children.size()).first;
            top.children.push_back(app);
        }
        A11yElement& app = top.children[it->second];
        std::vector<int> path = app.path;
        path.push_back(static_cast<int>(app.children.size()));
        app.children.push_back(walk.element(c, path, 2));
    }
    xmlFreeDoc(doc);
    if (walk.truncated) top.states.push_back("truncated");
    return top;
}

}  // namespace eacu
