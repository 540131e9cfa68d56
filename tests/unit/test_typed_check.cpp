// Typed text arrives whole (issue 36, item 7): the rule for what a field must hold after typing
// (step/TypedCheck), the focused field found in a tree, and the check on a scripted tree: held,
// not held (expected/actual in the message), a secret by length only, nothing to check.
#include <catch2/catch.hpp>

#include <deque>
#include <opencv2/imgproc.hpp>
#include <string>

#include "NullDevice.h"
#include "device/Accessibility.h"
#include "device/Device.h"
#include "step/TypedCheck.h"

using namespace eacu;

namespace {

A11yText field(const std::string& text, int caret, int s0 = -1, int s1 = -1) {
    A11yText t;
    t.text = text;
    t.caret = caret;
    t.sel_start = s0;
    t.sel_end = s1;
    return t;
}

// A tree whose focused field's text reads as scripted (the last reading repeats).
class ScriptedTree : public Accessibility {
public:
    A11yElement root;
    std::deque<std::string> texts;
    int caret = 0;
    bool gives_text = true;
    bool readsText() const override { return true; }
    A11yElement snapshot(const A11yScope&) override { return root; }
    void doAction(const A11yElement&, const std::string&) override {}
    void setText(const A11yElement&, const std::string&) override {}
    std::optional<A11yText> readText(const A11yElement&) override {
        if (!gives_text) return std::nullopt;
        A11yText t;
        t.text = texts.front();
        t.caret = caret;
        if (texts.size() > 1) texts.pop_front();
        return t;
    }
};

class TreeDevice : public NullDevice {
public:
    ScriptedTree tree;
    bool has_tree = true;
    std::string describe() const override { return "scripted"; }
    Accessibility& accessibility() override {
        if (!has_tree) throw DeviceError("this device has no accessibility tree: scripted");
        return tree;
    }
};

A11yElement element(const std::string& role, const std::string& name, std::vector<std::string> states,
                    std::vector<int> path) {
    A11yElement e;
    e.role = role;
    e.name = name;
    e.states = std::move(states);
    e.path = std::move(path);
    return e;
}

// desktop > app > window(active?) > entry(focused?)
A11yElement tree(bool active, const std::string& entry_role = "text", bool focused = true) {
    A11yElement root = element("desktop frame", "main", {}, {});
    A11yElement app = element("application", "zenity", {}, {0});
    A11yElement win = element("dialog", "Type", active ? std::vector<std::string>{"active"} : std::vector<std::string>{},
                              {0, 0});
    A11yElement entry = element(entry_role, "Name", focused ? std::vector<std::string>{"focused", "editable"}
                                                            : std::vector<std::string>{"editable"},
                                {0, 0, 0});
    entry.editable_text = true;
    win.children.push_back(entry);
    app.children.push_back(win);
    root.children.push_back(app);
    return root;
}

}  // namespace

TEST_CASE("typed rule: inserted at the caret, or replacing the selection", "[typed]") {
    TypedRule r = typedRule(field("", 0), "张三abc", false);
    REQUIRE(r.exact == std::optional<std::string>("张三abc"));
    CHECK(typedHolds(r, "张三abc"));
    CHECK_FALSE(typedHolds(r, "张三ab"));   // the last character lost
    CHECK_FALSE(typedHolds(r, "张三abcc"));  // one too many
    r = typedRule(field("李四王五", 2), "张三", false);  // caret in characters, not bytes
    CHECK(*r.exact == "李四张三王五");
    r = typedRule(field("old text", 8, 0, 8), "new", false);  // all selected: replaced
    CHECK(*r.exact == "new");
    r = typedRule(field("abcdef", 3, 1, 3), "X", false);
    CHECK(*r.exact == "aXdef");
    CHECK(describeRule(r) == "\"aXdef\"");
}

TEST_CASE("typed rule: caret unknown or out of range: the field contains the text", "[typed]") {
    TypedRule r = typedRule(field("Search", -1), "hello", false);  // Android: a hint shows as the text
    CHECK_FALSE(r.exact);
    CHECK(typedHolds(r, "hello"));
    CHECK(typedHolds(r, "say hello there"));
    CHECK_FALSE(typedHolds(r, "hell"));
    CHECK(describeRule(r) == "text containing \"hello\"");
    CHECK_FALSE(typedRule(field("ab", 9), "x", false).exact);
    CHECK_FALSE(typedRule(std::nullopt, "x", false).exact);
    CHECK_THROWS_AS(typedRule(std::nullopt, "\xff", false), std::invalid_argument);
    CHECK_FALSE(typedHolds(r, "hello\xff"));  // invalid UTF-8 read back never holds
}

TEST_CASE("typed rule: a secret is compared by length and never shown", "[typed]") {
    TypedRule r = typedRule(field("", 0), "pässwörd", true);
    CHECK(r.length == 8);
    CHECK(typedHolds(r, "●●●●●●●●"));
    CHECK_FALSE(typedHolds(r, "●●●●●●●"));
    CHECK(describeRule(r) == "8 characters");
    CHECK(describeHeld("●●●●●●●", true) == "7 characters");
    r = typedRule(std::nullopt, "1234", true);
    CHECK(describeRule(r) == "at least 4 characters");
    CHECK(typedHolds(r, "•••••"));
    CHECK_FALSE(typedHolds(r, "•••"));
    TypedRule s = setTextRule("张三", false);
    CHECK(typedHolds(s, "张三"));
    CHECK_FALSE(typedHolds(s, "张三张三"));
}

