// How a run reaches its person (runtime/step/UserChannel): ask_user and risky-step confirms go
// through the session's channel (a service puts its own there); the terminal channel reads a
// line while polling the run's cancel token, and fails closed without a terminal.
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <unistd.h>

#include <memory>

#include <nlohmann/json.hpp>

#include "ImageSession.h"
#include "assets/AssetLibrary.h"
#include "base/Cancel.h"
#include "base/Clock.h"
#include "device/image/ImageDevice.h"
#include "runlog/RunLog.h"
#include "step/Session.h"
#include "step/StepError.h"
#include "step/UserChannel.h"
#include "vision/Locator.h"

using namespace eacu;

namespace {

// A channel that answers from a script and remembers what it was asked.
class ScriptedChannel : public UserChannel {
public:
    std::string answer = "Zhang San";
    std::string confirm_reply;  // "" allows
    std::vector<std::string> asked;
    std::string confirm(const std::string& what, const CancelToken&) override {
        asked.push_back("confirm " + what);
        return confirm_reply;
    }
    std::string ask(const std::string& text, const CancelToken&) override {
        asked.push_back("ask " + text);
        return answer;
    }
    std::string awaitAction(const std::string& kind, const std::string& text, const CancelToken&) override {
        asked.push_back(kind + " " + text);
        return answer;
    }
};

// Points stdin at the read end of a pipe for one scope; write() feeds it.
struct PipeStdin {
    int fds[2];
    int saved = ::dup(0);
    PipeStdin() {
        REQUIRE(::pipe(fds) == 0);
        REQUIRE(::dup2(fds[0], 0) == 0);
    }
    void write(const std::string& s) { REQUIRE(::write(fds[1], s.data(), s.size()) == ssize_t(s.size())); }
    void close() {
        if (fds[1] >= 0) ::close(fds[1]);
        fds[1] = -1;
    }
    ~PipeStdin() {
        ::dup2(saved, 0);
        ::close(saved);
        ::close(fds[0]);
        close();
    }
};

struct Fixture : test::ImageSession {
    std::shared_ptr<ScriptedChannel> channel = std::make_shared<ScriptedChannel>();

    Fixture() : ImageSession("test_user_channel") { session->setUserChannel(channel); }
    const StepRecord* step(int64_t id) {
        static std::vector<StepRecord> rows;
        rows = log->steps(run_id);
        for (const StepRecord& r : rows)
            if (r.id == id || (id == 0 && r.action == "ask_user")) return &r;
        return nullptr;
    }
};

}  // namespace

TEST_CASE("Session::askUser asks through the run's channel and records the answer", "[user]") {
    Fixture f;
    CHECK(f.session->askUser("Who gets the message?") == "Zhang San");
    REQUIRE(f.channel->asked.size() == 1);
    CHECK(f.channel->asked[0] == "ask Who gets the message?");
    const StepRecord* s = f.step(0);
    REQUIRE(s);
    CHECK(s->status == "ok");
    CHECK(s->target == "Who gets the message?");
    CHECK(nlohmann::json::parse(s->params_json)["answer"] == "Zhang San");
}

TEST_CASE("Session::confirm asks the channel in ask mode only", "[user]") {
    Fixture f;
    f.session->confirmMode() = ConfirmMode::Ask;
    f.channel->confirm_reply = "the user said no";
    if (!std::getenv("EACU_CONFIRM")) {
        CHECK(f.session->confirm("tap \"Pay\"") == "the user said no");
        CHECK(f.channel->asked == std::vector<std::string>{"confirm tap \"Pay\""});
        f.session->confirmMode() = ConfirmMode::Yes;
        CHECK(f.session->confirm("tap \"Pay\"").empty());
        CHECK(f.channel->asked.size() == 1);  // yes mode does not ask
    }
}

TEST_CASE("TerminalChannel: no terminal fails closed; ask_user is then a blocked step", "[user]") {
    PipeStdin not_a_terminal;  // stdin is a pipe: nobody to ask
    TerminalChannel t;
    CancelToken cancel;
    CHECK_THAT(t.confirm("tap \"Pay\"", cancel), Catch::Contains("no terminal to ask on"));
    try {
        t.ask("Who?", cancel);
        FAIL("ask without a terminal returned");
    } catch (const StepError& e) {
        CHECK(e.code == failure::kBlocked);
        CHECK_THAT(std::string(e.what()), Catch::Contains("no terminal to ask on"));
    }

    Fixture f;
    f.session->setUserChannel(std::make_shared<TerminalChannel>());
    try {
        f.session->askUser("Who?");
        FAIL("askUser without a terminal returned");
    } catch (const StepError& e) {
        CHECK(e.code == failure::kBlocked);
        CHECK(e.step_id > 0);
    }
    const StepRecord* s = f.step(0);
    REQUIRE(s);
    CHECK(s->status == "failed");
}

TEST_CASE("readTerminalLine: reads one line, ends at end of input, stops when cancelled", "[user]") {
    {
        PipeStdin in;
        in.write("张三 Zhang San\r\nnext\n");
        CancelToken cancel;
        std::string line;
        REQUIRE(readTerminalLine("", cancel, line));
        CHECK(line == "张三 Zhang San");
        REQUIRE(readTerminalLine("", cancel, line));
        CHECK(line == "next");
        in.close();
        CHECK_FALSE(readTerminalLine("", cancel, line));
    }
    {
        PipeStdin in;  // nothing is ever typed
        CancelToken cancel;
        // The run's deadline passes 0.2 s into the wait: the read stops at the next poll.
        double t0 = monotonicSeconds();
        cancel.setDeadline(t0 + 0.2, "the run's time limit");
        std::string line;
        CHECK_THROWS_AS(readTerminalLine("", cancel, line), Cancelled);
        double waited = monotonicSeconds() - t0;
        CHECK(waited >= 0.2);
        CHECK(waited < 2.0);  // polled every 50 ms
    }
}
