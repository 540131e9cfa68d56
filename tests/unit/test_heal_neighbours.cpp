// recorder/Neighbours (an element's labels around it, with their sides) and heal/SimilarityHealer's
// similarity() over them: the renamed element in its place scores high, a recorded neighbour is
// never taken for the element.
#include <filesystem>

#include <catch2/catch.hpp>
#include <opencv2/imgproc.hpp>

#include "heal/SimilarityHealer.h"
#include "recorder/Neighbours.h"

using namespace eacu;

TEST_CASE("neighboursOf: labels around a box, nearest first, with their sides", "[heal]") {
    const Rect box{280, 1000, 240, 160};  // reach: 2 * 240 + 40 = 520 pixels each way
    const std::vector<std::pair<std::string, Rect>> labels = {
        {"你好", {20, 1000, 240, 160}},   // left
        {"张三", {160, 0, 380, 160}},      // above, out of reach
        {"hi", {135, 610, 385, 120}},      // above, in reach
        {"发送", {300, 1020, 200, 120}},   // inside: the element's own
        {"你好", {20, 600, 50, 50}},       // the same text again, farther: once
        {"", {560, 1000, 50, 50}},         // no text
    };
    const std::vector<Neighbour> ns = neighboursOf(labels, box, 1.0);
    REQUIRE(ns.size() == 2);
    CHECK(ns[0] == Neighbour{"你好", "left"});
    CHECK(ns[1] == Neighbour{"hi", "above"});
    CHECK(neighboursFromJson(neighboursJson(ns)) == ns);
    // Siblings count wherever they lie; `max` keeps the nearest.
    const std::vector<Neighbour> with = neighboursOf(labels, box, 1.0, {{"张三", {160, 0, 380, 160}}});
    REQUIRE(with.size() == 3);
    CHECK(with[2] == Neighbour{"张三", "above"});
    CHECK(neighboursOf(labels, box, 1.0, {{"张三", {160, 0, 380, 160}}}, 1) == std::vector<Neighbour>{{"你好", "left"}});
    CHECK(neighboursFromJson(nlohmann::json::parse(R"([["a", "left"], ["b"], 3, ["c", "below"]])")) ==
          std::vector<Neighbour>{{"a", "left"}, {"c", "below"}});
    CHECK(neighboursFromJson(nlohmann::json::object()).empty());
}

TEST_CASE("treeLabels: named (or described) elements that show, in tree order", "[heal]") {
    A11yElement root;
    root.bounds = {0, 0, 540, 1200};
    root.states = {"showing"};
    A11yElement back;
    back.description = "返回";
    back.bounds = {0, 0, 160, 160};
    back.states = {"showing"};
    A11yElement hidden;
    hidden.name = "gone";
    hidden.bounds = {0, 200, 10, 10};
    A11yElement send;
    send.name = "发送";
    send.bounds = {280, 1000, 240, 160};
    send.states = {"showing"};
    root.children = {back, hidden, send};
    const auto labels = treeLabels(root);
    const auto sib = treeSiblings(root, send.bounds);
    REQUIRE(sib.size() == 1);
    CHECK(sib[0].first == "返回");
    CHECK(treeSiblings(root, {1, 1, 2, 2}).empty());
    REQUIRE(labels.size() == 2);
    CHECK(labels[0].first == "返回");
    CHECK(labels[1].first == "发送");
    CHECK(labels[1].second == send.bounds);
}

