#include "runlog/HtmlReport.h"

#include "base/Base64.h"
#include "base/Clock.h"
#include "base/ImageDecode.h"

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>

#include <nlohmann/json.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include "base/Frame.h"
#include "runlog/ReplayDiff.h"
#include "runlog/ReportFiles.h"

namespace fs = std::filesystem;
using nlohmann::json;

namespace eacu {
namespace {

std::string htmlEscape(const std::string& s) {
    std::string o;
    o.reserve(s.size());
    for (char c : s) {
        switch (c) {
            case '&': o += "&amp;"; break;
            case '<': o += "&lt;"; break;
            case '>': o += "&gt;"; break;
            case '"': o += "&quot;"; break;
            default: o += c;
        }
    }
    return o;
}

// JSON safe to place inside <script>: no "<", ">" or "&" characters.
std::string scriptJson(const json& j) {
    std::string s = j.dump(-1, ' ', false, json::error_handler_t::replace);
    // '<', '>' and '&' only occur inside JSON strings, where \u escapes mean the same: no
    // "</script>", "<!--" or "<script" of a recorded text can end or change the script element
    // (as Go's html/template and JSON.stringify-into-HTML guides do).
    std::string o;
    o.reserve(s.size());
    for (char c : s) {
        if (c == '<')
            o += "\\u003c";
        else if (c == '>')
            o += "\\u003e";
        else if (c == '&')
            o += "\\u0026";
        else
            o += c;
    }
    return o;
}


std::vector<unsigned char> thumbnail(const std::vector<unsigned char>& png, int width) {
    cv::Mat img;
    try {
        img = decodeImage(png, cv::IMREAD_COLOR);
    } catch (const std::runtime_error&) {
        return {};  // a frame that cannot be shown has no thumbnail
    }
    double f = double(width) / img.cols;
    cv::Mat small;
    if (f < 1) cv::resize(img, small, {}, f, f, cv::INTER_AREA);
    else small = img;
    std::vector<unsigned char> jpg;
    cv::imencode(".jpg", small, jpg, {cv::IMWRITE_JPEG_QUALITY, 72});
    return jpg;
}

void writeFile(const fs::path& p, const std::vector<unsigned char>& data) {
    std::ofstream out(p, std::ios::binary);
    out.write(reinterpret_cast<const char*>(data.data()), std::streamsize(data.size()));
    if (!out) throw std::runtime_error("report: cannot write \"" + p.string() + "\"");
}

std::vector<unsigned char> readFile(const std::string& p) {
    std::ifstream in(p, std::ios::binary);
    return std::vector<unsigned char>((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// The model calls of a run as the page shows them, keyed by step id (0: calls outside a step).
std::map<int64_t, json> modelCallsByStep(const RunReader& log, int64_t run_id) {
    std::map<int64_t, json> out;
    for (const ModelCallRecord& c : log.modelCalls(run_id)) {
        json j{{"seq", c.seq}, {"kind", c.kind}, {"provider", c.provider}, {"model", c.model},
               {"answer", c.answer}, {"status", c.status}, {"latency_ms", c.latency_ms},
               {"in", c.input_tokens}, {"out", c.output_tokens}};
        if (!c.error.empty()) j["error"] = c.error;
        json& list = out[c.step_id];
        if (list.is_null()) list = json::array();
        list.push_back(std::move(j));
    }
    return out;
}

// `page` with every {{name}} replaced by values.at(name). A name without a value is a mistake in
// report.html: std::logic_error.
std::string fillTemplate(std::string_view page, const std::map<std::string_view, std::string_view>& values) {
    size_t size = page.size();
    for (const auto& [k, v] : values) size += v.size();
    std::string out;
    out.reserve(size);
    size_t at = 0;
    for (size_t open; (open = page.find("{{", at)) != std::string_view::npos;) {
        size_t close = page.find("}}", open + 2);
        if (close == std::string_view::npos) break;
        std::string_view name = page.substr(open + 2, close - open - 2);
        auto v = values.find(name);
        if (v == values.end())
            throw std::logic_error("report.html: no value for {{" + std::string(name) + "}}");
        out.append(page.substr(at, open - at)).append(v->second);
        at = close + 2;
    }
    out.append(page.substr(at));
    return out;
}

}  // namespace


std::string renderHtmlReport(const RunReader& log, int64_t run_id, const ReportOptions& opt,
                             ReportStats* stats) {
    double t0 = monotonicSeconds();
    auto run = log.run(run_id);
    if (!run) throw std::runtime_error("report: no run " + std::to_string(run_id) + " in " + log.path());
    std::vector<StepRecord> steps = log.steps(run_id);
    std::map<int64_t, FrameRecord> frames;
    for (const auto& f : log.frames(run_id)) frames[f.id] = f;

    // Replay: where it differs from the run it replays.
    std::map<int, std::vector<std::string>> diffs;
    std::vector<StepDiff> diff_list;
    std::optional<RunRecord> original;
    if (run->replay_of) {
        original = log.run(*run->replay_of);
        if (original) {
            diff_list = diffSteps(log.steps(*run->replay_of), steps);
            for (const auto& d : diff_list) diffs[d.idx].push_back(d.what);
        }
    }

    std::map<int64_t, json> calls = modelCallsByStep(log, run_id);
    size_t n_calls = 0;
    for (const auto& [k, v] : calls) n_calls += v.size();

    fs::path assets_dir = opt.assets_dir;
    std::string dir_link;
    if (!opt.assets_dir.empty()) {
        for (const char* sub : {"frames", "thumbs", "refs"}) fs::create_directories(assets_dir / sub);
        dir_link = fs::relative(fs::absolute(assets_dir), fs::absolute(opt.html_dir)).generic_string();
        if (dir_link.empty()) dir_link = ".";
    }

    std::map<std::string, int> refs;  // reference image path -> number
    std::set<int64_t> used_frames;
    json jsteps = json::array();
    for (const auto& s : steps) {
        json j{{"id", s.id}, {"idx", s.idx}, {"action", s.action}, {"target", s.target},
               {"method", s.method}, {"status", s.status}, {"actor", s.actor.empty() ? "script" : s.actor}};
        if (s.parent_id) j["parent"] = *s.parent_id;
        if (s.score) j["score"] = *s.score;
        if (s.threshold) j["threshold"] = *s.threshold;
        if (s.box) j["box"] = {s.box->x, s.box->y, s.box->w, s.box->h};
        if (s.input) j["input"] = {s.input->x, s.input->y};
        if (s.change_ratio) j["change"] = *s.change_ratio;
        if (s.settle_ms) j["settle_ms"] = *s.settle_ms;
        if (s.locate_ms) j["locate_ms"] = *s.locate_ms;
        if (s.action_ms) j["action_ms"] = *s.action_ms;
        if (!s.error.empty()) j["error"] = s.error;
        if (s.frame_before && frames.count(*s.frame_before)) {
            j["before"] = *s.frame_before;
            used_frames.insert(*s.frame_before);
        }
        if (s.frame_after && frames.count(*s.frame_after)) {
            j["after"] = *s.frame_after;
            used_frames.insert(*s.frame_after);
        }
        json params = json::parse(s.params_json.empty() ? "{}" : s.params_json, nullptr, false);
        if (!params.is_discarded() && !params.empty()) j["params"] = params;
        // A healed step (docs/healing.md): the recorded crop and the crops proven on its frame.
        if (params.is_object() && params.contains("heal") && params["heal"].is_object()) {
            const json& h = params["heal"];
            const json ref = h.contains("reference") && h["reference"].is_object() ? h["reference"] : json::object();
            if (std::string old = ref.value("crop", ""); !old.empty() && fs::is_regular_file(old)) {
                auto [it, fresh] = refs.emplace(old, int(refs.size()));
                j["heal_old"] = it->second;
            }
            json news = json::array();
            for (const json& c : h.value("crops", json::array()))
                if (c.is_object() && frames.count(c.value("frame_id", int64_t(0)))) {
                    news.push_back(c.value("frame_id", int64_t(0)));
                    used_frames.insert(c.value("frame_id", int64_t(0)));
                }
            j["heal_new"] = news;
        }
        if (auto d = diffs.find(s.idx); d != diffs.end()) j["diff"] = d->second;
        if (auto c = calls.find(s.id); c != calls.end()) j["calls"] = c->second;
        if (opt.reference_image) {
            if (auto p = opt.reference_image(s)) {
                auto [it, fresh] = refs.emplace(*p, int(refs.size()));
                j["ref"] = it->second;
            }
        }
        jsteps.push_back(std::move(j));
    }

    json jframes = json::object();
    for (int64_t id : used_frames) jframes[std::to_string(id)] = {frames[id].width, frames[id].height};

    json jrun{{"id", run->id}, {"status", run->status}, {"script", run->script}};
    json data{{"run", jrun}, {"steps", jsteps}, {"frames", jframes}};
    if (auto c = calls.find(0); c != calls.end()) data["calls"] = c->second;
    if (!dir_link.empty()) data["dir"] = dir_link;

    // The header's facts, HTML-escaped where they are text.
    std::string title = htmlEscape("eacu run " + std::to_string(run->id) + " — " + fs::path(run->script).filename().string());
    std::ostringstream scale;
    scale << run->scale;
    std::string duration;
    if (run->ended_at > 0) {
        char buf[32];
        std::snprintf(buf, sizeof buf, "%.1f", run->ended_at - run->started_at);
        duration = std::string(" · ") + buf + " s";
    }
    std::string model_calls;
    if (n_calls)
        model_calls = " · <b id=\"model-calls\">" + std::to_string(n_calls) + "</b> model call" + (n_calls == 1 ? "" : "s");
    std::ostringstream replay;
    if (run->replay_of) {
        replay << "<div class=\"diffs\" id=\"replay\">replay (" << htmlEscape(run->replay_mode.empty() ? "?" : run->replay_mode)
               << " mode) of run <b>" << *run->replay_of << "</b>";
        if (!original) replay << " (no longer in the log)";
        else if (diff_list.empty()) replay << ": every step agrees with the original";
        else {
            replay << ": " << diff_list.size() << " difference" << (diff_list.size() == 1 ? "" : "s") << "<ul>";
            for (const auto& d : diff_list)
                replay << "<li><a href=\"#step=" << d.idx << "\" onclick=\"location.hash='step=" << d.idx
                       << "';location.reload()\">step " << d.idx << "</a>: " << htmlEscape(d.what) << "</li>";
            replay << "</ul>";
        }
        replay << "</div>";
    }
    std::string error;
    if (!run->error.empty()) error = "<pre class=\"err\" id=\"run-error\">" + htmlEscape(run->error) + "</pre>";

    // Frames, thumbnails and reference images: embedded as inert text blocks decoded on demand,
    // or written beside the page.
    std::ostringstream images;
    size_t n_frames = 0;
    for (int64_t id : used_frames) {
        std::vector<unsigned char> png = log.framePng(id);
        std::vector<unsigned char> th = thumbnail(png, opt.thumb_width);
        if (!opt.assets_dir.empty()) {
            writeFile(assets_dir / "frames" / (std::to_string(id) + ".png"), png);
            writeFile(assets_dir / "thumbs" / (std::to_string(id) + ".jpg"), th);
        } else {
            images << "<script type=\"text/plain\" id=\"t" << id << "\">" << base64Encode(std::string_view(reinterpret_cast<const char*>(th.data()), th.size()))
                   << "</script>\n<script type=\"text/plain\" id=\"f" << id << "\">"
                   << base64Encode(std::string_view(reinterpret_cast<const char*>(png.data()), png.size())) << "</script>\n";
        }
        ++n_frames;
    }
    for (const auto& [path, n] : refs) {
        std::vector<unsigned char> bytes = readFile(path);
        if (!opt.assets_dir.empty()) writeFile(assets_dir / "refs" / (std::to_string(n) + ".png"), bytes);
        else
            images << "<script type=\"text/plain\" id=\"r" << n << "\">" << base64Encode(std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()))
                   << "</script>\n";
    }

    // The page: runtime/runlog/report/report.html with its placeholders filled.
    std::string status = htmlEscape(run->status), script = htmlEscape(run->script), args = htmlEscape(run->args_json),
                device = htmlEscape(run->device), screen = std::to_string(run->screen_w) + "x" + std::to_string(run->screen_h),
                started = formatLocalTime(run->started_at), n_steps = std::to_string(steps.size()),
                n_used = std::to_string(used_frames.size()), log_path = htmlEscape(log.path()), json_data = scriptJson(data),
                replay_html = replay.str(), images_html = images.str();
    std::string out = fillTemplate(reportFile("report.html"),
                                   {{"version", EACU_VERSION},
                                    {"title", title},
                                    {"style", reportFile("report.css")},
                                    {"status", status},
                                    {"script", script},
                                    {"args", args},
                                    {"device", device},
                                    {"screen", screen},
                                    {"scale", scale.str()},
                                    {"started", started},
                                    {"duration", duration},
                                    {"steps", n_steps},
                                    {"frames", n_used},
                                    {"model_calls", model_calls},
                                    {"log", log_path},
                                    {"replay", replay_html},
                                    {"error", error},
                                    {"data", json_data},
                                    {"images", images_html},
                                    {"code", reportFile("report.js")}});
    if (stats) {
        stats->steps = steps.size();
        stats->frames = n_frames;
        stats->references = refs.size();
        stats->html_bytes = out.size();
        stats->ms = (monotonicSeconds() - t0) * 1000;
    }
    return out;
}

}  // namespace eacu
