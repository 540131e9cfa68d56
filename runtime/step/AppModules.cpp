#include "step/AppModules.h"

#include <algorithm>
#include <cctype>
#include <stdexcept>

#include "base/Ascii.h"

namespace eacu {
namespace {

// A pattern as pieces: literal text (lower-cased) or a parameter name.
struct Piece {
    bool param;
    std::string text;
};

std::vector<Piece> parse(const std::string& pattern) {
    std::vector<Piece> out;
    size_t i = 0;
    while (i < pattern.size()) {
        size_t open = pattern.find('{', i);
        if (open == std::string::npos) {
            out.push_back({false, asciiLower(pattern.substr(i))});
            break;
        }
        if (open > i) out.push_back({false, asciiLower(pattern.substr(i, open - i))});
        size_t close = pattern.find('}', open);
        if (close == std::string::npos)
            throw std::invalid_argument("template pattern \"" + pattern + "\": expected '}' after '{'");
        std::string name = pattern.substr(open + 1, close - open - 1);
        if (name.empty()) throw std::invalid_argument("template pattern \"" + pattern + "\": empty parameter name {}");
        if (!out.empty() && out.back().param)
            throw std::invalid_argument("template pattern \"" + pattern + "\": two parameters need text between them");
        out.push_back({true, name});
        i = close + 1;
    }
    return out;
}

// Backtracking match of pieces[k..] against text[pos..] (original text for captures, lowered
// for comparison). Parameters take the shortest non-empty text that lets the rest match;
// the last parameter takes the rest. Cuts only at UTF-8 character boundaries.
bool matchFrom(const std::vector<Piece>& pieces, size_t k, const std::string& text, const std::string& low,
               size_t pos, std::map<std::string, std::string>& params) {
    if (k == pieces.size()) return pos == text.size();
    const Piece& p = pieces[k];
    if (!p.param) {
        if (low.compare(pos, p.text.size(), p.text) != 0) return false;
        return matchFrom(pieces, k + 1, text, low, pos + p.text.size(), params);
    }
    for (size_t end = pos + 1; end <= text.size(); ++end) {
        if (end < text.size() && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) continue;
        params[p.text] = text.substr(pos, end - pos);
        if (matchFrom(pieces, k + 1, text, low, end, params)) return true;
    }
    params.erase(p.text);
    return false;
}

std::string trim(const std::string& s) {
    size_t a = s.find_first_not_of(" \t\r\n");
    if (a == std::string::npos) return "";
    size_t b = s.find_last_not_of(" \t\r\n");
    return s.substr(a, b - a + 1);
}

}  // namespace

bool matchPattern(const std::string& pattern, const std::string& task, std::map<std::string, std::string>& params) {
    std::vector<Piece> pieces = parse(pattern);
    std::string t = trim(task);
    std::map<std::string, std::string> got;
    if (!matchFrom(pieces, 0, t, asciiLower(t), 0, got)) return false;
    for (auto& [k, v] : got) params[k] = trim(v);
    return true;
}

Route routeTask(const std::string& task, const std::vector<AppModuleInfo>& modules) {
    if (trim(task).empty()) throw std::invalid_argument("route: expected a task sentence, got an empty string");
    Route r;
    std::string low = asciiLower(task);
    for (const auto& m : modules) {
        RouteScore s;
        s.module = m.name;
        for (const auto& t : m.templates) {
            for (const auto& pat : t.patterns) {
                std::map<std::string, std::string> params;
                if (matchPattern(pat, task, params)) {
                    s.score += 0.5;
                    s.template_name = t.name;
                    s.pattern = pat;
                    s.params = params;
                    break;
                }
            }
            if (!s.template_name.empty()) break;
        }
        for (const auto& k : m.keywords)
            if (!k.empty() && low.find(asciiLower(k)) != std::string::npos) s.keywords_hit.push_back(k);
        if (!s.keywords_hit.empty()) s.score += 0.4;
        if (!m.package.empty() && low.find(asciiLower(m.package)) != std::string::npos) s.score += 0.1;
        r.scores.push_back(s);
    }
    std::stable_sort(r.scores.begin(), r.scores.end(),
                     [](const RouteScore& a, const RouteScore& b) { return a.score > b.score; });
    if (!r.scores.empty() && r.scores.front().score > 0) r.best = r.scores.front();
    return r;
}

}  // namespace eacu
