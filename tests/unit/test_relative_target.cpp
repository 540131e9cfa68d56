#include <catch2/catch.hpp>

#include "step/RelativeTarget.h"

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
