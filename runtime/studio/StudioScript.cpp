// eacu studio: the script's lines (listed, deleted, edited), saved, and played back.
#include "studio/Studio.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <regex>

#include <unistd.h>

#include "process/Process.h"
#include "server/ApiError.h"

namespace fs = std::filesystem;
using nlohmann::json;

namespace eacu::studio {

using server::ApiError;

json Studio::lines() const {
    std::lock_guard<std::mutex> lock(mu_);
    json arr = json::array();
    for (const StudioLine& l : lines_)
        arr.push_back({{"id", l.id},
                       {"lua", l.lua},
                       {"state", l.state},
                       {"error", l.error},
                       {"thumb", l.thumb},
                       {"proof_ms", l.proof_ms},
                       {"locate_ms", l.locate_ms},
                       {"after_ms", l.after_ms},
                       {"action", l.verb.empty() ? std::string(actionName(l.action.kind)) : l.verb},
                       {"verify", l.verify}});
    return {{"version", version_}, {"running", running_}, {"lines", arr}};
}

int64_t Studio::waitLines(int64_t after, double timeout) const {
    std::unique_lock<std::mutex> lock(mu_);
    changed_.wait_for(lock, std::chrono::duration<double>(timeout), [&] { return stop_ || version_ > after; });
    return version_;
}

void Studio::deleteLine(int id) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = std::find_if(lines_.begin(), lines_.end(), [&](const StudioLine& l) { return l.id == id; });
    if (it == lines_.end()) throw ApiError(404, "no line " + std::to_string(id));
    removeFiles(it->files);
    lines_.erase(it);
    bump();
}

void Studio::removeFiles(const std::vector<std::string>& files) {
    for (const std::string& f : files) {
        std::error_code ec;  // one already gone (or never written) is no error
        fs::remove(f, ec);
    }
}

void Studio::editLine(int id, const std::string& lua) {
    if (lua.find_first_not_of(" \t\r\n") == std::string::npos) throw ApiError(400, "expected a line of Lua, got an empty one");
    if (lua.find('\n') != std::string::npos) throw ApiError(400, "expected one line of Lua, got several");
    std::lock_guard<std::mutex> lock(mu_);
    StudioLine* l = line(id);
    if (!l) throw ApiError(404, "no line " + std::to_string(id));
    l->lua = lua;
    l->state = "edited";
    bump();
}

std::string Studio::textOf(const std::vector<StudioLine>& lines, std::vector<int>* line_ids) const {
    std::vector<ScriptItem> launches;
    for (const std::string& cmd : o_.launch) {
        ScriptItem it;
        it.launch = cmd;
        launches.push_back(it);
    }
    ScriptOptions so;
    so.header = o_.header;
    std::string text = writeScript(launches, locator_, so).lua;
    if (line_ids) line_ids->assign(size_t(std::count(text.begin(), text.end(), '\n')), 0);
    for (const StudioLine& l : lines) {
        text += l.lua + "\n";
        if (line_ids) line_ids->push_back(l.id);
    }
    return text;
}

std::string Studio::scriptText() const {
    std::lock_guard<std::mutex> lock(mu_);
    return textOf(lines_, nullptr);
}

bool Studio::waitProven(double timeout) const {
    std::unique_lock<std::mutex> lock(mu_);
    auto proven = [&] {
        return jobs_.empty() && evidence_pending_ == 0 &&
               std::none_of(lines_.begin(), lines_.end(), [](const StudioLine& l) { return l.state == "pending"; });
    };
    changed_.wait_for(lock, std::chrono::duration<double>(timeout), [&] { return stop_ || proven(); });
    return proven();
}

std::vector<std::string> Studio::lineTexts() const {
    std::lock_guard<std::mutex> lock(mu_);
    std::vector<std::string> out;
    for (const StudioLine& l : lines_) out.push_back(l.lua);
    return out;
}

