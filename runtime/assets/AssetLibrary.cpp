#include "assets/AssetLibrary.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>

#include <nlohmann/json.hpp>

namespace fs = std::filesystem;
using nlohmann::json;

namespace eacu {

AssetLibrary AssetLibrary::loadFrom(const std::string& root) {
    AssetLibrary lib;
    fs::path global = fs::path(root) / "assets" / "index.json";
    if (fs::exists(global)) lib.loadIndex(global.string(), "");
    fs::path scripts = fs::path(root) / "scripts";
    if (fs::is_directory(scripts)) {
        std::vector<fs::path> apps;
        for (const auto& e : fs::directory_iterator(scripts))
            if (e.is_directory()) apps.push_back(e.path());
        std::sort(apps.begin(), apps.end());
        for (const auto& app : apps) {
            fs::path idx = app / "images" / "index.json";
            if (fs::exists(idx)) lib.loadIndex(idx.string(), app.filename().string());
        }
    }
    return lib;
}

void AssetLibrary::loadIndex(const std::string& index_path, const std::string& app) {
    std::ifstream in(index_path);
    if (!in) throw std::runtime_error(index_path + ": cannot open asset index");
    json doc;
    try {
        doc = json::parse(in);
    } catch (const json::exception& e) {  // parse_error, and out_of_range for a number too large ("1E1111")
        throw std::runtime_error(index_path + ": not valid JSON: " + e.what());
    }
    if (!doc.is_object())
        throw std::runtime_error(index_path + ": expected a JSON object at the top level");
    fs::path base = fs::path(index_path).parent_path();
    std::set<std::string> scope_keys;

    auto add = [&](const std::string& name, const json& e) {
        auto fail = [&](const std::string& what) {
            throw std::runtime_error(index_path + ": asset \"" + name + "\": " + what);
        };
        if (!e.contains("path") || !e["path"].is_string()) fail("expected a string \"path\"");
        auto a = std::make_unique<Asset>();
        a->name = name;
        a->app = app;
        a->path = fs::weakly_canonical(base / e["path"].get<std::string>()).string();
        if (e.contains("aliases")) {
            if (!e["aliases"].is_array()) fail("\"aliases\" must be an array of strings");
            for (const auto& al : e["aliases"]) {
                if (!al.is_string()) fail("\"aliases\" must be an array of strings");
                a->aliases.push_back(al.get<std::string>());
            }
        }
        if (e.contains("threshold")) {
            if (!e["threshold"].is_number()) fail("\"threshold\" must be a number in 0..1");
            double t = e["threshold"].get<double>();
            if (t < 0 || t > 1) fail("\"threshold\" must be in 0..1, got " + std::to_string(t));
            a->threshold = t;
        }
        if (e.contains("offset")) {
            const json& o = e["offset"];
            if (!o.is_array() || o.size() != 2 || !o[0].is_number() || !o[1].is_number())
                fail("\"offset\" must be [dx, dy] in template pixels");
            a->offset = {o[0].get<int>(), o[1].get<int>()};
        }
        if (e.contains("scale")) {
            if (!e["scale"].is_number() || e["scale"].get<double>() <= 0)
                fail("\"scale\" must be a positive number (device scale factor)");
            a->scale = e["scale"].get<double>();
        }
        if (e.contains("description") && e["description"].is_string())
            a->description = e["description"].get<std::string>();
        std::vector<std::string> keys = {name};
        keys.insert(keys.end(), a->aliases.begin(), a->aliases.end());
        for (const auto& k : keys) {
            if (!scope_keys.insert(k).second) fail("name or alias \"" + k + "\" is defined twice");
            by_key_[k].push_back(a.get());
        }
        if (!app.empty()) by_key_[a->qualifiedName()].push_back(a.get());
        assets_.push_back(std::move(a));
    };

    for (const auto& [key, value] : doc.items()) {
        if (key == "version") continue;
        if (!value.is_object()) continue;
        if (value.contains("path")) {
            add(key, value);
        } else {
            for (const auto& [name, entry] : value.items()) {
                if (!entry.is_object())
                    throw std::runtime_error(index_path + ": \"" + key + "." + name +
                                             "\": expected an object with \"path\"");
                add(name, entry);
            }
        }
    }
    index_files_.push_back(index_path);
}

const Asset* AssetLibrary::find(const std::string& name) const {
    auto it = by_key_.find(name);
    if (it == by_key_.end()) return nullptr;
    const auto& hits = it->second;
    if (hits.size() == 1) return hits.front();
    for (const Asset* a : hits)
        if (a->app.empty()) return a;  // the shared index wins over apps
    std::string list;
    for (const Asset* a : hits) list += (list.empty() ? "" : ", ") + a->qualifiedName();
    throw TargetNotFound("target \"" + name + "\" is ambiguous: it names " + list +
                         "; write the qualified name");
}

Template AssetLibrary::loadImage(const std::string& path) const {
    auto it = cache_.find(path);
    if (it != cache_.end()) return it->second;
    Template t = Template::load(path);
    cache_.emplace(path, t);
    return t;
}

Template AssetLibrary::resolve(const std::string& target, const std::string& script_dir) const {
    if (target.empty()) throw TargetNotFound("empty target: expected an asset name or image path");
    if (const Asset* a = find(target)) {
        Template t = loadImage(a->path);
        t.name = a->qualifiedName();
        if (a->threshold) t.threshold = *a->threshold;
        t.offset = a->offset;
        if (a->scale) t.scale = *a->scale;
        return t;
    }
    std::vector<fs::path> tried;
    auto candidates = [&](const fs::path& base) {
        fs::path p = fs::path(target).is_absolute() ? fs::path(target) : base / target;
        tried.push_back(p);
        if (p.extension().empty()) tried.push_back(fs::path(p.string() + ".png"));
    };
    if (!script_dir.empty()) candidates(script_dir);
    candidates(fs::current_path());
    for (const auto& p : tried) {
        if (fs::is_regular_file(p)) {
            Template t = loadImage(fs::weakly_canonical(p).string());
            t.name = target;
            return t;
        }
    }
    std::string msg = "target \"" + target + "\" not found: it is not an asset name or alias (" +
                      std::to_string(assets_.size()) + " assets in";
    if (index_files_.empty()) msg += " no index";
    for (const auto& f : index_files_) msg += " " + f;
    msg += ") and not an image file (tried";
    std::set<std::string> seen;
    for (const auto& p : tried)
        if (seen.insert(p.string()).second) msg += " " + p.string();
    msg += ")";
    throw TargetNotFound(msg);
}

std::vector<Template> AssetLibrary::resolveVariants(const std::string& target,
                                                    const std::string& script_dir) const {
    std::vector<Template> out{resolve(target, script_dir)};
    const Template base = out.front();  // a copy: out grows below
    fs::path p(base.path);
    for (int v = 2; v <= 9; ++v) {
        fs::path variant = p.parent_path() / (p.stem().string() + "_v" + std::to_string(v) + p.extension().string());
        if (!fs::is_regular_file(variant)) continue;
        Template t = loadImage(variant.string());
        t.name = base.name + " (v" + std::to_string(v) + ")";
        t.threshold = base.threshold;
        t.offset = base.offset;
        t.scale = base.scale;
        out.push_back(std::move(t));
    }
    return out;
}

std::vector<std::string> AssetLibrary::names() const {
    std::vector<std::string> out;
    for (const auto& a : assets_) out.push_back(a->qualifiedName());
    std::sort(out.begin(), out.end());
    return out;
}

}  // namespace eacu
