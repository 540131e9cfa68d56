// Module routing (step/AppModules): a task sentence to the app module and template that run
// it, with the parameters the template's pattern captures.
#include <catch2/catch.hpp>

#include "step/AppModules.h"

using namespace eacu;

namespace {

using Params = std::map<std::string, std::string>;

// Modules shaped like scripts/calculator, scripts/wechat and scripts/browser.
std::vector<AppModuleInfo> modules() {
    AppModuleInfo calc{"calculator", {"calculator", "计算器"}, "xcalc",
                       {{"compute", {"compute {expression}", "calculate {expression}", "计算{expression}"}, false}}};
    AppModuleInfo wechat{"wechat", {"wechat", "微信"}, "com.tencent.mm",
                         {{"send_message", {"给{contact}发消息说{text}", "send {text} to {contact}"}, true},
                          {"open_chat", {"打开和{contact}的聊天"}, false}}};
    AppModuleInfo browser{"browser", {"browser", "chromium", "python docs"}, "chromium",
                          {{"search", {"search {query}"}, false}}};
    return {calc, wechat, browser};
}

const RouteScore& scoreOf(const Route& r, const std::string& module) {
    for (const auto& s : r.scores)
        if (s.module == module) return s;
    FAIL("no score for module " << module);
    throw std::logic_error("unreachable");
}

}  // namespace

TEST_CASE("matchPattern: literal text, parameters and captures", "[routing]") {
    Params p;
    CHECK(matchPattern("compute {expression}", "compute 12*34", p));
    CHECK(p == Params{{"expression", "12*34"}});

    // Literal text is ASCII case-insensitive; captures keep the sentence's own case; spaces
    // around the sentence and the captures are trimmed.
    p.clear();
    CHECK(matchPattern("Compute {expression}", "  COMPUTE  Sin(X)  ", p));
    CHECK(p == Params{{"expression", "Sin(X)"}});

    // Chinese, two parameters.
    p.clear();
    CHECK(matchPattern("给{contact}发消息说{text}", "给张三发消息说你好", p));
    CHECK(p == Params{{"contact", "张三"}, {"text", "你好"}});

    // A parameter takes the shortest text that lets the rest match; the last one takes the rest.
    p.clear();
    CHECK(matchPattern("{a} and {b}", "x and y and z", p));
    CHECK(p == Params{{"a", "x"}, {"b", "y and z"}});

    // Cuts fall between UTF-8 characters, never inside one ("你" is 3 bytes; "好" follows).
    p.clear();
    CHECK(matchPattern("{a}好", "你好好", p));
    CHECK(p == Params{{"a", "你好"}});
}

TEST_CASE("matchPattern: what does not match leaves the parameters alone", "[routing]") {
    Params p{{"keep", "me"}};
    CHECK_FALSE(matchPattern("compute {expression}", "compute", p));     // a parameter needs text
    CHECK_FALSE(matchPattern("compute {expression}", "compute   ", p));  // spaces are trimmed first
    CHECK_FALSE(matchPattern("compute {expression}", "please compute 1+1", p));  // anchored at the start
    CHECK_FALSE(matchPattern("search {q} now", "search cats", p));       // and at the end
    CHECK_FALSE(matchPattern("给{contact}发消息说{text}", "给张三打电话", p));
    CHECK(p == Params{{"keep", "me"}});
    // A pattern without parameters matches its own text only.
    CHECK(matchPattern("open it", "Open It", p));
    CHECK_FALSE(matchPattern("open it", "open it now", p));
}

TEST_CASE("matchPattern: malformed patterns are errors", "[routing]") {
    Params p;
    CHECK_THROWS_WITH(matchPattern("compute {expression", "compute 1", p),
                      "template pattern \"compute {expression\": expected '}' after '{'");
    CHECK_THROWS_WITH(matchPattern("compute {}", "compute 1", p),
                      "template pattern \"compute {}\": empty parameter name {}");
    CHECK_THROWS_WITH(matchPattern("{a}{b}", "xy", p),
                      "template pattern \"{a}{b}\": two parameters need text between them");
    CHECK_THROWS_AS(matchPattern("{", "x", p), std::invalid_argument);
}

