// eacu record's grouping of a person's raw input into script actions, the Lua quoting of
// what it writes, and the proof of an image target on a frame (recorder/RecordedActions.h,
// recorder/TargetProof.h).
#include <catch2/catch.hpp>

#include <opencv2/imgproc.hpp>

#include "recorder/RecordedActions.h"
#include "recorder/TargetProof.h"

using namespace eacu;

namespace {

RecordedInput button(RecordedInput::Kind k, int b, int x, int y, double t) {
    RecordedInput e;
    e.kind = k;
    e.button = b;
    e.at = {x, y};
    e.time = t;
    return e;
}

RecordedInput keyDown(const std::string& name, const std::string& text, double t, bool ctrl = false, bool shift = false) {
    RecordedInput e;
    e.kind = RecordedInput::Kind::KeyDown;
    e.key_name = name;
    e.text = text;
    e.ctrl = ctrl;
    e.shift = shift;
    e.time = t;
    return e;
}

}  // namespace

TEST_CASE("a person's events become taps, double taps, long presses, drags and scrolls", "[record]") {
    using K = RecordedInput::Kind;
    std::vector<RecordedInput> ev = {
        button(K::ButtonDown, 1, 10, 10, 1.00), button(K::ButtonUp, 1, 10, 10, 1.05),    // tap
        button(K::ButtonDown, 1, 100, 10, 2.00), button(K::ButtonUp, 1, 100, 10, 2.05),  // double tap
        button(K::ButtonDown, 1, 101, 11, 2.20), button(K::ButtonUp, 1, 101, 11, 2.25),
        button(K::ButtonDown, 3, 50, 50, 3.00), button(K::ButtonUp, 3, 50, 50, 3.05),    // right tap
        button(K::ButtonDown, 1, 60, 60, 4.00), button(K::ButtonUp, 1, 60, 60, 5.20),    // long press
        button(K::ButtonDown, 1, 70, 70, 6.00), button(K::Motion, 0, 90, 90, 6.10),
        button(K::ButtonUp, 1, 200, 150, 6.40),                                          // drag
        button(K::ButtonDown, 5, 300, 300, 7.00), button(K::ButtonUp, 5, 300, 300, 7.01),
        button(K::ButtonDown, 5, 300, 300, 7.20), button(K::ButtonUp, 5, 300, 300, 7.21),
        button(K::ButtonDown, 4, 300, 300, 7.40), button(K::ButtonUp, 4, 300, 300, 7.41), // scroll 1
        button(K::ButtonDown, 1, 10, 10, 9.00),                                           // never released
    };
    std::vector<UserAction> a = groupInputs(ev);
    REQUIRE(a.size() == 6);
    CHECK(a[0].kind == UserAction::Kind::Tap);
    CHECK(a[0].at == Point{10, 10});
    CHECK(a[1].kind == UserAction::Kind::DoubleTap);
    CHECK(a[2].kind == UserAction::Kind::Tap);
    CHECK(a[2].button == "right");
    CHECK(a[3].kind == UserAction::Kind::LongPress);
    CHECK(a[3].hold > 1.1);
    CHECK(a[4].kind == UserAction::Kind::Drag);
    CHECK(a[4].to == Point{200, 150});
    CHECK(a[5].kind == UserAction::Kind::Scroll);
    CHECK(a[5].dy == 1);
}

TEST_CASE("typed characters join one input; keys and combos are keys; modifiers alone nothing", "[record]") {
    std::vector<RecordedInput> ev = {
        keyDown("Shift_L", "", 1.0), keyDown("H", "H", 1.1, false, true), keyDown("i", "i", 1.2),
        keyDown("U5F20", "张", 1.3), keyDown("Return", "", 1.4),
        keyDown("Control_L", "", 2.0), keyDown("S", "S", 2.1, true, true), keyDown("a", "a", 2.2),
    };
    std::vector<UserAction> a = groupInputs(ev);
    REQUIRE(a.size() == 4);
    CHECK(a[0].kind == UserAction::Kind::Input);
    CHECK(a[0].text == "Hi张");
    CHECK(a[1].kind == UserAction::Kind::Key);
    CHECK(a[1].text == "Return");
    CHECK(a[2].text == "ctrl+shift+s");
    CHECK(a[3].kind == UserAction::Kind::Input);
    CHECK(a[3].text == "a");
}

