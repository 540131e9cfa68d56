// base/Clock: local times of any value a run log may hold.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

#include "base/Clock.h"

using namespace eacu;

TEST_CASE("formatLocalTime: dates, nothing, and values that are no date", "[clock]") {
    CHECK(formatLocalTime(0) == "-");
    CHECK(formatLocalTime(-5) == "-");
    CHECK(formatLocalTime(1.7e9).size() == 19);  // "2023-11-14 ..:..:.."
    CHECK(formatLocalTime(1.7e9, "%Y").size() == 4);
    // Found by fuzz_runlog: 1.8e245 seconds was converted to time_t (undefined behaviour).
    CHECK(formatLocalTime(1.82702e245) == "?");
    CHECK(formatLocalTime(std::numeric_limits<double>::quiet_NaN()) == "?");
    CHECK(formatLocalTime(std::numeric_limits<double>::infinity()) == "?");
    CHECK(formatLocalTime(-1e300, "%Y") == "?");
    CHECK(formatLocalTime(253402300800.0) == "?");  // year 10000
}
