// Module routing (seed 002): a task sentence → the app module that should run it, the task
// template it fits and the template's parameters.
#pragma once
#include <map>
#include <string>
#include <vector>

namespace eacu {

/// A named task template of a module: `patterns` such as "给{contact}发消息说{text}" or
/// "compute {expression}" (a {name} matches any non-empty text, shortest first; the rest is
/// literal, ASCII case-insensitive); `risky` whether it needs a confirmation. (The parameters
/// a template requires are checked where it runs: stdlib/eacu/apps.lua.)
struct AppTemplate {
    std::string name;
    std::vector<std::string> patterns;
    bool risky = false;
};

/// What routing knows of an app module (scripts/<app>/init.lua): its name, keywords, the
/// package or window class that identifies it, and its templates.
struct AppModuleInfo {
    std::string name;
    std::vector<std::string> keywords;
    std::string package;
    std::vector<AppTemplate> templates;
};

/// One module's score for a task (seed 002: a template pattern matches 0.5, a keyword occurs
/// 0.4, the package or window class occurs 0.1) and, when a pattern matched, the template and
/// the parameters it captured.
struct RouteScore {
    std::string module;
    double score = 0;
    std::string template_name;
    std::string pattern;
    std::map<std::string, std::string> params;
    std::vector<std::string> keywords_hit;
};

/// The result of routing: `best` (empty module when nothing scored) and every module's score,
/// best first (ties keep the given order).
struct Route {
    RouteScore best;
    std::vector<RouteScore> scores;
};

/// Matches `task` against one pattern; on a match fills `params` and returns true. Throws
/// std::invalid_argument for a malformed pattern ("{" without "}", an empty name).
bool matchPattern(const std::string& pattern, const std::string& task, std::map<std::string, std::string>& params);

/// Scores every module for `task` and picks the best. Throws std::invalid_argument for an
/// empty task.
Route routeTask(const std::string& task, const std::vector<AppModuleInfo>& modules);

}  // namespace eacu
