// Seed 001 §9's domain lists (runtime/step/DomainPolicy): the host a URL names as a browser
// reads it, suffix matching on whole labels, block over allow, and the refusal as a recorded,
// failed open_url step with code "refused".
#include <catch2/catch.hpp>

#include <map>
#include <string>

#include "ImageSession.h"
#include "step/DomainPolicy.h"
#include "step/StepError.h"

using namespace eacu;

TEST_CASE("urlHost: the host a browser would contact", "[domains]") {
    CHECK(urlHost("https://Docs.Python.org/3/library/json.html") == "docs.python.org");
    CHECK(urlHost("http://user:pw@example.com:8080/x?y#z") == "example.com");
    CHECK(urlHost("https://example.com.") == "example.com");
    CHECK(urlHost("  https://example.com  ") == "example.com");
    CHECK(urlHost("http://[::1]:9222/json") == "::1");
    CHECK(urlHost("python.org/3/") == "python.org");  // no scheme: http
    CHECK(urlHost("localhost:8080/x") == "localhost");
    CHECK(urlHost("https://evil.com\\@good.com/") == "evil.com");  // "\" ends the host as "/" does
    CHECK(urlHost("https://good.com@evil.com/") == "evil.com");
    CHECK(urlHost("file:///usr/share/doc/python3-doc/html/index.html").empty());
    CHECK(urlHost("about:blank").empty());
    CHECK(urlHost("data:text/html,<b>hi</b>").empty());
}

TEST_CASE("domainMatches: the domain itself and its subdomains, never a longer name", "[domains]") {
    CHECK(domainMatches("python.org", "python.org"));
    CHECK(domainMatches("docs.python.org", "python.org"));
    CHECK_FALSE(domainMatches("evilpython.org", "python.org"));
    CHECK_FALSE(domainMatches("python.org.evil.com", "python.org"));
    CHECK(domainMatches("127.0.0.1", "127.0.0.1"));
    CHECK_FALSE(domainMatches("127.0.0.1", "0.0.1"));  // an IP address matches only itself
}

TEST_CASE("domainPolicyFromEnv and urlRefusal: block wins, an empty allow list allows all", "[domains]") {
    std::map<std::string, std::string> env{{"EACU_ALLOW_DOMAINS", " Python.org, *.example.com ,,.test."},
                                           {"EACU_BLOCK_DOMAINS", "ads.example.com"}};
    DomainPolicy p = domainPolicyFromEnv([&](const char* k) { return env.count(k) ? env[k].c_str() : nullptr; });
    CHECK(p.allow == std::vector<std::string>{"python.org", "example.com", "test"});
    CHECK(p.block == std::vector<std::string>{"ads.example.com"});
    CHECK(urlRefusal("https://docs.python.org/3/", p).empty());
    CHECK(urlRefusal("https://www.example.com/", p).empty());
    CHECK(urlRefusal("https://ads.example.com/banner", p) ==
          "the domain ads.example.com is blocked by EACU_BLOCK_DOMAINS (ads.example.com)");
    CHECK(urlRefusal("https://evil.com/", p) ==
          "the domain evil.com is not in EACU_ALLOW_DOMAINS (python.org, example.com, test)");
    CHECK(urlRefusal("file:///usr/share/doc/python3-doc/html/index.html", p).empty());  // no web site
    CHECK(urlRefusal("about:blank", p).empty());
    CHECK_THAT(urlRefusal("data:text/html,hi", p), Catch::Contains("names no domain"));
    DomainPolicy none = domainPolicyFromEnv([](const char*) -> const char* { return nullptr; });
    CHECK(none.allow.empty());
    CHECK(none.block.empty());
    CHECK(urlRefusal("https://anything.example/", none).empty());
    CHECK(urlRefusal("data:text/html,hi", none).empty());
}

TEST_CASE("checkUrlAllowed: a refusal is a failed open_url step and StepError refused", "[domains]") {
    test::ImageSession run("test_domain_policy");
    Session& session = *run.session;
    ::setenv("EACU_BLOCK_DOMAINS", "evil.com", 1);
    ::unsetenv("EACU_ALLOW_DOMAINS");
    CHECK_NOTHROW(checkUrlAllowed(session, "https://python.org/"));
    try {
        checkUrlAllowed(session, "https://www.evil.com/login");
        FAIL("a blocked domain was allowed");
    } catch (const StepError& e) {
        CHECK(e.code == failure::kRefused);
        CHECK(std::string(e.what()) ==
              "open_url \"https://www.evil.com/login\": refused: the domain www.evil.com is blocked by "
              "EACU_BLOCK_DOMAINS (evil.com)");
        CHECK(e.step_id > 0);
    }
    ::unsetenv("EACU_BLOCK_DOMAINS");
    auto steps = run.steps();
    REQUIRE(steps.size() == 1);  // an allowed URL records nothing
    CHECK(steps[0].action == "open_url");
    CHECK(steps[0].status == "failed");
    CHECK(steps[0].method == "policy");
}
