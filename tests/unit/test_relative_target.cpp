#include <catch2/catch.hpp>

#include "task/RelativeTarget.h"

using namespace eacu;

namespace {
// A form: labels on the left, fields right of them, one button below.
std::vector<RelCandidate> form() {
    return {
        {{10, 10, 50, 20}, "text", "Name", "ocr"},
        {{100, 8, 200, 24}, "field", "", "som"},
        {{10, 50, 50, 20}, "text", "Age", "ocr"},
        {{100, 48, 200, 24}, "field", "", "som"},
        {{320, 8, 60, 24}, "button", "Clear", "som"},
        {{100, 100, 80, 30}, "button", "OK", "som"},
    };
}
}  // namespace

TEST_CASE("right_of takes the nearest candidate on the anchor's row") {
    auto cs = form();
    RelPick p = pickRelative(cs[0].box, cs, {Relation::RightOf, "any", 1});
    REQUIRE(p.chosen == 1);
    p = pickRelative(cs[0].box, cs, {Relation::RightOf, "any", 2});
    REQUIRE(p.chosen == 4);
    p = pickRelative(cs[0].box, cs, {Relation::RightOf, "button", 1});
    REQUIRE(p.chosen == 4);
    p = pickRelative(cs[2].box, cs, {Relation::RightOf, "field", 1});
    REQUIRE(p.chosen == 3);
}

TEST_CASE("below, above, left_of, near and inside") {
    auto cs = form();
    REQUIRE(pickRelative(cs[1].box, cs, {Relation::Below, "field", 1}).chosen == 3);
    REQUIRE(pickRelative(cs[3].box, cs, {Relation::Above, "any", 1}).chosen == 1);
    REQUIRE(pickRelative(cs[3].box, cs, {Relation::LeftOf, "text", 1}).chosen == 2);
    REQUIRE(pickRelative(cs[5].box, cs, {Relation::Near, "field", 1}).chosen == 3);
    Rect dialog{0, 0, 400, 140};
    RelPick in = pickRelative(dialog, cs, {Relation::Inside, "button", 2});
    REQUIRE(in.chosen == 5);
}

TEST_CASE("a miss names the anchor and why each candidate was rejected") {
    auto cs = form();
    RelQuery q{Relation::LeftOf, "field", 1};
    RelPick p = pickRelative(cs[0].box, cs, q);
    REQUIRE(p.chosen == -1);
    std::string msg = describeMiss("\"text:Name\"", cs[0].box, q, cs, p);
    REQUIRE(msg.find("anchor found at (10,10 50x20)") != std::string::npos);
    REQUIRE(msg.find("other kind: button") != std::string::npos);
    REQUIRE(msg.find("not left of the anchor") != std::string::npos);
    REQUIRE(relationFromName("below") == Relation::Below);
    REQUIRE(!relationFromName("under"));
}

TEST_CASE("the accessibility tree's elements: their kind by role, one candidate per widget") {
    A11yElement entry;
    entry.role = "text";
    entry.editable_text = true;
    A11yElement button;
    button.role = "push button";
    A11yElement check;
    check.role = "check box";
    A11yElement label;
    label.role = "label";
    A11yElement panel;
    panel.role = "panel";
    REQUIRE(relKindOfElement(entry) == "field");
    REQUIRE(relKindOfElement(button) == "button");
    REQUIRE(relKindOfElement(check) == "checkbox");
    REQUIRE(relKindOfElement(label) == "text");
    REQUIRE(relKindOfElement(panel).empty());
    // The image saw the entry as a control with text (a button); the tree knows better and
    // takes its place; a tree element the image missed is added.
    std::vector<RelCandidate> cs = {{{100, 10, 120, 20}, "button", "Ann", "box_contour_content_ocr"},
                                    {{10, 10, 50, 20}, "text", "Name", "box_ocr_content_ocr"}};
    mergeTreeCandidates(cs, {{{101, 9, 120, 22}, "field", "Name", "a11y text"},
                             {{100, 40, 120, 20}, "field", "City", "a11y text"}});
    REQUIRE(cs.size() == 3);
    REQUIRE(cs[0].kind == "field");
    REQUIRE(cs[0].source == "a11y text");
    REQUIRE(cs[2].content == "City");
    REQUIRE(pickRelative(cs[1].box, cs, {Relation::RightOf, "field", 1}).chosen == 0);
    REQUIRE(pickRelative(cs[1].box, cs, {Relation::RightOf, "field", 2}).chosen == -1);  // one per widget
}
