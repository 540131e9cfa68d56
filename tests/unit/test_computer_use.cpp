// The computer tool's actions (runtime/planner/ComputerUse performComputerAction) on a static
// screenshot: display pixels mapped back to physical ones, each action through the one action
// path as a recorded step, and bad actions refused with a message the model gets back.
#include <catch2/catch.hpp>

#include <memory>
#include <optional>

#include <nlohmann/json.hpp>

#include "ImageSession.h"
#include "planner/ComputerUse.h"

using namespace eacu;
using json = nlohmann::json;

namespace {

struct Fixture : test::ImageSession {
    ModelImageTransform t;  // a 1600x1000 screen shown as 1280x800

    Fixture() : ImageSession("test_computer_use", quick()) {
        t.physical = {1600, 1000};
        t.image = {1280, 800};
        t.policy = "xga";
    }
    std::string act(const json& in, std::optional<Rect>* zoom = nullptr) {
        std::optional<Rect> z;
        return performComputerAction(*session, in, t, 0, zoom ? zoom : &z);
    }
};

}  // namespace

TEST_CASE("computer actions: display pixels are mapped back and each input is a recorded step", "[computer]") {
    Fixture f;
    f.act({{"action", "left_click"}, {"coordinate", {100, 40}}});
    f.act({{"action", "double_click"}, {"coordinate", {200, 80}}});
    f.act({{"action", "right_click"}});  // where the pointer is
    f.act({{"action", "mouse_move"}, {"coordinate", {640, 400}}});
    f.act({{"action", "type"}, {"text", "你好"}});
    f.act({{"action", "key"}, {"text", "ctrl+Page_Up"}});
    f.act({{"action", "scroll"}, {"coordinate", {8, 8}}, {"scroll_direction", "up"}, {"scroll_amount", 2}});
    CHECK(f.act({{"action", "cursor_position"}}) == "X=8,Y=8");
    CHECK(f.act({{"action", "screenshot"}}).empty());
    const auto& e = f.device.events();
    REQUIRE(e.size() >= 9);
    CHECK(e[0] == "move 125,50");
    CHECK(e[1] == "click 1 x1 at 125,50");
    CHECK(e[2] == "move 250,100");
    CHECK(e[3] == "click 1 x2 at 250,100");
    CHECK(e[5] == "click 3 x1 at 250,100");
    CHECK(e[6] == "move 800,500");
    CHECK(e[7] == "type 你好");
    CHECK(e[8] == "key Control PageUp");
    int taps = 0;
    for (const StepRecord& s : f.log->steps(f.run_id)) {
        CHECK(s.method == "model");
        taps += s.action == "tap" || s.action == "double_tap";
    }
    CHECK(taps == 3);
}

TEST_CASE("computer actions: zoom names a region; bad actions are refused before any input", "[computer]") {
    Fixture f;
    std::optional<Rect> zoom;
    f.act({{"action", "zoom"}, {"region", {0, 0, 640, 400}}}, &zoom);
    REQUIRE(zoom);
    CHECK(*zoom == Rect{0, 0, 800, 500});
    CHECK_THROWS_WITH(f.act({{"action", "fly"}}), "computer: unknown action \"fly\"");
    CHECK_THROWS_WITH(f.act({{"action", "left_click"}, {"coordinate", {1281, 10}}}),
                      Catch::Contains("is outside the 1280x800 screenshot"));
    CHECK_THROWS_AS(f.act({{"action", "type"}}), std::invalid_argument);
    CHECK_THROWS_AS(f.act({{"action", "scroll"}, {"scroll_direction", "sideways"}}), std::invalid_argument);
    CHECK_THROWS_AS(f.act({{"action", "zoom"}, {"region", {10, 10, 5, 5}}}), std::invalid_argument);
    CHECK_THROWS_AS(f.act(json::array()), std::invalid_argument);
    CHECK(f.device.events().empty());
}