TEST_CASE("luaQuote escapes what Lua needs and keeps UTF-8", "[record]") {
    CHECK(luaQuote("a\"b\\c\nd") == "\"a\\\"b\\\\c\\nd\"");
    CHECK(luaQuote("张三") == "\"张三\"");
    CHECK(luaQuote(std::string("\x01", 1)) == "\"\\001\"");
}

TEST_CASE("an image target is proven only where its crop is unique", "[record]") {
    // A grey screen with one distinct mark and two identical squares.
    cv::Mat bgr(300, 400, CV_8UC3, cv::Scalar(200, 200, 200));
    cv::circle(bgr, {80, 80}, 12, cv::Scalar(30, 60, 200), -1);
    cv::putText(bgr, "Go", {68, 130}, cv::FONT_HERSHEY_SIMPLEX, 0.6, cv::Scalar(0, 0, 0), 2);
    cv::rectangle(bgr, {250, 50, 20, 20}, cv::Scalar(0, 0, 0), -1);
    cv::rectangle(bgr, {250, 200, 20, 20}, cv::Scalar(0, 0, 0), -1);
    Frame f;
    f.bgr = bgr;
    Locator locator;
    ProofOptions o;
    o.text = false;  // image proofs only (no OCR here)
    o.image_ref = "rec";
    o.image_stem = "tap_1";
    ProvenTarget t = proveTarget(f, nullptr, {80, 80}, locator, o);
    CHECK(t.kind == ProvenTarget::Kind::Image);
    CHECK(t.lua == "\"rec/tap_1.png\"");
    CHECK(t.box.contains({80, 80}));
    // The two squares look alike in every crop that holds one of them: no image is unique.
    ProvenTarget u = proveTarget(f, nullptr, {260, 60}, locator, o);
    CHECK(u.kind == ProvenTarget::Kind::Point);
    CHECK(u.why.find("elsewhere") != std::string::npos);
    // A plain grey place has nothing to prove: coordinates, saying why.
    ProvenTarget p = proveTarget(f, nullptr, {180, 280}, locator, o);
    CHECK(p.kind == ProvenTarget::Kind::Point);
    CHECK(p.lua == "{ x = 180, y = 280 }");
    CHECK(p.why.find("no target could be proven") == 0);
}

namespace {

// A keypad of two keys, "7" and "8"; the key under the pointer drawn highlighted (a ring).
cv::Mat keypad(int hovered) {
    cv::Mat bgr(240, 360, CV_8UC3, cv::Scalar(215, 215, 215));
    const char* labels[] = {"7", "8"};
    for (int k = 0; k < 2; ++k) {
        cv::Rect key(60 + 140 * k, 90, 80, 50);
        cv::rectangle(bgr, key, cv::Scalar(250, 250, 250), -1);
        cv::rectangle(bgr, key, cv::Scalar(60, 60, 60), 1);
        cv::putText(bgr, labels[k], {key.x + 30, key.y + 36}, cv::FONT_HERSHEY_SIMPLEX, 1.0, cv::Scalar(0, 0, 0), 2);
        if (k == hovered) cv::rectangle(bgr, key, cv::Scalar(0, 0, 0), 4);
    }
    return bgr;
}

}  // namespace

TEST_CASE("an image crop is cut from the screen before the pointer came, proven on both", "[record]") {
    // The person rested the pointer on 8 (highlighted) before pressing it; before that it was on
    // 7, where the last press left it: the screen a replay sees.
    Frame press, approach;
    press.bgr = keypad(1);
    approach.bgr = keypad(0);
    Locator locator;
    ProofOptions o;
    o.text = false;
    o.approach = &approach;
    ProvenTarget t = proveTarget(press, nullptr, {240, 115}, locator, o);
    REQUIRE(t.kind == ProvenTarget::Kind::Image);
    CHECK(t.why.find("cut before the pointer came") != std::string::npos);
    cv::Mat want = approach.bgr(cv::Rect(t.box.x, t.box.y, t.box.w, t.box.h));
    CHECK(cv::norm(t.crop, want, cv::NORM_INF) == 0);  // the key as it looks without the pointer
    // The crop found on the replay's screen (7 highlighted) at 8, with the line's threshold.
    Template tpl;
    tpl.bgr = t.crop;
    if (t.threshold) tpl.threshold = *t.threshold;
    LocateHints h;
    h.expected_scale = 1.0;
    LocateReport r = locator.locate(PreparedFrame(approach.bgr), {tpl}, h);
    REQUIRE(r.match.found);
    CHECK(r.match.box.contains({240, 115}));
}

