// AssetLibrary: index files (global and per app), names, aliases, qualified names, the
// resolution order of a target string, variants, the image cache and the errors for bad
// indexes and missing images. Every library is built in a folder the test makes.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <filesystem>

#include <opencv2/imgcodecs.hpp>

#include "TempDir.h"
#include "assets/AssetLibrary.h"

using namespace eacu;
using eacu::test::TempDir;
namespace fs = std::filesystem;

namespace {

// Writes a w x h PNG of one colour at `path` (folders made as needed). Sizes tell images apart.
void png(const std::string& path, int w, int h, int grey = 128) {
    fs::create_directories(fs::path(path).parent_path());
    REQUIRE(cv::imwrite(path, cv::Mat(h, w, CV_8UC3, cv::Scalar(grey, grey / 2, 255 - grey))));
}

std::string canonical(const std::string& p) { return fs::weakly_canonical(p).string(); }

// A root with assets/index.json and two apps' indexes (plus a folder without one and a file).
struct Library {
    TempDir dir;
    std::string global, calc, notes;

    Library() {
        global = dir.write("assets/index.json", R"({
          "version": "1.0",
          "common": {
            "ok_button": {"path": "ok.png", "aliases": ["OK", "确定"], "threshold": 0.85,
                          "offset": [3, -2], "scale": 2.0, "description": "the OK button"}
          },
          "close": {"path": "img/close.png"},
          "comment": "not an entry"
        })");
        png(dir / "assets/ok.png", 20, 10);
        png(dir / "assets/img/close.png", 12, 12);
        calc = dir.write("scripts/calc/images/index.json", R"({
          "buttons": {
            "btn_1": {"path": "btn_1.png", "aliases": ["one"]},
            "ok_button": {"path": "ok_calc.png"},
            "shared": {"path": "s.png"}
          }
        })");
        png(dir / "scripts/calc/images/btn_1.png", 16, 16);
        png(dir / "scripts/calc/images/ok_calc.png", 30, 10);
        png(dir / "scripts/calc/images/s.png", 8, 8);
        notes = dir.write("scripts/notes/images/index.json",
                          R"({"shared": {"path": "../s.png", "aliases": ["one"]}})");
        png(dir / "scripts/notes/s.png", 9, 9);
        fs::create_directories(dir / "scripts/empty");
        dir.write("scripts/README", "not an app");
    }
    AssetLibrary load() const { return AssetLibrary::loadFrom(dir.path().string()); }
};

// Changes the working directory for one scope.
struct WorkingDir {
    fs::path old = fs::current_path();
    explicit WorkingDir(const fs::path& p) { fs::current_path(p); }
    ~WorkingDir() { fs::current_path(old); }
};

// The message of the std::runtime_error that `f` throws ("" when it throws none).
template <class F>
std::string errorOf(F&& f) {
    try {
        f();
    } catch (const std::runtime_error& e) {
        return e.what();
    }
    return "";
}

}  // namespace

TEST_CASE("AssetLibrary: loadFrom reads the global index, then each app's in name order", "[assets]") {
    Library l;
    AssetLibrary lib = l.load();
    CHECK(lib.indexFiles() == std::vector<std::string>{l.global, l.calc, l.notes});
    CHECK(lib.names() == std::vector<std::string>{"calc.btn_1", "calc.ok_button", "calc.shared", "close",
                                                  "notes.shared", "ok_button"});

    // A root with neither assets/ nor scripts/ is an empty library, not an error.
    TempDir empty;
    AssetLibrary none = AssetLibrary::loadFrom(empty.path().string());
    CHECK(none.names().empty());
    CHECK(none.indexFiles().empty());
}

TEST_CASE("AssetLibrary: an entry's fields, and paths relative to its index", "[assets]") {
    Library l;
    AssetLibrary lib = l.load();
    const Asset* ok = lib.find("ok_button");
    REQUIRE(ok);
    CHECK(ok->app.empty());
    CHECK(ok->qualifiedName() == "ok_button");
    CHECK(ok->path == canonical(l.dir / "assets/ok.png"));
    CHECK(fs::path(ok->path).is_absolute());
    CHECK(ok->aliases == std::vector<std::string>{"OK", "确定"});
    REQUIRE(ok->threshold);
    CHECK(*ok->threshold == Approx(0.85));
    CHECK(ok->offset.x == 3);
    CHECK(ok->offset.y == -2);
    REQUIRE(ok->scale);
    CHECK(*ok->scale == Approx(2.0));
    CHECK(ok->description == "the OK button");

    const Asset* close = lib.find("close");  // an entry at the top level
    REQUIRE(close);
    CHECK(close->path == canonical(l.dir / "assets/img/close.png"));
    CHECK_FALSE(close->threshold);
    CHECK_FALSE(close->scale);

    const Asset* shared = lib.find("notes.shared");  // "../s.png" from scripts/notes/images
    REQUIRE(shared);
    CHECK(shared->app == "notes");
    CHECK(shared->path == canonical(l.dir / "scripts/notes/s.png"));
}

