// The chromium device's accessibility tree (device/chromium/CdpAxTree.h): the role table, a
// recorded Accessibility.getFullAXTree + DOMSnapshot.captureSnapshot answer of a form page
// (tests/fixtures/cdp_ax_form.json: Chromium 156, viewport 800x600 at device scale 2, the page's
// HTML inside), and malformed answers.
#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "device/Device.h"
#include "device/chromium/CdpAxTree.h"
#include "step/A11yTarget.h"

using namespace eacu;
using nlohmann::json;

namespace {

json formFixture() {
    std::ifstream in(EACU_FIXTURES "/cdp_ax_form.json");
    std::stringstream ss;
    ss << in.rdbuf();
    return json::parse(ss.str());
}

CdpTreeView formView() {
    CdpTreeView v;
    v.viewport = {800, 600};
    v.scale = 2;
    v.pid = 77;
    v.who = "chromium (pid 77)";
    return v;
}

const A11yElement* findByName(const A11yElement& root, const std::string& role, const std::string& name) {
    for (const A11yElement* e : flatten(root))
        if (e->role == role && e->name == name) return e;
    return nullptr;
}

std::string errorOf(const json& ax, const json& snap) {
    try {
        parseCdpAxTree(ax, snap, formView());
    } catch (const DeviceError& e) {
        return e.what();
    }
    return "no error";
}

}  // namespace

TEST_CASE("roles of Chromium's AX tree map to the toolkit-neutral names", "[cdp_ax]") {
    CHECK(roleForAxRole("button") == "push button");
    CHECK(roleForAxRole("textbox") == "text");
    CHECK(roleForAxRole("searchbox") == "text");
    CHECK(roleForAxRole("checkbox") == "check box");
    CHECK(roleForAxRole("radio") == "radio button");
    CHECK(roleForAxRole("link") == "link");
    CHECK(roleForAxRole("heading") == "heading");
    CHECK(roleForAxRole("combobox") == "combo box");
    CHECK(roleForAxRole("option") == "list item");
    CHECK(roleForAxRole("switch") == "toggle switch");
    CHECK(roleForAxRole("LabelText") == "label");
    CHECK(roleForAxRole("RootWebArea") == "document web");
    CHECK(roleForAxRole("navigation") == "landmark");
    CHECK(roleForAxRole("Marquee") == "marquee");  // not in the table: lower-cased
}

TEST_CASE("a recorded getFullAXTree answer becomes the device's tree", "[cdp_ax]") {
    const json f = formFixture();
    CdpTree t = parseCdpAxTree(f["ax"], f["snapshot"], formView());
    const A11yElement& root = t.root;
    CHECK(root.role == "desktop frame");
    REQUIRE(root.children.size() == 1);
    const A11yElement& app = root.children[0];
    CHECK(app.role == "application");
    CHECK(app.app == "chromium");
    CHECK(app.pid == 77);
    CHECK(app.name == "Order form");
    REQUIRE(app.children.size() == 1);
    CHECK(app.children[0].role == "document web");
    CHECK(app.children[0].bounds == Rect{0, 0, 1600, 1200});

    // The button: its box (DOM.getContentQuads said 30,212.8 35.3x21 CSS pixels) at scale 2.
    const A11yElement* ok = findByName(root, "push button", "OK");
    REQUIRE(ok);
    CHECK(ok->bounds == Rect{60, 426, 71, 42});
    CHECK(ok->id == "ok");
    CHECK(ok->has("showing"));
    CHECK(ok->has("focusable"));
    CHECK(ok->actions == std::vector<std::string>{"click", "focus"});
    CHECK(ok->children.empty());  // its StaticText "OK" is its name
    CHECK(ok->pid == 77);
    // Its path leads to it, and to its DOM node.
    const A11yElement* at = &root;
    for (int i : ok->path) at = &at->children.at(static_cast<size_t>(i));
    CHECK(at == ok);
    CHECK(t.nodes.count(ok->path) == 1);

    const A11yElement* name = findByName(root, "text", "Name");
    REQUIRE(name);
    CHECK(name->editable_text);
    CHECK(name->has("editable"));
    CHECK(name->children.empty());  // the field's inner editor is not a second editable element
    const A11yElement* pw = findByName(root, "password text", "Password");
    REQUIRE(pw);
    CHECK(pw->has("password"));
    const A11yElement* urgent = findByName(root, "check box", "Urgent");
    REQUIRE(urgent);
    CHECK(urgent->has("checkable"));
    CHECK_FALSE(urgent->has("checked"));
    CHECK(findByName(root, "link", "More"));
    const A11yElement* heading = findByName(root, "heading", "Order");
    REQUIRE(heading);
    CHECK(heading->children.empty());
    CHECK(findByName(root, "label", "Name"));  // a <label> is named by its text

    // Hidden (display:none, aria-hidden) elements are not in the tree; one below the fold is,
    // without a place on the screen.
    CHECK_FALSE(findByName(root, "push button", "Hidden"));
    CHECK_FALSE(findByName(root, "push button", "AriaHidden"));
    const A11yElement* far = findByName(root, "push button", "Far");
    REQUIRE(far);
    CHECK(far->has("visible"));
    CHECK_FALSE(far->has("showing"));
    CHECK(far->bounds.empty());

    // The a11y targets' search finds the field by its label and the button by role and name.
    A11yQuery q;
    q.role = "text";
    q.name = "Name";
    q.editable = true;
    A11yFound found = findElement(root, q);
    REQUIRE(found.element);
    CHECK(found.element->path == name->path);
    A11yQuery b;
    b.role = "button";
    b.name = "OK";
    REQUIRE(findElement(root, b).element);
    CHECK(findElement(root, b).element->bounds == ok->bounds);
}

