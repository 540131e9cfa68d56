#include "bench/Corpus.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

namespace fs = std::filesystem;

namespace eacu {

std::vector<CorpusCase> loadCorpus(const std::string& dir) {
    fs::path file = fs::path(dir) / "cases.json";
    std::ifstream in(file);
    if (!in) throw std::runtime_error("corpus: cannot open " + file.string());
    nlohmann::json doc;
    try {
        doc = nlohmann::json::parse(in);
    } catch (const nlohmann::json::exception& e) {  // parse_error, out_of_range (a number too large)
        throw std::runtime_error("corpus: " + file.string() + " is not valid JSON: " + e.what());
    }
    if (!doc.is_array()) throw std::runtime_error("corpus: " + file.string() + ": expected a JSON array of cases");
    std::vector<CorpusCase> out;
    for (size_t i = 0; i < doc.size(); ++i) {
        const auto& j = doc[i];
        auto fail = [&](const std::string& what) {
            throw std::runtime_error("corpus: " + file.string() + ": case " + std::to_string(i) + ": " + what);
        };
        if (!j.is_object() || !j.contains("kind") || !j["kind"].is_string()) fail("expected an object with \"kind\"");
        CorpusCase c;
        c.kind = j["kind"];
        if (!j.contains("screenshot") || !j["screenshot"].is_string()) fail("expected \"screenshot\"");
        c.screenshot = (fs::path(dir) / j["screenshot"].get<std::string>()).string();
        if (c.kind == "positive" || c.kind == "negative") {
            if (!j.contains("template") || !j["template"].is_string()) fail("expected \"template\"");
            c.tmpl = (fs::path(dir) / j["template"].get<std::string>()).string();
        } else if (c.kind == "text") {
            if (!j.contains("text") || !j["text"].is_string()) fail("expected \"text\"");
            c.text = j["text"];
        } else {
            fail("unknown kind \"" + c.kind + "\" (expected positive, negative or text)");
        }
        auto box = [&](const nlohmann::json& e, const std::string& what) {
            if (!e.is_array() || e.size() != 4 || !std::all_of(e.begin(), e.end(), [](const auto& v) { return v.is_number(); }))
                fail(what + " must be [x, y, w, h]");
            return Rect{int(std::lround(e[0].get<double>())), int(std::lround(e[1].get<double>())),
                        int(std::lround(e[2].get<double>())), int(std::lround(e[3].get<double>()))};
        };
        if (j.contains("expect") && j["expect"].is_array()) {
            c.expect = box(j["expect"], "\"expect\"");
        } else if (c.kind != "negative") {
            fail("expected \"expect\": [x, y, w, h]");
        }
        if (j.contains("also")) {
            if (!j["also"].is_array()) fail("\"also\" must be a list of [x, y, w, h]");
            for (const auto& e : j["also"]) c.also.push_back(box(e, "each box of \"also\""));
        }
        if (j.contains("scale") && j["scale"].is_number()) c.scale = j["scale"];
        if (j.contains("toolkit")) {
            if (!j["toolkit"].is_string()) fail("\"toolkit\" must be a string such as \"gtk3\"");
            c.toolkit = j["toolkit"];
        }
        out.push_back(std::move(c));
    }
    return out;
}

bool isHit(const Rect& found, const Rect& expect) {
    // Centre in real numbers: a box of even width has its centre between two pixels.
    double cx = found.x + found.w / 2.0, cy = found.y + found.h / 2.0;
    return cx >= expect.x && cy >= expect.y && cx <= expect.x + expect.w && cy <= expect.y + expect.h;
}

bool isHit(const Rect& found, const CorpusCase& c) {
    if (c.expect && isHit(found, *c.expect)) return true;
    return std::any_of(c.also.begin(), c.also.end(), [&](const Rect& r) { return isHit(found, r); });
}

Percentiles percentiles(std::vector<double> v) {
    if (v.empty()) return {};
    std::sort(v.begin(), v.end());
    auto at = [&](double q) { return v[std::min(v.size() - 1, size_t(std::ceil(q * v.size())) - 1)]; };
    return {at(0.5), at(0.9)};
}

}  // namespace eacu