TEST_CASE("AssetLibrary: names, aliases, qualified names and ambiguity", "[assets]") {
    Library l;
    AssetLibrary lib = l.load();
    // Qualified and bare names of an app's asset; aliases, also non-ASCII.
    const Asset* b1 = lib.find("calc.btn_1");
    REQUIRE(b1);
    CHECK(b1->name == "btn_1");
    CHECK(b1->app == "calc");
    CHECK(lib.find("btn_1") == b1);
    CHECK(lib.find("OK") == lib.find("ok_button"));
    CHECK(lib.find("确定") == lib.find("ok_button"));
    // Names are case-sensitive; unknown names are nullptr, not an error.
    CHECK(lib.find("ok") == nullptr);
    CHECK(lib.find("nothing") == nullptr);
    CHECK(lib.find("calc.nothing") == nullptr);
    // Aliases are not qualified ("calc.one" is no name).
    CHECK(lib.find("calc.one") == nullptr);

    // The global index wins over an app for a bare name; the app's stays reachable qualified.
    const Asset* global_ok = lib.find("ok_button");
    REQUIRE(global_ok);
    CHECK(global_ok->app.empty());
    const Asset* calc_ok = lib.find("calc.ok_button");
    REQUIRE(calc_ok);
    CHECK(calc_ok->app == "calc");
    CHECK(calc_ok != global_ok);

    // A bare name or alias two apps share is ambiguous: the error lists both qualified names.
    for (std::string name : {"shared", "one"}) {
        INFO(name);
        std::string msg;
        try {
            lib.find(name);
        } catch (const TargetNotFound& e) {
            msg = e.what();
        }
        CHECK_THAT(msg, Catch::Contains("target \"" + name + "\" is ambiguous"));
        CHECK_THAT(msg, Catch::Contains("notes.shared"));
        CHECK_THAT(msg, Catch::Contains("write the qualified name"));
    }
    CHECK(lib.find("calc.shared")->app == "calc");
    CHECK(lib.find("notes.shared")->app == "notes");
}

TEST_CASE("AssetLibrary: resolve carries the asset's settings into the template", "[assets]") {
    Library l;
    AssetLibrary lib = l.load();
    Template t = lib.resolve("OK", "");
    CHECK(t.name == "ok_button");
    CHECK(t.path == canonical(l.dir / "assets/ok.png"));
    CHECK(t.bgr.cols == 20);
    CHECK(t.bgr.rows == 10);
    CHECK(t.threshold == Approx(0.85));
    CHECK(t.offset.x == 3);
    CHECK(t.offset.y == -2);
    CHECK(t.scale == Approx(2.0));

    Template b = lib.resolve("btn_1", "");
    CHECK(b.name == "calc.btn_1");
    CHECK(b.threshold == Approx(kDefaultThreshold));
    CHECK(b.offset.x == 0);
    CHECK(b.scale == Approx(1.0));
    CHECK(b.bgr.cols == 16);
}

TEST_CASE("AssetLibrary: resolution order is asset, then script folder, then working directory", "[assets]") {
    Library l;
    AssetLibrary lib = l.load();
    TempDir script, cwd;
    png(script / "ok_button.png", 7, 7);    // a file named like the asset
    png(script / "icons/star.png", 5, 6);
    png(script / "both.png", 11, 11);
    png(cwd / "both.png", 13, 13);
    png(cwd / "cwd_only.png", 14, 14);

    // An asset name wins over a file of that name beside the script.
    CHECK(lib.resolve("ok_button", script.path().string()).bgr.cols == 20);
    // With its extension the file is found; without, ".png" is tried.
    Template file = lib.resolve("ok_button.png", script.path().string());
    CHECK(file.bgr.cols == 7);
    CHECK(file.name == "ok_button.png");
    CHECK(file.threshold == Approx(kDefaultThreshold));
    Template star = lib.resolve("icons/star", script.path().string());
    CHECK(star.bgr.cols == 5);
    CHECK(star.name == "icons/star");
    CHECK(star.path == canonical(script / "icons/star.png"));
    // An absolute path is used as it is.
    CHECK(lib.resolve(script / "icons/star.png", "").bgr.rows == 6);

    WorkingDir wd(cwd.path());
    // The script's folder wins over the working directory; the working directory is the last try.
    CHECK(lib.resolve("both", script.path().string()).bgr.cols == 11);
    CHECK(lib.resolve("both", "").bgr.cols == 13);
    CHECK(lib.resolve("cwd_only", script.path().string()).bgr.cols == 14);
}