TEST_CASE("routeTask: a template pattern routes a sentence with its parameters", "[routing]") {
    Route r = routeTask("给张三发消息说你好", modules());
    CHECK(r.best.module == "wechat");
    CHECK(r.best.template_name == "send_message");
    CHECK(r.best.pattern == "给{contact}发消息说{text}");
    CHECK(r.best.params == Params{{"contact", "张三"}, {"text", "你好"}});
    CHECK(r.best.score == Approx(0.5));
    REQUIRE(r.scores.size() == 3);
    CHECK(r.scores[0].module == "wechat");

    // The second pattern of a template, in English.
    r = routeTask("send hello there to Li Lei", modules());
    CHECK(r.best.module == "wechat");
    CHECK(r.best.params == Params{{"text", "hello there"}, {"contact", "Li Lei"}});

    // A later template of the module.
    r = routeTask("打开和李四的聊天", modules());
    CHECK(r.best.template_name == "open_chat");
    CHECK(r.best.params == Params{{"contact", "李四"}});

    r = routeTask("compute 12*34", modules());
    CHECK(r.best.module == "calculator");
    CHECK(r.best.template_name == "compute");
    CHECK(r.best.params == Params{{"expression", "12*34"}});
}

TEST_CASE("routeTask: keywords and the package add to a pattern's score", "[routing]") {
    // Pattern 0.5 + keyword 0.4 (case-insensitive).
    Route r = routeTask("calculate 7+8 on the CALCULATOR", modules());
    CHECK(r.best.module == "calculator");
    CHECK(r.best.score == Approx(0.9));
    CHECK(r.best.keywords_hit == std::vector<std::string>{"calculator"});
    CHECK(r.best.params == Params{{"expression", "7+8 on the CALCULATOR"}});

    // A keyword alone routes to the module, with no template.
    r = routeTask("打开微信", modules());
    CHECK(r.best.module == "wechat");
    CHECK(r.best.score == Approx(0.4));
    CHECK(r.best.template_name.empty());
    CHECK(r.best.params.empty());

    // The package (or window class) alone: 0.1. Here "chromium" is also a browser keyword.
    r = routeTask("start xcalc", modules());
    CHECK(r.best.module == "calculator");
    CHECK(r.best.score == Approx(0.1));
    r = routeTask("open chromium", modules());
    CHECK(r.best.module == "browser");
    CHECK(r.best.score == Approx(0.5));

    // Several keywords count once.
    r = routeTask("search python docs in the browser", modules());
    CHECK(r.best.module == "browser");
    CHECK(r.best.score == Approx(0.9));
    CHECK(r.best.keywords_hit.size() == 2);

    // A pattern beats another module's keyword: "compute" template (0.5) over "wechat" (0.4).
    r = routeTask("compute the wechat bill", modules());
    CHECK(r.best.module == "calculator");
    CHECK(scoreOf(r, "wechat").score == Approx(0.4));
    CHECK(r.scores[1].module == "wechat");
}

TEST_CASE("routeTask: nothing fits, ties, and bad input", "[routing]") {
    Route r = routeTask("order a pizza", modules());
    CHECK(r.best.module.empty());
    CHECK(r.best.score == 0);
    REQUIRE(r.scores.size() == 3);
    // Every module is scored; equal scores keep the given order.
    CHECK(r.scores[0].module == "calculator");
    CHECK(r.scores[1].module == "wechat");
    CHECK(r.scores[2].module == "browser");

    // Two modules with the same keyword: the first given wins the tie.
    AppModuleInfo a{"notes_a", {"notes"}, "", {}}, b{"notes_b", {"notes"}, "", {}};
    CHECK(routeTask("open my notes", {a, b}).best.module == "notes_a");
    CHECK(routeTask("open my notes", {b, a}).best.module == "notes_b");

    // No modules: nothing to route to, not an error.
    CHECK(routeTask("compute 1+1", {}).best.module.empty());

    CHECK_THROWS_WITH(routeTask("", modules()), "route: expected a task sentence, got an empty string");
    CHECK_THROWS_AS(routeTask(" \t\n", modules()), std::invalid_argument);

    // A module's malformed pattern is an error, not a silent miss.
    AppModuleInfo broken{"broken", {}, "", {{"t", {"do {x"}, false}}};
    CHECK_THROWS_AS(routeTask("do it", {broken}), std::invalid_argument);
}