TEST_CASE("a tree target is proven only where a tap at the element's centre is the person's press", "[record]") {
    // A window with a wide button and a canvas (interactive only by its click handler).
    A11yElement root;
    root.role = "frame";
    root.name = "app";
    root.bounds = {0, 0, 800, 600};
    root.states = {"showing"};
    A11yElement button;
    button.role = "push button";
    button.name = "Send";
    button.bounds = {20, 20, 400, 40};
    button.states = {"showing"};
    button.path = {0, 0};
    A11yElement canvas;
    canvas.role = "canvas";
    canvas.id = "board";
    canvas.bounds = {100, 200, 300, 200};
    canvas.states = {"showing"};
    canvas.actions = {"click"};
    canvas.path = {0, 1};
    root.children = {button, canvas};
    std::string tried;
    Frame f;
    f.bgr = cv::Mat(600, 800, CV_8UC3, cv::Scalar(200, 200, 200));
    Locator locator;
    ProofOptions o;
    o.text = false;
    o.image = false;
    // A button does one thing wherever it is pressed: its far end is still the button.
    ProvenTarget b = proveTarget(f, &root, {400, 30}, locator, o);
    CHECK(b.kind == ProvenTarget::Kind::A11y);
    CHECK(b.lua == "{ role = \"push button\", name = \"Send\" }");
    // The canvas at its centre: by the tree.
    ProvenTarget c = proveTarget(f, &root, {250, 300}, locator, o);
    CHECK(c.kind == ProvenTarget::Kind::A11y);
    CHECK(c.lua == "{ resource_id = \"board\" }");
    // The canvas pressed near its corner: a replay tapping its centre would press elsewhere.
    ProvenTarget d = proveTarget(f, &root, {380, 220}, locator, o);
    CHECK(d.kind == ProvenTarget::Kind::Point);
    CHECK(d.why.find("not near its centre") != std::string::npos);
}

TEST_CASE("a verify of a filled field proves what it holds: the tree's element with its value", "[record]") {
    // A label and the field it names (the agent's MSAA tree names a field by its label), the
    // field holding 张三, and a second field holding the same value under another name.
    A11yElement root;
    root.role = "frame";
    root.name = "form";
    root.bounds = {0, 0, 800, 600};
    root.states = {"showing"};
    auto field = [](const std::string& name, const std::string& value, Rect b, std::vector<int> path) {
        A11yElement e;
        e.role = "text";
        e.name = name;
        e.value = value;
        e.bounds = b;
        e.states = {"showing", "editable"};
        e.editable_text = true;
        e.path = std::move(path);
        return e;
    };
    root.children = {field("姓名", "张三", {110, 20, 280, 32}, {0, 0}), field("城市", "张三", {110, 60, 280, 32}, {0, 1})};
    Frame f;
    f.bgr = cv::Mat(600, 800, CV_8UC3, cv::Scalar(255, 255, 255));
    Locator locator;
    ProofOptions o;
    o.text = false;
    o.image = false;
    o.field_value = true;
    std::vector<ProvenTarget> ts = proveTargets(f, &root, {130, 36}, locator, o);
    REQUIRE(ts.size() == 2);
    CHECK(ts[0].kind == ProvenTarget::Kind::A11y);
    CHECK(ts[0].lua == "{ role = \"text\", name = \"姓名\", value = \"张三\" }");
    CHECK(ts[1].lua == "{ role = \"text\", name = \"姓名\" }");
    // Without field_value (a tap), the field by its name only.
    o.field_value = false;
    CHECK(proveTarget(f, &root, {130, 36}, locator, o).lua == "{ role = \"text\", name = \"姓名\" }");
    // A password's value is never written.
    root.children[0].role = "password text";
    o.field_value = true;
    CHECK(proveTarget(f, &root, {130, 36}, locator, o).lua == "{ role = \"password text\", name = \"姓名\" }");
}