TEST_CASE("similarity: the renamed element in its place, and a recorded neighbour never the element", "[heal]") {
    LineReference ref;
    ref.words = {"发送"};
    ref.role = "push button";
    ref.box = Rect{280, 1000, 240, 160};
    ref.frame_size = {540, 1200};
    ref.neighbours = {{"你好", "left"}, {"hi", "above"}};
    Frame f;
    f.bgr = cv::Mat(1200, 540, CV_8UC3, cv::Scalar(255, 255, 255));
    const std::vector<std::pair<std::string, Rect>> labels = {
        {"你好", {20, 1000, 240, 160}}, {"hi", {135, 610, 385, 120}}, {"Send", {280, 1000, 240, 160}}};
    SomElement renamed;
    renamed.box = {280, 1000, 240, 160};
    renamed.content = "Send";
    std::string why;
    // words 0 (1.5), role 1 (1.5), neighbours 1 (1.5), position 1 (0.5): 3.5 / 5
    CHECK(similarity(ref, renamed, "push button", f, labels, nullptr, why) == Approx(0.7));
    CHECK(why == "words 0.00 role 1.00 neighbours 1.00 position 1.00");

    SomElement field;
    field.box = {20, 1000, 240, 160};
    field.content = "你好";
    why.clear();
    CHECK(similarity(ref, field, "text", f, labels, nullptr, why) == 0);
    CHECK(why == "it is the recorded neighbour \"你好\"");

    // Another button far away with none of the neighbours: the role alone.
    SomElement other;
    other.box = {0, 0, 160, 160};
    other.content = "<";
    why.clear();
    CHECK(similarity(ref, other, "push button", f, labels, nullptr, why) < kHealMinScore);
}

TEST_CASE("FrameEvidence: what the recorder keeps beside a proof frame, read back as written", "[heal]") {
    OcrResult reading;
    reading.lines = {{"Save", {110, 200, 40, 16}, 0.95f, {}},   // inside the crop: its word
                     {"确定", {220, 200, 30, 16}, 0.9f, {}},    // right, in reach (2 * 80 + 40 = 200 px)
                     {"Orange", {100, 150, 60, 16}, 0.92f, {}}, // above
                     {"blur", {100, 120, 40, 16}, 0.5f, {}},    // not read with confidence
                     {"--", {60, 200, 20, 16}, 0.99f, {}},      // no letters
                     {"far", {900, 700, 30, 16}, 0.99f, {}}};   // out of reach
    FrameEvidence ev;
    ev.tree_neighbours = {{"hi", "above"}};
    // The frame: a bordered button around "Save" (its kind, a Set-of-Marks "button").
    cv::Mat frame(800, 1280, CV_8UC3, cv::Scalar(255, 255, 255));
    cv::rectangle(frame, cv::Rect(95, 190, 70, 36), cv::Scalar(225, 225, 225), cv::FILLED);
    cv::rectangle(frame, cv::Rect(95, 190, 70, 36), cv::Scalar(60, 60, 60), 2);
    readEvidence(ev, reading, frame, {90, 180, 80, 56}, {1280, 800}, 1.0);
    REQUIRE(ev.box);
    CHECK(ev.kind == "button");
    CHECK(somKindAt(frame, reading, {600, 600}, 1.0).empty());  // nothing there
    CHECK(somKindAt(cv::Mat(), reading, {130, 208}, 1.0).empty());  // no pixels: no kind
    CHECK(*ev.box == Rect{90, 180, 80, 56});
    CHECK(ev.frame_size == Size{1280, 800});
    CHECK(ev.words == std::vector<std::string>{"Save"});
    CHECK(ev.ocr_neighbours == std::vector<Neighbour>{{"Orange", "above"}, {"确定", "right"}});

    const std::string path = (std::filesystem::temp_directory_path() / "eacu_test_frame_evidence.json").string();
    writeFrameEvidence(path, ev);
    const FrameEvidence back = readFrameEvidence(path);
    std::filesystem::remove(path);
    REQUIRE(back.box);
    CHECK(*back.box == *ev.box);
    CHECK(back.frame_size == ev.frame_size);
    CHECK(back.kind == "button");
    CHECK(back.words == ev.words);
    CHECK(back.ocr_neighbours == ev.ocr_neighbours);
    CHECK(back.tree_neighbours == ev.tree_neighbours);

    // A file written before the reading was kept (tree neighbours only): no box, so a heal reads
    // the frame itself; a file that is not the recorder's: nothing.
    const FrameEvidence old = frameEvidenceFromJson(nlohmann::json::parse(R"({"tree_neighbours": [["你好", "left"]]})"));
    CHECK_FALSE(old.box);
    CHECK(old.tree_neighbours == std::vector<Neighbour>{{"你好", "left"}});
    CHECK_FALSE(frameEvidenceFromJson(nlohmann::json::parse(R"({"ocr": {"box": [1, 2, 3], "frame": [4, 5], "words": []}})")).box);
    CHECK_FALSE(readFrameEvidence("/nonexistent/eacu_frame.json").box);
}
