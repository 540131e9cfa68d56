// Limits of a run (actions, wall time) and the confirmation of risky actions.
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <unistd.h>

#include <cstdlib>
#include <optional>

#include "base/Cancel.h"
#include "base/Clock.h"
#include "step/Limits.h"

using namespace eacu;

namespace {

// The message of the LimitExceeded that `f` throws ("" when it throws none).
template <class F>
std::string limitMessage(F&& f) {
    try {
        f();
    } catch (const LimitExceeded& e) {
        return e.what();
    }
    return "";
}

// Sets (or unsets, for nullopt) an environment variable for one scope.
struct EnvVar {
    std::string name;
    std::optional<std::string> old;
    EnvVar(std::string n, const std::optional<std::string>& value) : name(std::move(n)) {
        if (const char* v = std::getenv(name.c_str())) old = v;
        if (value) ::setenv(name.c_str(), value->c_str(), 1);
        else ::unsetenv(name.c_str());
    }
    ~EnvVar() {
        if (old) ::setenv(name.c_str(), old->c_str(), 1);
        else ::unsetenv(name.c_str());
    }
};

// Points standard input at /dev/null for one scope (no terminal to ask on).
struct NoTerminalInput {
    int saved = ::dup(0);
    NoTerminalInput() {
        int fd = ::open("/dev/null", O_RDONLY);
        REQUIRE(fd >= 0);
        REQUIRE(::dup2(fd, 0) == 0);
        ::close(fd);
    }
    ~NoTerminalInput() {
        ::dup2(saved, 0);
        ::close(saved);
    }
};

}  // namespace

TEST_CASE("LimitGuard: no limits by default", "[limits]") {
    LimitGuard g;
    for (int i = 0; i < 1000; ++i) g.beforeAction("tap");
    CHECK(g.actions() == 1000);
    CHECK_NOTHROW(g.checkTime("wait"));
    CHECK(g.elapsed() >= 0);
    CHECK(g.elapsed() < 60);
}

TEST_CASE("LimitGuard: counts actions and refuses the one past max_actions", "[limits]") {
    LimitGuard g({3, 0});
    g.beforeAction("tap \"1\"");
    g.beforeAction("tap \"2\"");
    g.checkTime("wait \"x\"");  // looking does not count
    g.beforeAction("tap \"3\"");
    CHECK(g.actions() == 3);
    CHECK(limitMessage([&] { g.beforeAction("tap \"OK\""); }) ==
          "tap \"OK\": the run's limit of 3 actions is reached (set limits{max_actions=} or eacu run --max-actions)");
    CHECK(g.actions() == 3);  // the refused action is not counted
    CHECK_THROWS_AS(g.beforeAction("key \"Return\""), LimitExceeded);

    // The limit can be raised during the run (limits{max_actions=}).
    g.setLimits({4, 0});
    CHECK_NOTHROW(g.beforeAction("tap \"OK\""));
    CHECK(g.actions() == 4);
    CHECK_THROWS_AS(g.beforeAction("tap \"OK\""), LimitExceeded);

    // max_actions = 1: the first passes, the second does not.
    LimitGuard one({1, 0});
    CHECK_NOTHROW(one.beforeAction("tap"));
    CHECK_THROWS_AS(one.beforeAction("tap"), LimitExceeded);
}

TEST_CASE("LimitGuard: the time limit stops actions and waits once used up", "[limits]") {
    LimitGuard g({0, 1.0});
    CHECK_NOTHROW(g.beforeAction("tap \"1\""));
    CHECK_NOTHROW(g.checkTime("wait \"x\""));
    // Wait for the clock (with a deadline), not for a fixed time.
    const double deadline = monotonicSeconds() + 10;
    while (g.elapsed() <= 1.0 && monotonicSeconds() < deadline) processToken().sleep(0.05);
    REQUIRE(g.elapsed() > 1.0);
    CHECK(limitMessage([&] { g.checkTime("wait \"x\""); }) ==
          "wait \"x\": the run's time limit of 1 s is used up (set limits{max_seconds=} or eacu run --max-time)");
    CHECK_THAT(limitMessage([&] { g.beforeAction("tap \"2\""); }), Catch::StartsWith("tap \"2\": the run's time limit"));
    CHECK(g.actions() == 1);  // the refused action is not counted

    // Raising the limit lets the run go on; 0 means no limit.
    g.setLimits({0, 3600});
    CHECK_NOTHROW(g.beforeAction("tap \"2\""));
    g.setLimits({0, 0});
    CHECK_NOTHROW(g.checkTime("wait"));
}

TEST_CASE("looksRisky: the risky words, in English and Chinese, and a template's own", "[limits]") {
    for (const char* t : {"pay", "Pay now", "DELETE the file", "send", "Submit order", "purchase", "remove item",
                          "transfer 100", "付款", "确认支付", "删除聊天", "发送消息", "提交", "转账给张三"}) {
        INFO(t);
        CHECK(looksRisky(t));
    }
    for (const char* t : {"", "tap OK", "open settings", "compute 12*34", "打开设置", "给张三打电话"}) {
        INFO(t);
        CHECK_FALSE(looksRisky(t));
    }
    // Words are found inside longer ones (payment, resend): erring on the side of asking.
    CHECK(looksRisky("Payment"));
    CHECK(looksRisky("resend"));
    // A template's own words, case-insensitive; an empty one marks nothing.
    CHECK(looksRisky("Book the flight", {"book"}));
    CHECK(looksRisky("book the flight", {"BOOK"}));
    CHECK(looksRisky("预订机票", {"预订"}));
    CHECK_FALSE(looksRisky("Book the flight", {""}));
    CHECK_FALSE(looksRisky("Book the flight", {"hotel"}));
}

TEST_CASE("confirmRisky: yes allows, no refuses, ask without a terminal fails closed", "[limits]") {
    TerminalChannel terminal;
    CancelToken cancel;
    CHECK(confirmRisky("tap \"Pay\"", ConfirmMode::Yes, terminal, cancel).empty());
    CHECK(confirmRisky("tap \"Pay\"", ConfirmMode::No, terminal, cancel) == "risky actions are refused (EACU_CONFIRM=no)");
    NoTerminalInput no_tty;
    std::string why = confirmRisky("tap \"Pay\"", ConfirmMode::Ask, terminal, cancel);
    CHECK_THAT(why, Catch::Contains("no terminal to ask on"));
    CHECK_THAT(why, Catch::Contains("--yes or EACU_CONFIRM=yes"));
}

TEST_CASE("confirmModeFromEnv reads EACU_CONFIRM", "[limits]") {
    {
        EnvVar e("EACU_CONFIRM", std::nullopt);
        CHECK(confirmModeFromEnv() == ConfirmMode::Ask);
    }
    const std::pair<const char*, ConfirmMode> good[] = {
        {"", ConfirmMode::Ask}, {"ask", ConfirmMode::Ask}, {"yes", ConfirmMode::Yes}, {"no", ConfirmMode::No}};
    for (const auto& [value, mode] : good) {
        INFO(value);
        EnvVar e("EACU_CONFIRM", std::string(value));
        CHECK(confirmModeFromEnv() == mode);
    }
    for (const char* value : {"maybe", "1", "y"}) {
        INFO(value);
        EnvVar e("EACU_CONFIRM", std::string(value));
        CHECK_THROWS_WITH(confirmModeFromEnv(), "EACU_CONFIRM: expected yes, no or ask, got \"" + std::string(value) + "\"");
        CHECK_THROWS_AS(confirmModeFromEnv(), std::invalid_argument);
    }
}
