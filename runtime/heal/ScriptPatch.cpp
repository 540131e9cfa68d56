#include "heal/ScriptPatch.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <stdexcept>

namespace eacu {

namespace {

std::string trimmed(const std::string& s) {
    size_t b = s.find_first_not_of(" \t\r\n");
    if (b == std::string::npos) return "";
    size_t e = s.find_last_not_of(" \t\r\n");
    return s.substr(b, e - b + 1);
}

// The end (one past) of the Lua string literal starting at `i` ('"' or '\''), or npos.
size_t stringEnd(const std::string& s, size_t i) {
    const char q = s[i];
    for (size_t j = i + 1; j < s.size(); ++j) {
        if (s[j] == '\\') ++j;
        else if (s[j] == q) return j + 1;
    }
    return std::string::npos;
}

// Scans `s` from `i` at bracket depth 0 until one of `stops` at depth 0 (or the end, or a
// closing bracket below depth 0); returns where it stopped.
size_t scanTo(const std::string& s, size_t i, const char* stops) {
    int depth = 0;
    while (i < s.size()) {
        const char c = s[i];
        if (c == '"' || c == '\'') {
            size_t e = stringEnd(s, i);
            if (e == std::string::npos) return s.size();
            i = e;
            continue;
        }
        if (c == '-' && i + 1 < s.size() && s[i + 1] == '-' && depth == 0) return i;  // a comment
        if (depth == 0 && std::strchr(stops, c)) return i;
        if (c == '(' || c == '{' || c == '[') ++depth;
        if (c == ')' || c == '}' || c == ']') {
            if (depth == 0) return i;
            --depth;
        }
        ++i;
    }
    return i;
}

// `key = value` of a table item: the key, or "" for a positional item.
std::string itemKey(const std::string& item) {
    size_t i = 0;
    while (i < item.size() && (std::isalnum(static_cast<unsigned char>(item[i])) || item[i] == '_')) ++i;
    if (i == 0) return "";
    size_t j = item.find_first_not_of(" \t", i);
    if (j == std::string::npos || item[j] != '=' || (j + 1 < item.size() && item[j + 1] == '=')) return "";
    return item.substr(0, i);
}

std::string itemValue(const std::string& item) { return trimmed(item.substr(item.find('=') + 1)); }

std::string joined(const std::vector<std::string>& v) {
    std::string out;
    for (const std::string& s : v) out += (out.empty() ? "" : ", ") + s;
    return out;
}

}  // namespace

std::optional<std::vector<std::string>> tableItems(const std::string& expr) {
    const std::string e = trimmed(expr);
    if (e.size() < 2 || e.front() != '{' || e.back() != '}') return std::nullopt;
    const std::string body = e.substr(1, e.size() - 2);
    std::vector<std::string> items;
    size_t i = 0;
    while (i < body.size()) {
        size_t j = scanTo(body, i, ",;");
        if (j < body.size() && body[j] != ',' && body[j] != ';') return std::nullopt;  // a comment or a stray bracket
        std::string item = trimmed(body.substr(i, j - i));
        if (!item.empty()) items.push_back(item);
        i = j + 1;
    }
    return items;
}

std::vector<std::string> splitTargets(const std::string& expr, std::vector<std::string>& options) {
    options.clear();
    auto items = tableItems(expr);
    if (!items) return {trimmed(expr)};
    std::vector<std::string> first_fields, alts;
    std::string positional;
    bool has_alt = false;
    for (const std::string& it : *items) {
        const std::string k = itemKey(it);
        if (k == "alt") {
            has_alt = true;
            if (auto a = tableItems(itemValue(it))) alts = *a;
            else alts = {itemValue(it)};
        } else if (k.empty() && positional.empty()) {
            positional = it;
        } else {
            first_fields.push_back(it);
        }
    }
    if (!has_alt) return {trimmed(expr)};
    std::vector<std::string> out;
    if (!positional.empty() && (positional.front() == '{' || positional.front() == '"' || positional.front() == '\'')) {
        out.push_back(positional);
        options = first_fields;
    } else {
        if (!positional.empty()) first_fields.insert(first_fields.begin(), positional);
        out.push_back("{ " + joined(first_fields) + " }");
    }
    out.insert(out.end(), alts.begin(), alts.end());
    return out;
}

std::optional<std::pair<size_t, size_t>> firstArgument(const std::string& line) {
    size_t i = line.find_first_not_of(" \t");
    if (i == std::string::npos) return std::nullopt;
    size_t id = i;
    while (i < line.size() && (std::isalnum(static_cast<unsigned char>(line[i])) || line[i] == '_' || line[i] == '.' || line[i] == ':'))
        ++i;
    if (i == id) return std::nullopt;
    i = line.find_first_not_of(" \t", i);
    if (i == std::string::npos) return std::nullopt;
    if (line[i] == '"' || line[i] == '\'') {
        size_t e = stringEnd(line, i);
        if (e == std::string::npos) return std::nullopt;
        return std::make_pair(i, e);
    }
    if (line[i] == '{') {
        size_t e = scanTo(line, i + 1, "}");
        if (e >= line.size()) return std::nullopt;
        return std::make_pair(i, e + 1);
    }
    if (line[i] != '(') return std::nullopt;
    size_t b = line.find_first_not_of(" \t", i + 1);
    if (b == std::string::npos) return std::nullopt;
    size_t e = scanTo(line, b, ",)");
    if (e >= line.size()) return std::nullopt;
    while (e > b && (line[e - 1] == ' ' || line[e - 1] == '\t')) --e;
    return std::make_pair(b, e);
}

std::string healLine(const std::string& line, const std::vector<std::string>& healed) {
    auto arg = firstArgument(line);
    if (!arg || healed.empty()) throw std::invalid_argument("expected a line with a call on a target, got: " + line);
    std::vector<std::string> options;
    std::vector<std::string> old = splitTargets(line.substr(arg->first, arg->second - arg->first), options);
    std::vector<std::string> alts(healed.begin() + 1, healed.end());
    for (const std::string& o : old)
        if (std::find(healed.begin(), healed.end(), o) == healed.end() && std::find(alts.begin(), alts.end(), o) == alts.end())
            alts.push_back(o);
    std::string expr = alts.empty() && options.empty() ? healed.front()
                                                        : "{ " + healed.front() + (alts.empty() ? "" : ", alt = { " + joined(alts) + " }") +
                                                              (options.empty() ? "" : ", " + joined(options)) + " }";
    // verb "..." / verb {...}: a call without parentheses becomes one with them.
    const bool bare = arg->first == 0 || line[line.find_last_not_of(" \t", arg->first - 1)] != '(';
    if (bare) expr = "(" + expr + ")";
    std::string out = line;
    if (bare) {
        // drop the spaces between the verb and its argument: tap "x" -> tap(...)
        size_t b = arg->first;
        while (b > 0 && (out[b - 1] == ' ' || out[b - 1] == '\t')) --b;
        out.replace(b, arg->second - b, expr);
    } else {
        out.replace(arg->first, arg->second - arg->first, expr);
    }
    return out;
}

std::string unifiedDiff(const std::vector<std::string>& a, const std::vector<std::string>& b, const std::string& a_name,
                        const std::string& b_name) {
    if (a.size() != b.size()) throw std::invalid_argument("unifiedDiff: expected files of the same number of lines");
    std::vector<size_t> changed;
    for (size_t i = 0; i < a.size(); ++i)
        if (a[i] != b[i]) changed.push_back(i);
    if (changed.empty()) return "";
    std::string out = "--- " + a_name + "\n+++ " + b_name + "\n";
    const size_t ctx = 3;
    size_t k = 0;
    while (k < changed.size()) {
        size_t first = changed[k] >= ctx ? changed[k] - ctx : 0;
        size_t last = changed[k];
        size_t m = k;
        while (m + 1 < changed.size() && changed[m + 1] <= last + 2 * ctx + 1) last = changed[++m];
        size_t end = std::min(a.size(), last + ctx + 1);
        const std::string range = std::to_string(first + 1) + "," + std::to_string(end - first);
        out += "@@ -" + range + " +" + range + " @@\n";
        for (size_t i = first; i < end; ++i) {
            if (a[i] == b[i]) out += " " + a[i] + "\n";
            else out += "-" + a[i] + "\n+" + b[i] + "\n";
        }
        k = m + 1;
    }
    return out;
}

}  // namespace eacu