std::string Studio::save() {
    // Proofs still running are awaited (up to a minute): a saved line is a proven line, with
    // what healing keeps of its screen written beside it.
    waitProven(60);
    const std::string text = scriptText();
    fs::path path = fs::absolute(o_.script);
    if (path.has_parent_path()) fs::create_directories(path.parent_path());
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << text;
    out.close();
    if (!out) throw std::runtime_error("cannot write \"" + path.string() + "\"");
    return path.string();
}

json Studio::runScript() {
    if (o_.eacu.empty() || o_.run_device.empty()) throw ApiError(400, "this studio cannot play a script back (no device spec)");
    std::vector<int> ids;
    fs::path file;
    {
        std::lock_guard<std::mutex> lock(mu_);
        if (running_) throw ApiError(409, "the script is playing back already");
        if (std::any_of(lines_.begin(), lines_.end(), [](const StudioLine& l) { return l.state == "pending"; }))
            throw ApiError(409, "a line's proof still runs: play it back once every line is proven");
        fs::path script = fs::absolute(o_.script);
        // Beside the script, so that its assets' folder is named as in the script.
        file = script.parent_path() / (script.stem().string() + ".studio-run.lua");
        std::ofstream out(file, std::ios::binary | std::ios::trunc);
        out << textOf(lines_, &ids);
        if (!out) throw ApiError(500, "cannot write \"" + file.string() + "\"");
        for (StudioLine& l : lines_)
            if (l.state == "passed" || l.state == "failed") l.state = "proven", l.error.clear();
        running_ = true;
        bump();
    }
    if (runner_.joinable()) runner_.join();
    runner_ = std::thread([this, ids, file] {
        std::string output;
        int rc = -1;
        try {
            ProcessOptions po;
            po.stderr_mode = StderrMode::Capture;
            // Its own run log, removed after: the play-back is the studio's check, not a run to keep.
            const fs::path db = fs::temp_directory_path() / ("eacu-studio-" + std::to_string(::getpid()) + ".db");
            auto p = Process::spawn({o_.eacu, "run", file.string(), "--device", o_.run_device, "--db", db.string()}, po);
            while (!stop_) {
                output += p->readStdout(0.2);
                if (auto st = p->wait(0)) {
                    output += p->readStdout(0.5);
                    rc = *st;
                    break;
                }
            }
            output += p->stderrText();
            std::error_code ec;
            for (const char* ext : {"", "-wal", "-shm"}) fs::remove(db.string() + ext, ec);
        } catch (const std::exception& e) {
            output += e.what();
        }
        // The failing line: "<file>:<line>:" in the run's error.
        int failed_at = 0;
        std::smatch m;
        const std::regex where(std::regex_replace(file.filename().string(), std::regex(R"([.])"), R"(\.)") + R"(:(\d+):)");
        if (rc != 0 && std::regex_search(output, m, where)) failed_at = std::stoi(m[1]);
        std::lock_guard<std::mutex> lock(mu_);
        int failed_id = failed_at > 0 && size_t(failed_at) <= ids.size() ? ids[size_t(failed_at) - 1] : 0;
        bool before_failure = true;
        for (StudioLine& l : lines_) {
            if (rc == 0) {
                l.state = "passed";
            } else if (l.id == failed_id) {
                l.state = "failed";
                l.error = output.substr(output.size() > 600 ? output.size() - 600 : 0);
                before_failure = false;
            } else if (before_failure && failed_id) {
                l.state = "passed";
            }
        }
        if (rc != 0 && !failed_id && !lines_.empty()) {
            lines_.back().state = "failed";
            lines_.back().error = "the play-back ended with status " + std::to_string(rc) + ": " +
                                  output.substr(output.size() > 600 ? output.size() - 600 : 0);
        }
        running_ = false;
        last_run_ = {{"status", rc}, {"output", output.substr(output.size() > 2000 ? output.size() - 2000 : 0)}};
        bump();
    });
    return {{"started", true}, {"file", file.string()}};
}

}  // namespace eacu::studio