TEST_CASE("AssetLibrary: what resolve says when nothing matches", "[assets]") {
    Library l;
    AssetLibrary lib = l.load();
    TempDir script;
    std::string msg;
    try {
        lib.resolve("nope", script.path().string());
    } catch (const TargetNotFound& e) {
        msg = e.what();
    }
    CHECK_THAT(msg, Catch::StartsWith("target \"nope\" not found: it is not an asset name or alias (6 assets in"));
    CHECK_THAT(msg, Catch::Contains(l.global));
    CHECK_THAT(msg, Catch::Contains(l.notes));
    CHECK_THAT(msg, Catch::Contains((script.path() / "nope").string() + " "));
    CHECK_THAT(msg, Catch::Contains((script.path() / "nope.png").string()));
    CHECK_THAT(msg, Catch::Contains((fs::current_path() / "nope.png").string()));

    // With no index at all the message says so.
    AssetLibrary empty;
    CHECK_THAT(errorOf([&] { empty.resolve("x", ""); }), Catch::Contains("0 assets in no index"));
    CHECK_THROWS_AS(empty.resolve("x", ""), TargetNotFound);
    CHECK_THROWS_WITH(empty.resolve("", ""), Catch::Contains("empty target"));
    CHECK_THROWS_AS(empty.resolve("", ""), TargetNotFound);
}

TEST_CASE("AssetLibrary: a file that is not an image, and an asset whose image is missing", "[assets]") {
    TempDir root;
    root.write("assets/index.json", R"({"gone": {"path": "gone.png"}})");
    root.write("script/bad.png", "this is text, not a PNG");
    AssetLibrary lib = AssetLibrary::loadFrom(root.path().string());  // paths are not checked here
    REQUIRE(lib.find("gone"));

    // A file that exists but does not decode: an error about the image, not "not found".
    bool not_found = false;
    std::string msg;
    try {
        lib.resolve("bad", root / "script");
    } catch (const TargetNotFound&) {
        not_found = true;
    } catch (const std::runtime_error& e) {
        msg = e.what();
    }
    CHECK_FALSE(not_found);
    CHECK_THAT(msg, Catch::Contains("cannot read image"));
    CHECK_THAT(msg, Catch::Contains("bad.png"));

    // An asset whose file is missing names the file.
    std::string gone = errorOf([&] { lib.resolve("gone", ""); });
    CHECK_THAT(gone, Catch::Contains("cannot read image"));
    CHECK_THAT(gone, Catch::Contains(canonical(root / "assets/gone.png")));
}

TEST_CASE("AssetLibrary: decoded images are cached by path", "[assets]") {
    Library l;
    AssetLibrary lib = l.load();
    Template a = lib.resolve("close", "");
    Template b = lib.resolve("close", "");
    CHECK(a.bgr.data == b.bgr.data);  // the same decoded pixels
    png(l.dir / "assets/img/close.png", 40, 40);  // changed on disk: the cache keeps the first
    CHECK(lib.resolve("close", "").bgr.cols == 12);
    // Another library reads the file again.
    CHECK(l.load().resolve("close", "").bgr.cols == 40);
}

TEST_CASE("AssetLibrary: a variant <stem>_v2 beside the image", "[assets]") {
    Library l;
    png(l.dir / "assets/ok_v2.png", 23, 10);
    png(l.dir / "scripts/calc/images/btn_1_v10.png", 21, 16);  // past _v9: not a variant
    png(l.dir / "scripts/calc/images/btn_1v2.png", 22, 16);    // not the naming
    AssetLibrary lib = l.load();

    // Variants carry the asset's threshold, offset and scale.
    std::vector<Template> ok = lib.resolveVariants("OK", "");
    REQUIRE(ok.size() == 2);
    CHECK(ok[0].name == "ok_button");
    CHECK(ok[0].bgr.cols == 20);
    CHECK(ok[1].name == "ok_button (v2)");
    CHECK(ok[1].bgr.cols == 23);
    CHECK(ok[1].threshold == Approx(0.85));
    CHECK(ok[1].offset.x == 3);
    CHECK(ok[1].offset.y == -2);
    CHECK(ok[1].scale == Approx(2.0));

    CHECK(lib.resolveVariants("close", "").size() == 1);
    CHECK(lib.resolveVariants("calc.btn_1", "").size() == 1);
}