TEST_CASE("a tree read keeps to its scope", "[cdp_ax]") {
    const json f = formFixture();
    A11yScope few;
    few.max_elements = 4;
    CdpTree t = parseCdpAxTree(f["ax"], f["snapshot"], formView(), few);
    CHECK(t.root.has("truncated"));
    CHECK(flatten(t.root).size() <= 4);
    A11yScope shallow;
    shallow.max_depth = 2;
    t = parseCdpAxTree(f["ax"], f["snapshot"], formView(), shallow);
    CHECK(t.root.has("truncated"));
    REQUIRE(t.root.children.size() == 1);
    CHECK(t.root.children[0].children.size() == 1);
    CHECK(t.root.children[0].children[0].children.empty());
    A11yScope other;
    other.pid = 78;
    CHECK(parseCdpAxTree(f["ax"], f["snapshot"], formView(), other).root.children.empty());
    // Without a layout (no documents) the elements are there, without boxes.
    t = parseCdpAxTree(f["ax"], json{{"documents", json::array()}, {"strings", json::array()}}, formView());
    const A11yElement* ok = findByName(t.root, "push button", "OK");
    REQUIRE(ok);
    CHECK(ok->bounds.empty());
}

TEST_CASE("malformed getFullAXTree and captureSnapshot answers get a clear error", "[cdp_ax]") {
    const json f = formFixture();
    const json& snap = f["snapshot"];
    CHECK(errorOf(json::array(), snap) ==
          "chromium (pid 77): Accessibility.getFullAXTree: expected an object {nodes: [...]}, got []");
    CHECK(errorOf(json{{"nodes", json::array()}}, snap) ==
          "chromium (pid 77): Accessibility.getFullAXTree: expected the page's nodes, got none");
    CHECK(errorOf(json{{"nodes", 3}}, snap).find("field \"nodes\" should be an array") != std::string::npos);
    CHECK(errorOf(json{{"nodes", {1}}}, snap) ==
          "chromium (pid 77): Accessibility.getFullAXTree: expected each node to be an object, got 1");
    CHECK(errorOf(json::parse(R"({"nodes":[{"nodeId":"1","role":{"value":{"x":1}}}]})"), snap)
              .find("field \"role\" should hold a string value") != std::string::npos);
    CHECK(errorOf(json::parse(R"({"nodes":[{"nodeId":"1","parentId":"2"}]})"), snap).find("no root node") !=
          std::string::npos);
    // A node whose children lead back to it: read once.
    CdpTree loop = parseCdpAxTree(
        json::parse(R"({"nodes":[{"nodeId":"1","role":{"value":"RootWebArea"},"childIds":["2"]},
                                 {"nodeId":"2","parentId":"1","ignored":true,"childIds":["1","2"]}]})"),
        json::object({{"documents", json::array()}}), formView());
    CHECK(flatten(loop.root).size() == 2);

    json bad = snap;
    bad["documents"][0]["layout"]["bounds"][0] = json::array({1, 2});
    CHECK(errorOf(f["ax"], bad) == "chromium (pid 77): DOMSnapshot.captureSnapshot: expected layout bounds "
                                   "[x, y, width, height], got [1,2]");
    bad = snap;
    bad["documents"][0]["layout"]["nodeIndex"][0] = 100000;
    CHECK(errorOf(f["ax"], bad).find("layout node index 100000 out of range") != std::string::npos);
    bad = snap;
    bad["strings"] = json::array();
    CHECK(errorOf(f["ax"], bad).find("out of range (0 strings)") != std::string::npos);
    CHECK(errorOf(f["ax"], "no").find("expected an object {documents, strings}") != std::string::npos);
}
