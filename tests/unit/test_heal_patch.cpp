// heal/ScriptPatch: healed targets written back into script lines, and the unified diff.
#include <catch2/catch.hpp>

#include "heal/ScriptPatch.h"

using namespace eacu;

TEST_CASE("splitTargets: the first target, its alternatives and the options beside them", "[heal]") {
    std::vector<std::string> opts;
    CHECK(splitTargets(R"("text:OK")", opts) == std::vector<std::string>{R"("text:OK")"});
    CHECK(splitTargets(R"({ role = "push button", name = "确定" })", opts) ==
          std::vector<std::string>{R"({ role = "push button", name = "确定" })"});
    CHECK(splitTargets(R"({ "text:确定", alt = { "a/tap_5.png", { "a/x.png", threshold = 0.9 } } })", opts) ==
          std::vector<std::string>{R"("text:确定")", R"("a/tap_5.png")", R"({ "a/x.png", threshold = 0.9 })"});
    CHECK(opts.empty());
    CHECK(splitTargets(R"({ text = "O,K", alt = { "ok.png" } })", opts) ==
          std::vector<std::string>{R"({ text = "O,K" })", R"("ok.png")"});
    CHECK(splitTargets(R"({ "text:OK", alt = { "ok.png" }, timeout = 3 })", opts) ==
          std::vector<std::string>{R"("text:OK")", R"("ok.png")"});
    CHECK(opts == std::vector<std::string>{"timeout = 3"});
    CHECK_FALSE(tableItems("\"x\"").has_value());
}

TEST_CASE("healLine: the healed targets first, the old ones kept as alternatives", "[heal]") {
    const std::string line = R"(tap({ "text:确定", alt = { "a/tap_5.png" } })   -- a comment, with (brackets))";
    CHECK(healLine(line, {R"("text:提交")", R"("a/tap_5_healed.png")"}) ==
          R"(tap({ "text:提交", alt = { "a/tap_5_healed.png", "text:确定", "a/tap_5.png" } })   -- a comment, with (brackets))");
    CHECK(healLine(R"(wait("a/icon.png", 20)   -- wait)", {R"("a/icon_healed.png")"}) ==
          R"(wait({ "a/icon_healed.png", alt = { "a/icon.png" } }, 20)   -- wait)");
    CHECK(healLine(R"(  tap "text:OK")", {R"("text:Okay")"}) == R"(  tap({ "text:Okay", alt = { "text:OK" } }))");
    CHECK(healLine(R"(tap{ "text:OK", alt = { "ok.png" }, timeout = 3 })", {R"("text:OK!")"}) ==
          R"(tap({ "text:OK!", alt = { "text:OK", "ok.png" }, timeout = 3 }))");
    // A target already among the healed ones is not repeated.
    CHECK(healLine(R"(tap({ "a.png", alt = { "text:Go" } }))", {R"("text:Go")", R"("b.png")"}) ==
          R"(tap({ "text:Go", alt = { "b.png", "a.png" } }))");
    CHECK_THROWS_AS(healLine("-- nothing to call", {R"("x")"}), std::invalid_argument);
}

TEST_CASE("unifiedDiff: hunks with three lines of context", "[heal]") {
    std::vector<std::string> a = {"1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11", "12"};
    std::vector<std::string> b = a;
    CHECK(unifiedDiff(a, b, "a/x", "b/x").empty());
    b[1] = "two";
    b[10] = "eleven";
    CHECK(unifiedDiff(a, b, "a/x", "b/x") ==
          "--- a/x\n+++ b/x\n@@ -1,5 +1,5 @@\n 1\n-2\n+two\n 3\n 4\n 5\n@@ -8,5 +8,5 @@\n 8\n 9\n 10\n-11\n+eleven\n 12\n");
}