TEST_CASE("focused text field: the active window's, else any", "[typed]") {
    A11yElement t = tree(true);
    const A11yElement* f = focusedTextField(t);
    REQUIRE(f);
    CHECK(f->name == "Name");
    // Another application's window is active: this one's entry keeps "focused" but does not count.
    A11yElement other = tree(true);
    t = tree(false);
    other.children[0].children[0].children.clear();
    other.children[0].path = {1};
    t.children.push_back(other.children[0]);
    CHECK(focusedTextField(t) == nullptr);
    // No window says active (Android's tree): the focused field anywhere.
    CHECK(focusedTextField(tree(false)) != nullptr);
    CHECK(focusedTextField(tree(true, "text", false)) == nullptr);
    CHECK(isPasswordField(*focusedTextField(tree(true, "password text"))));
}

TEST_CASE("typed check: held, not held, secret, nothing to check", "[typed]") {
    TreeDevice d;
    d.tree.root = tree(true);
    d.tree.texts = {"", "张", "张三a", "张三abc"};
    TypedCheck c = TypedCheck::forInput(d, "张三abc", false);
    REQUIRE(c.active());
    CHECK_FALSE(c.after(2));
    CHECK(c.note().rfind("checked: the text \"Name\" holds \"张三abc\" (3 reads", 0) == 0);

    d.tree.texts = {"", "张三ab"};  // the last character lost
    c = TypedCheck::forInput(d, "张三abc", false);
    std::optional<std::string> bad = c.after(0.3);
    REQUIRE(bad);
    CHECK(bad->find("the text \"Name\" holds \"张三ab\" after ") == 0);
    CHECK(bad->find("expected \"张三abc\"") != std::string::npos);

    d.tree.root = tree(true, "password text");
    d.tree.texts = {"", "●●●"};
    c = TypedCheck::forInput(d, "hunter2", false);
    CHECK(c.fieldSecret());
    bad = c.after(0.3);
    REQUIRE(bad);
    CHECK(bad->find("hunter2") == std::string::npos);
    CHECK(bad->find("the password text holds 3 characters after ") == 0);
    CHECK(bad->find("expected 7 characters") != std::string::npos);

    d.tree.root = tree(true, "text", false);
    c = TypedCheck::forInput(d, "abc", false);
    CHECK_FALSE(c.active());
    CHECK(c.note() == "not checked: no text field has the focus in the accessibility tree");
    CHECK_FALSE(c.after(0.3));
    d.tree.root = tree(true);
    d.tree.gives_text = false;
    CHECK(TypedCheck::forInput(d, "abc", false).note() == "not checked: this device's tree does not give a field's text");
    d.has_tree = false;
    CHECK(TypedCheck::forInput(d, "abc", false).note() ==
          "not checked: no accessibility tree (this device has no accessibility tree: scripted)");
    CHECK(TypedCheck::forInput(d, "abc\n", false).note() ==
          "not checked: the text has Return or Tab, keys that may act rather than type");
}

TEST_CASE("typed check on the screen: the text where the screen changed, never a failure", "[typed][ocr]") {
    using Catch::Matchers::StartsWith;
    TreeDevice d;
    d.has_tree = false;
    const std::string no_tree = "not checked: no accessibility tree (this device has no accessibility tree: scripted)";
    cv::Mat before(120, 520, CV_8UC3, cv::Scalar(255, 255, 255));
    cv::Mat after = before.clone();
    cv::putText(after, "hello world", {20, 75}, cv::FONT_HERSHEY_SIMPLEX, 1.4, cv::Scalar(0, 0, 0), 2, cv::LINE_AA);

    TypedCheck c = TypedCheck::forInput(d, "hello world", false);
    CHECK_FALSE(c.active());
    CHECK(c.note() == no_tree);
    c.onScreen(before, after, false);
    CHECK_THAT(c.note(), StartsWith("checked on the screen: \"hello world\" reads where the screen changed (OCR score "));
    CHECK_FALSE(c.after(0.3));  // the screen's check never fails the step

    TypedCheck same = TypedCheck::forInput(d, "hello world", false);
    same.onScreen(before, before, false);
    CHECK_THAT(same.note(), StartsWith("not confirmed on the screen: it did not change after the text was sent; the tree "
                                       "could not check (no accessibility tree"));

    TypedCheck other = TypedCheck::forInput(d, "goodbye", false);
    other.onScreen(before, after, false);
    CHECK_THAT(other.note(), StartsWith("not confirmed on the screen: where it changed OCR reads \""));
    CHECK_FALSE(other.after(0.3));

    // A secret, the script's or found by the step (the focus is a password field), is never read.
    TypedCheck secret = TypedCheck::forInput(d, "hello world", true);
    secret.onScreen(before, after, false);
    CHECK(secret.note() == no_tree);
    TypedCheck found_secret = TypedCheck::forInput(d, "hello world", false);
    found_secret.onScreen(before, after, true);
    CHECK(found_secret.note() == no_tree);
    // Frames of two sizes (a window that moved): nothing read.
    TypedCheck sizes = TypedCheck::forInput(d, "hello world", false);
    sizes.onScreen(before, cv::Mat(60, 100, CV_8UC3, cv::Scalar(0, 0, 0)), false);
    CHECK(sizes.note() == no_tree);
}