// Two or more variants (resolveVariants once read its base template through a reference into
// the vector it appended to: a use-after-free from the second variant on).
TEST_CASE("AssetLibrary: several variants <stem>_v2 .. _v9, gaps allowed", "[assets]") {
    Library l;
    png(l.dir / "scripts/calc/images/btn_1_v2.png", 17, 16);
    png(l.dir / "scripts/calc/images/btn_1_v3.png", 18, 16);
    png(l.dir / "scripts/calc/images/btn_1_v5.png", 19, 16);  // after a gap: still a variant
    AssetLibrary lib = l.load();
    std::vector<Template> v = lib.resolveVariants("calc.btn_1", "");
    REQUIRE(v.size() == 4);
    CHECK(v[0].name == "calc.btn_1");
    CHECK(v[0].bgr.cols == 16);
    CHECK(v[1].name == "calc.btn_1 (v2)");
    CHECK(v[1].bgr.cols == 17);
    CHECK(v[2].name == "calc.btn_1 (v3)");
    CHECK(v[2].threshold == Approx(kDefaultThreshold));
    CHECK(v[3].name == "calc.btn_1 (v5)");
    CHECK(v[3].bgr.cols == 19);
}

TEST_CASE("AssetLibrary: malformed indexes are errors naming the file and the entry", "[assets]") {
    TempDir dir;
    struct Bad {
        const char* json;
        const char* says;
    };
    const Bad cases[] = {
        {"{", "not valid JSON"},
        {"[1, 2]", "expected a JSON object at the top level"},
        {R"({"cat": {"x": {"aliases": ["y"]}}})", "asset \"x\": expected a string \"path\""},
        // An object without "path" at the top level is a category: its members must be entries.
        {R"({"x": {"aliases": ["y"]}})", "\"x.aliases\": expected an object with \"path\""},
        {R"({"x": {"path": 5}})", "asset \"x\": expected a string \"path\""},
        {R"({"x": {"path": "x.png", "aliases": "y"}})", "\"aliases\" must be an array of strings"},
        {R"({"x": {"path": "x.png", "aliases": ["y", 3]}})", "\"aliases\" must be an array of strings"},
        {R"({"x": {"path": "x.png", "threshold": 1.5}})", "\"threshold\" must be in 0..1"},
        {R"({"x": {"path": "x.png", "threshold": -0.1}})", "\"threshold\" must be in 0..1"},
        {R"({"x": {"path": "x.png", "threshold": "high"}})", "\"threshold\" must be a number"},
        {R"({"x": {"path": "x.png", "offset": [1]}})", "\"offset\" must be [dx, dy]"},
        {R"({"x": {"path": "x.png", "offset": [1, "2"]}})", "\"offset\" must be [dx, dy]"},
        {R"({"x": {"path": "x.png", "scale": 0}})", "\"scale\" must be a positive number"},
        {R"({"x": {"path": "x.png", "scale": "2x"}})", "\"scale\" must be a positive number"},
        {R"({"a": {"x": {"path": "x.png"}}, "b": {"x": {"path": "y.png"}}})", "\"x\" is defined twice"},
        {R"({"x": {"path": "x.png"}, "y": {"path": "y.png", "aliases": ["x"]}})", "\"x\" is defined twice"},
        {R"({"x": {"path": "x.png", "aliases": ["z", "z"]}})", "\"z\" is defined twice"},
        {R"({"cat": {"x": 5}})", "\"cat.x\": expected an object with \"path\""},
    };
    int i = 0;
    for (const Bad& b : cases) {
        std::string file = dir.write("index" + std::to_string(i++) + ".json", b.json);
        INFO(b.json);
        AssetLibrary lib;
        std::string msg = errorOf([&] { lib.loadIndex(file, ""); });
        CHECK_THAT(msg, Catch::StartsWith(file + ": "));
        CHECK_THAT(msg, Catch::Contains(b.says));
    }
    AssetLibrary lib;
    CHECK_THAT(errorOf([&] { lib.loadIndex(dir / "missing.json", ""); }),
               Catch::Contains("missing.json: cannot open asset index"));

    // The same name in two apps' indexes is not a duplicate; a broken app index stops loadFrom.
    TempDir root;
    root.write("scripts/a/images/index.json", R"({"x": {"path": "x.png"}})");
    root.write("scripts/b/images/index.json", R"({"x": {"path": "x.png"}})");
    CHECK(AssetLibrary::loadFrom(root.path().string()).names() == std::vector<std::string>{"a.x", "b.x"});
    std::string broken = root.write("scripts/c/images/index.json", R"({"x": {"path": "x.png", "threshold": 2}})");
    CHECK_THAT(errorOf([&] { AssetLibrary::loadFrom(root.path().string()); }), Catch::StartsWith(broken + ": "));
}
