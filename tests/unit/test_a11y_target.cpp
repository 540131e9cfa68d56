#include <catch2/catch.hpp>

#include <opencv2/imgproc.hpp>

#include "step/A11yTarget.h"
#include "vision/som/Som.h"

using namespace eacu;

namespace {

A11yElement el(std::string role, std::string name, Rect b, std::vector<std::string> actions = {}, bool editable = false) {
    A11yElement e;
    e.role = std::move(role);
    e.name = std::move(name);
    e.bounds = b;
    e.actions = std::move(actions);
    e.editable_text = editable;
    e.states = {"enabled", "visible", "showing"};
    if (editable) e.states.push_back("editable");
    return e;
}

// A form like zenity's: labels "Name" and "City" with unnamed entries to their right, OK and
// Cancel buttons, and a label "OK" that is not the button.
A11yElement form() {
    A11yElement root;
    root.role = "desktop frame";
    A11yElement app = el("application", "zenity", {});
    app.app = "zenity";
    app.pid = 42;
    A11yElement frame = el("frame", "form", {100, 100, 400, 300});
    frame.children = {el("label", "OK", {110, 110, 40, 20}),
                      el("label", "Name", {110, 150, 60, 20}),
                      el("text", "", {180, 146, 200, 28}, {"activate"}, true),
                      el("label", "City", {110, 190, 60, 20}),
                      el("text", "", {180, 186, 200, 28}, {"activate"}, true),
                      el("push button", "Cancel", {300, 350, 80, 30}, {"click"}),
                      el("push button", "_OK", {400, 350, 80, 30}, {"click"})};
    app.children = {frame};
    root.children = {app};
    return root;
}

}  // namespace

TEST_CASE("a11y targets are found by role and name, exactly before loosely") {
    A11yElement root = form();
    A11yFound f = findElement(root, {std::string("push button"), std::string("Cancel")});
    REQUIRE(f.element);
    CHECK(f.element->bounds == Rect{300, 350, 80, 30});
    CHECK(f.how == "name");
    // "_OK" (a mnemonic) matches "ok" loosely; the label "OK" is not a push button.
    f = findElement(root, {std::string("push button"), std::string("ok")});
    REQUIRE(f.element);
    CHECK(f.element->role == "push button");
    CHECK(f.how == "similar name");
    // By name alone the exact one wins: the label named "OK".
    f = findElement(root, {std::nullopt, std::string("OK")});
    REQUIRE(f.element);
    CHECK(f.element->role == "label");
}

TEST_CASE("an editable target is found through the label beside it") {
    A11yElement root = form();
    A11yQuery q{std::nullopt, std::string("City")};
    q.editable = true;
    A11yFound f = findElement(root, q);
    REQUIRE(f.element);
    CHECK(f.how == "label");
    CHECK(f.element->bounds == Rect{180, 186, 200, 28});
    std::vector<const A11yElement*> all = flatten(root);
    CHECK(labelOf(*f.element, all) == "City");
    q.name = "Name:";  // a trailing colon is a label's decoration
    f = findElement(root, q);
    REQUIRE(f.element);
    CHECK(f.element->bounds == Rect{180, 146, 200, 28});
}

TEST_CASE("a miss lists the applications and the nearest names") {
    A11yElement root = form();
    A11yFound f = findElement(root, {std::string("push button"), std::string("Cancle")});
    CHECK_FALSE(f.element);
    CHECK(f.why.find("zenity") != std::string::npos);
    CHECK(f.why.find("nearby names: \"Cancel\" (push button)") != std::string::npos);
    A11yElement empty;
    f = findElement(empty, {std::nullopt, std::string("1")});
    CHECK(f.why.find("the accessible tree is empty") != std::string::npos);
    CHECK_THROWS_AS(findElement(root, {}), std::invalid_argument);
}

TEST_CASE("press picks the element's default action or the one named") {
    A11yElement b = el("push button", "OK", {0, 0, 10, 10}, {"press", "click"});
    A11yQuery q;
    q.press = "*";
    CHECK(chooseAction(b, q) == "click");
    q.press = "press";
    CHECK(chooseAction(b, q) == "press");
    q.press = "jump";
    CHECK_THROWS_WITH(chooseAction(b, q), Catch::Contains("expected one of its actions (press, click)"));
    A11yElement l = el("label", "x", {0, 0, 1, 1});
    q.press = "*";
    CHECK_THROWS_AS(chooseAction(l, q), std::invalid_argument);
}

TEST_CASE("Set-of-Marks takes the tree's elements with their accessible names") {
    cv::Mat m(400, 600, CV_8UC3, cv::Scalar(245, 245, 245));
    cv::rectangle(m, cv::Rect(400, 350, 80, 30), cv::Scalar(90, 90, 90), 2);
    cv::rectangle(m, cv::Rect(180, 146, 200, 28), cv::Scalar(120, 120, 120), 1);
    std::vector<SomOcrLine> ocr = {{"OK", {425, 357, 30, 16}, 0.9}, {"Name", {110, 150, 60, 20}, 0.9}};
    std::vector<SomA11yNode> nodes = {{"push button", "OK", {400, 350, 80, 30}}, {"text", "", {180, 146, 200, 28}}};
    SomResult som = buildSom(m, ocr, {}, {}, nodes);
    int buttons = 0, fields = 0;
    for (const SomElement& e : som.elements) {
        if (e.source == "box_a11y_content_a11y" && e.kind == "button" && e.content == "OK") ++buttons;
        if (e.source.rfind("box_a11y", 0) == 0 && e.kind == "text_field") ++fields;
        // The OCR line inside the button is the button, not an element of its own.
        CHECK_FALSE((e.source == "box_ocr_content_ocr" && e.content == "OK"));
    }
    CHECK(buttons == 1);
    CHECK(fields == 1);
    std::string text = somText(som);
    CHECK(text.find("button | \"OK\"") != std::string::npos);
    CHECK(text.find("📝 label | \"Name\"") != std::string::npos);
}

TEST_CASE("value= narrows an a11y target to the element holding that value", "[a11y]") {
    A11yElement root = form();
    A11yElement& name_field = root.children[0].children[0].children[2];
    name_field.name = "Name";
    name_field.value = "张三";
    A11yQuery q{std::string("text"), std::string("Name")};
    q.value = "张三";
    A11yFound f = findElement(root, q);
    REQUIRE(f.element);
    CHECK(f.element->bounds == Rect{180, 146, 200, 28});
    CHECK(describeQuery(q) == "{role=\"text\", name=\"Name\", value=\"张三\"}");
    // The field holding something else is not found, and the miss says what it holds.
    q.value = "李四";
    f = findElement(root, q);
    CHECK_FALSE(f.element);
    CHECK_THAT(f.why, Catch::Contains("holds \"张三\""));
}
