#include <catch2/catch.hpp>

#include "geometry/Coords.h"

using namespace eacu;

TEST_CASE("points are pixels, or fractions when fractional values lie in 0..1", "[geometry]") {
    Size s{1000, 500};
    CHECK(resolvePoint(10, 20, s) == Point{10, 20});
    CHECK(resolvePoint(1, 1, s) == Point{1, 1});  // integers are pixels
    CHECK(resolvePoint(0.5, 0.5, s) == Point{500, 250});
    CHECK(resolvePoint(0, 0.5, s) == Point{0, 250});
    CHECK_THROWS_AS(resolvePoint(1000, 10, s), std::invalid_argument);
    CHECK_THROWS_AS(resolvePoint(-1, 10, s), std::invalid_argument);
}

TEST_CASE("regions are pixels or fractions and clipped to the screen", "[geometry]") {
    Size s{1000, 500};
    CHECK(resolveRegion(10, 20, 30, 40, s) == Rect{10, 20, 30, 40});
    CHECK(resolveRegion(0, 0, 0.5, 0.5, s) == Rect{0, 0, 500, 250});
    CHECK(resolveRegion(900, 400, 300, 300, s) == Rect{900, 400, 100, 100});
    CHECK_THROWS_AS(resolveRegion(2000, 0, 10, 10, s), std::invalid_argument);
}

TEST_CASE("logical and physical pixels convert by the device scale factor", "[geometry]") {
    CHECK(logicalToPhysical({100, 50}, 1.5) == Point{150, 75});
    CHECK(physicalToLogical({150, 75}, 1.5) == Point{100, 50});
}

TEST_CASE("rect helpers", "[geometry]") {
    Rect a{0, 0, 10, 10}, b{5, 5, 10, 10};
    CHECK(a.intersect(b) == Rect{5, 5, 5, 5});
    CHECK(a.iou(b) == Approx(25.0 / 175.0));
    CHECK(a.intersect({20, 20, 5, 5}).empty());
    CHECK(a.center() == Point{5, 5});
}
