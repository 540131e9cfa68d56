#include "vision/ocr/OcrLinesFile.h"

#include <filesystem>
#include <fstream>
#include <stdexcept>

#include <nlohmann/json.hpp>

namespace eacu {

void writeOcrLines(const std::string& path, const OcrResult& r) {
    nlohmann::json lines = nlohmann::json::array();
    for (const OcrLine& l : r.lines)
        lines.push_back({{"text", l.text}, {"box", {l.box.x, l.box.y, l.box.w, l.box.h}}, {"confidence", l.confidence}});
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << nlohmann::json{{"langs", r.langs}, {"lines", lines}}.dump();
    out.close();
    if (!out) throw std::runtime_error("cannot write \"" + path + "\"");
}

std::optional<OcrResult> readOcrLines(const std::string& path, const std::string& langs) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return std::nullopt;
    try {
        nlohmann::json j = nlohmann::json::parse(in);
        if (j.at("langs").get<std::string>() != langs) return std::nullopt;
        OcrResult r;
        r.langs = langs;
        for (const nlohmann::json& l : j.at("lines")) {
            const nlohmann::json& b = l.at("box");
            r.lines.push_back({l.at("text").get<std::string>(),
                               {b.at(0).get<int>(), b.at(1).get<int>(), b.at(2).get<int>(), b.at(3).get<int>()},
                               l.at("confidence").get<float>(),
                               {}});
        }
        return r;
    } catch (const nlohmann::json::exception&) {
        return std::nullopt;  // not a file of writeOcrLines: the frame is read again
    }
}

std::string ocrLinesPath(const std::string& frame_path) {
    return std::filesystem::path(frame_path).replace_extension(".ocr.json").string();
}

}  // namespace eacu
