#include "record/HtmlReport.h"

#include "base/Base64.h"
#include "base/Clock.h"

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>

#include <nlohmann/json.hpp>
#include <sqlite3.h>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include "base/Frame.h"
#include "record/ReplayDiff.h"
#include "record/Statement.h"

namespace fs = std::filesystem;
using nlohmann::json;

namespace eacu {
namespace {

// The page's style and behaviour. The layout follows seed 001 §6: a progress list on a
// vertical timeline (collapsible steps), a screen window with a title bar, and a scrubber with
// one node per step; selecting a step, clicking a node or dragging the scrubber stay in sync.
const char* kStyle = R"CSS(
:root{--bg:#f6f7f9;--card:#fff;--line:#d8dce3;--ink:#1d2330;--mute:#6b7385;--ok:#1f9d55;--bad:#d64545;--warn:#c98a00;--sel:#2f6fed;--box:#ff2d55}
*{box-sizing:border-box}body{margin:0;font:13px/1.45 system-ui,-apple-system,"Segoe UI","Noto Sans","DejaVu Sans",sans-serif;color:var(--ink);background:var(--bg)}
header{padding:12px 18px;background:var(--card);border-bottom:1px solid var(--line)}
header h1{font-size:16px;margin:0 0 4px}header .meta{color:var(--mute)}header .meta b{color:var(--ink);font-weight:600}
.badge{display:inline-block;padding:0 7px;border-radius:9px;font-size:11px;font-weight:600;color:#fff;background:var(--mute);vertical-align:1px}
.badge.passed,.badge.ok{background:var(--ok)}.badge.failed,.badge.not_found,.badge.interrupted{background:var(--bad)}.badge.running{background:var(--warn)}
pre.err{white-space:pre-wrap;background:#fff3f3;border:1px solid #f0c4c4;border-radius:6px;padding:6px 8px;margin:6px 0 0;max-height:10em;overflow:auto}
.diffs{margin-top:6px;background:#fffbea;border:1px solid #eedc9a;border-radius:6px;padding:6px 8px}.diffs li{margin-left:1em}
main{display:flex;gap:14px;padding:14px;align-items:flex-start}
#steps{flex:0 0 430px;max-height:calc(100vh - 120px);overflow:auto;background:var(--card);border:1px solid var(--line);border-radius:8px;padding:8px 8px 8px 0}
#steps .tools{padding:0 0 6px 14px;color:var(--mute)}#steps .tools button{font-size:11px}
.step{position:relative;margin-left:22px;padding-left:14px;border-left:2px solid var(--line)}
.step::before{content:"";position:absolute;left:-7px;top:10px;width:10px;height:10px;border-radius:50%;background:var(--ok);border:2px solid var(--card)}
.step.failed::before,.step.not_found::before{background:var(--bad)}.step.differs>details>summary .tgt::after{content:" ≠";color:var(--warn);font-weight:700}
.step.sel>details>summary{background:#e8efff;outline:1px solid var(--sel)}
summary{cursor:pointer;list-style:none;display:flex;gap:8px;align-items:center;padding:4px 6px;border-radius:6px}
summary::-webkit-details-marker{display:none}summary:hover{background:#f0f2f6}
summary .idx{color:var(--mute);width:2.6em;text-align:right;font-variant-numeric:tabular-nums}
summary .act{font-weight:600;min-width:5.5em}summary .tgt{flex:1;overflow:hidden;text-overflow:ellipsis;white-space:nowrap}
summary .sc{font-variant-numeric:tabular-nums;color:var(--mute)}summary .sc.low{color:var(--bad);font-weight:600}
summary img.mini{width:48px;height:30px;object-fit:cover;border:1px solid var(--line);border-radius:3px;background:#eee}
.body{padding:4px 6px 10px 40px}.body table{border-collapse:collapse}.body td{padding:1px 8px 1px 0;vertical-align:top}.body td:first-child{color:var(--mute)}
.body .thumbs{display:flex;gap:8px;margin-top:6px}.body figure{margin:0}.body figcaption{color:var(--mute);font-size:11px}
.body img.thumb{width:180px;border:1px solid var(--line);border-radius:4px;cursor:zoom-in;background:#eee;min-height:40px}
.body img.ref{max-width:120px;max-height:60px;border:1px solid var(--line);image-rendering:pixelated;background:#eee}
.model{background:#f3f6ff;border-radius:6px;padding:4px 8px;margin-top:4px;white-space:pre-wrap}
#screen{flex:1;min-width:0;position:sticky;top:14px;background:var(--card);border:1px solid var(--line);border-radius:10px;overflow:hidden}
#bar{display:flex;align-items:center;gap:8px;padding:7px 10px;background:#eceff4;border-bottom:1px solid var(--line)}
#bar .dots span{display:inline-block;width:10px;height:10px;border-radius:50%;margin-right:4px;background:#ff5f57}#bar .dots span+span{background:#febc2e}#bar .dots span+span+span{background:#28c840}
#title{flex:1;font-weight:600;overflow:hidden;white-space:nowrap;text-overflow:ellipsis}
#bar button{font-size:12px}#bar button.on{background:var(--sel);color:#fff;border-color:var(--sel)}
#view{position:relative;background:#1b1f27;min-height:200px;overflow:auto}
#view.zoom img#frame{max-width:none}#view img#frame{display:block;max-width:100%;margin:0 auto}
#view svg{position:absolute;left:0;top:0;pointer-events:none}
#nofr{color:#aab;padding:40px;text-align:center}
#scrub{padding:8px 12px 10px;border-top:1px solid var(--line)}
#scrubber{width:100%}
#nodes{display:flex;height:10px;gap:1px;margin-top:2px}#nodes i{flex:1;background:var(--ok);opacity:.55;cursor:pointer;border-radius:1px}
#nodes i.failed,#nodes i.not_found{background:var(--bad)}#nodes i.differs{background:var(--warn)}#nodes i.sel{opacity:1;outline:1px solid var(--ink)}
#caption{color:var(--mute);margin-top:4px;font-variant-numeric:tabular-nums}
)CSS";

const char* kScript = R"JS(
(function(){
const t0 = performance.now();
const D = JSON.parse(document.getElementById('eacu-data').textContent);
const $ = (s, e) => (e || document).querySelector(s);
const esc = s => String(s == null ? '' : s).replace(/[&<>"]/g, c => ({'&':'&amp;','<':'&lt;','>':'&gt;','"':'&quot;'}[c]));
function blob(kind, id) {
  if (D.dir) return D.dir + '/' + {f:'frames/', t:'thumbs/', r:'refs/'}[kind] + id + (kind == 't' ? '.jpg' : '.png');
  const e = document.getElementById(kind + id);
  if (!e) return '';
  return 'data:image/' + (kind == 't' ? 'jpeg' : 'png') + ';base64,' + e.textContent.trim();
}
const fmt = (v, d) => v == null ? '-' : Number(v).toFixed(d);
const pt = p => p ? '(' + p[0] + ',' + p[1] + ')' : '-';
const box = b => b ? '(' + b[0] + ',' + b[1] + ' ' + b[2] + 'x' + b[3] + ')' : '-';
const steps = D.steps, byId = {};
steps.forEach((s, i) => { s.pos = i; byId[s.id] = s; });
let sel = -1, which = 'before';

// Model calls: what was asked of which model, its reasoning and its answer.
function callBlocks(calls) {
  return (calls || []).map(c => {
    let body = c.answer || '';
    try { const a = JSON.parse(body); if (a && typeof a == 'object') body = (a.thought ? 'reasoning: ' + a.thought + '\n' : '') + 'answer: ' + JSON.stringify(Object.assign({}, a, {thought: undefined})); } catch (e) {}
    return '<div class="model call"><b>model ' + esc(c.kind) + '</b> · ' + esc(c.provider) + ' ' + esc(c.model) + ' · ' + esc(c.status) +
      (c.latency_ms != null ? ' · ' + fmt(c.latency_ms, 0) + ' ms' : '') + (c.in != null ? ' · ' + c.in + '/' + c.out + ' tokens' : '') +
      '\n' + esc(body) + (c.error ? '\nerror: ' + esc(c.error) : '') + '</div>';
  }).join('');
}
function row(s) {
  const low = s.score != null && s.threshold != null && s.score < s.threshold;
  const mini = s.after || s.before;
  const kids = steps.filter(c => c.parent == s.id);
  const m = s.params || {};
  const model = ['thought','reasoning','answer','response','plan'].filter(k => m[k] != null)
    .map(k => '<div class="model"><b>' + k + '</b>: ' + esc(typeof m[k] == 'string' ? m[k] : JSON.stringify(m[k], null, 1)) + '</div>').join('');
  const rows = [
    ['method', esc(s.method || '-')], ['score', fmt(s.score, 3) + ' (threshold ' + fmt(s.threshold, 2) + ')'],
    ['box', box(s.box)], ['input', pt(s.input)], ['change', fmt(s.change, 4)],
    ['times', 'locate ' + fmt(s.locate_ms, 1) + ' ms · action ' + fmt(s.action_ms, 1) + ' ms · settle ' + fmt(s.settle_ms, 0) + ' ms'],
    ['frames', (s.before || '-') + ' / ' + (s.after || '-')],
  ];
  const callsHtml = callBlocks(s.calls);
  if (s.params && Object.keys(s.params).length) rows.push(['params', '<code>' + esc(JSON.stringify(s.params)) + '</code>']);
  if (s.ref != null) rows.push(['sought', '<img class="ref" data-ref="' + s.ref + '" alt="reference image">']);
  if (s.diff) rows.push(['replay', '<span style="color:var(--warn)">' + esc(s.diff.join('; ')) + '</span>']);
  return '<div class="step ' + esc(s.status) + (s.diff ? ' differs' : '') + '" id="s' + s.idx + '" data-pos="' + s.pos + '">' +
    '<details><summary><span class="idx">' + s.idx + '</span><span class="act">' + esc(s.action) + '</span>' +
    '<span class="tgt" title="' + esc(s.target) + '">' + esc(s.target) + '</span>' +
    '<span class="sc' + (low ? ' low' : '') + '">' + (s.score != null ? fmt(s.score, 3) : '') + '</span>' +
    '<span class="badge ' + esc(s.status) + '">' + esc(s.status) + '</span>' +
    (mini ? '<img class="mini" data-thumb="' + mini + '" alt="">' : '') + '</summary>' +
    '<div class="body"><table>' + rows.map(r => '<tr><td>' + r[0] + '</td><td>' + r[1] + '</td></tr>').join('') + '</table>' +
    (s.error ? '<pre class="err">' + esc(s.error) + '</pre>' : '') + model + callsHtml +
    '<div class="thumbs">' + (s.before ? '<figure><img class="thumb" data-thumb="' + s.before + '" data-w="before" alt="before"><figcaption>before (frame ' + s.before + ')</figcaption></figure>' : '') +
    (s.after ? '<figure><img class="thumb" data-thumb="' + s.after + '" data-w="after" alt="after"><figcaption>after (frame ' + s.after + ')</figcaption></figure>' : '') + '</div>' +
    kids.map(row).join('') + '</div></details></div>';
}
if (D.calls) $('#run-calls').innerHTML = callBlocks(D.calls);
const list = $('#list');
list.innerHTML = steps.filter(s => s.parent == null || !byId[s.parent]).map(row).join('');
const nodes = $('#nodes');
nodes.innerHTML = steps.map(s => '<i class="' + esc(s.status) + (s.diff ? ' differs' : '') + '" title="' + s.idx + ' ' + esc(s.action) + '"></i>').join('');
const scrub = $('#scrubber');
scrub.max = Math.max(0, steps.length - 1);

// Thumbnails load as they scroll into view; details bodies load theirs when opened.
const io = 'IntersectionObserver' in window ? new IntersectionObserver(es => es.forEach(e => {
  if (e.isIntersecting) { load(e.target); io.unobserve(e.target); } }), {root: $('#steps'), rootMargin: '200px'}) : null;
function load(img) {
  if (img.dataset.thumb && !img.src) img.src = blob('t', img.dataset.thumb);
  if (img.dataset.ref && !img.src) img.src = blob('r', img.dataset.ref);
}
list.querySelectorAll('img.mini').forEach(i => io ? io.observe(i) : load(i));
list.addEventListener('toggle', e => { if (e.target.open) e.target.querySelectorAll(':scope > .body img').forEach(load); }, true);
// Failed steps start open: their error and frames are what a reader looks for first.
list.querySelectorAll('.step.failed > details, .step.not_found > details').forEach(d => d.open = true);
list.addEventListener('click', e => {
  const th = e.target.closest('img.thumb');
  const st = e.target.closest('.step');
  if (!st) return;
  if (th) { which = th.dataset.w; select(+st.dataset.pos, false); e.preventDefault(); return; }
  if (e.target.closest('summary')) select(+st.dataset.pos, false);
});

function overlay(s, w, h) {
  const svg = $('#ov');
  svg.setAttribute('viewBox', '0 0 ' + w + ' ' + h);
  let g = '';
  const sw = Math.max(2, w / 500);
  if (s.box && which == 'before') g += '<rect x="' + (s.box[0] - sw) + '" y="' + (s.box[1] - sw) + '" width="' + (s.box[2] + 2 * sw) + '" height="' + (s.box[3] + 2 * sw) +
      '" fill="none" stroke="#ff2d55" stroke-width="' + sw + '"/>';
  if (s.input) {
    const r = Math.max(8, w / 120), x = s.input[0], y = s.input[1];
    g += '<circle cx="' + x + '" cy="' + y + '" r="' + r + '" fill="none" stroke="#ff2d55" stroke-width="' + sw + '"/>' +
      '<path d="M' + (x - 2 * r) + ' ' + y + 'h' + r + 'M' + (x + r) + ' ' + y + 'h' + r + 'M' + x + ' ' + (y - 2 * r) + 'v' + r + 'M' + x + ' ' + (y + r) + 'v' + r +
      '" stroke="#ff2d55" stroke-width="' + sw + '"/>';
  }
  svg.innerHTML = g;
}
function place() {
  const img = $('#frame'), svg = $('#ov');
  svg.style.left = img.offsetLeft + 'px'; svg.style.top = img.offsetTop + 'px';
  svg.style.width = img.clientWidth + 'px'; svg.style.height = img.clientHeight + 'px';
}
function select(pos, scroll) {
  if (!steps.length) return;
  pos = Math.max(0, Math.min(steps.length - 1, pos));
  const s = steps[pos];
  if (sel >= 0) { const o = steps[sel]; $('#s' + o.idx).classList.remove('sel'); nodes.children[sel].classList.remove('sel'); }
  sel = pos;
  const el = $('#s' + s.idx);
  el.classList.add('sel'); nodes.children[pos].classList.add('sel');
  for (let p = el.parentElement.closest('details'); p; p = p.parentElement.closest('details')) p.open = true;
  if (scroll !== false) el.scrollIntoView({block: 'nearest'});
  scrub.value = pos; scrub.setAttribute('value', pos);
  if (which == 'after' && !s.after) which = 'before';
  if (which == 'before' && !s.before && s.after) which = 'after';
  $('#bbefore').classList.toggle('on', which == 'before'); $('#bafter').classList.toggle('on', which == 'after');
  const id = which == 'before' ? s.before : s.after;
  const f = id ? D.frames[id] : null;
  const img = $('#frame'), screen = $('#screen');
  screen.dataset.step = s.idx; screen.dataset.frame = id || '';
  $('#title').textContent = 'step ' + s.idx + ' · ' + s.action + ' ' + s.target + ' · ' + which;
  $('#caption').textContent = 'step ' + s.idx + ' of ' + steps[steps.length - 1].idx + ' · ' + s.status +
      (s.score != null ? ' · score ' + fmt(s.score, 3) + ' / ' + fmt(s.threshold, 2) : '') + ' · box ' + box(s.box) + ' · input ' + pt(s.input) +
      (f ? ' · frame ' + id + ' (' + f[0] + 'x' + f[1] + ')' : ' · no frame recorded');
  if (!f) { img.removeAttribute('src'); img.style.display = 'none'; $('#nofr').style.display = ''; $('#ov').innerHTML = ''; screen.dataset.loaded = ''; return; }
  $('#nofr').style.display = 'none'; img.style.display = '';
  screen.dataset.loaded = '';
  img.onload = () => { place(); screen.dataset.loaded = id; };
  img.src = blob('f', id);
  overlay(s, f[0], f[1]);
  history.replaceState(null, '', '#step=' + s.idx);
}
scrub.addEventListener('input', () => select(+scrub.value));
nodes.addEventListener('click', e => { const i = Array.prototype.indexOf.call(nodes.children, e.target); if (i >= 0) select(i); });
$('#bbefore').onclick = () => { which = 'before'; select(sel); };
$('#bafter').onclick = () => { which = 'after'; select(sel); };
$('#view').addEventListener('click', () => { $('#view').classList.toggle('zoom'); place(); });
window.addEventListener('resize', place);
$('#expand').onclick = () => list.querySelectorAll('details').forEach(d => d.open = true);
$('#collapse').onclick = () => list.querySelectorAll('details').forEach(d => d.open = false);
document.addEventListener('keydown', e => {
  if (e.target.tagName == 'INPUT' && e.target !== scrub) return;
  if (e.key == 'ArrowRight' || e.key == 'j') { select(sel + 1); e.preventDefault(); }
  if (e.key == 'ArrowLeft' || e.key == 'k') { select(sel - 1); e.preventDefault(); }
});
const m = /step=(\d+)/.exec(location.hash);
let start = steps.findIndex(s => m && s.idx == +m[1]);
if (start < 0) start = Math.max(0, steps.findIndex(s => s.status != 'ok'));
if (steps.length) select(start, !!m);
document.body.dataset.readyMs = (performance.now() - t0).toFixed(1);
document.body.dataset.openMs = performance.now().toFixed(1);
document.body.dataset.ready = '1';
})();
)JS";

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

// JSON safe to place inside <script>: no "</" sequences.
std::string scriptJson(const json& j) {
    std::string s = j.dump(-1, ' ', false, json::error_handler_t::replace);
    std::string o;
    o.reserve(s.size());
    for (size_t i = 0; i < s.size(); ++i) {
        if (s[i] == '<' && i + 1 < s.size() && s[i + 1] == '/') {
            o += "<\\/";
            ++i;
        } else {
            o += s[i];
        }
    }
    return o;
}


std::vector<unsigned char> thumbnail(const std::vector<unsigned char>& png, int width) {
    cv::Mat img = cv::imdecode(png, cv::IMREAD_COLOR);
    if (img.empty()) return {};
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

// The model calls of a run (table model_calls, written by runtime/model), keyed by step id
// (0: calls outside a step). Empty when the log has no such table.
std::map<int64_t, json> modelCalls(const std::string& path, int64_t run_id) {
    std::map<int64_t, json> out;
    sqlite3* db = nullptr;
    if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) {
        sqlite3_close(db);
        return out;
    }
    try {
        Statement t(db, "SELECT 1 FROM sqlite_master WHERE type='table' AND name='model_calls'");
        if (t.step()) {
            Statement q(db,
                        "SELECT COALESCE(step_id, 0), seq, kind, provider, model, answer, status, error, "
                        "latency_ms, input_tokens, output_tokens FROM model_calls WHERE run_id=? ORDER BY seq, id");
            q.bind(1, run_id);
            while (q.step()) {
                json c{{"seq", q.integer(1)}, {"kind", q.text(2)}, {"provider", q.text(3)}, {"model", q.text(4)},
                       {"answer", q.text(5)}, {"status", q.text(6)}};
                if (!q.text(7).empty()) c["error"] = q.text(7);
                if (auto v = q.optReal(8)) c["latency_ms"] = *v;
                if (auto v = q.optInteger(9)) c["in"] = *v;
                if (auto v = q.optInteger(10)) c["out"] = *v;
                json& list = out[q.integer(0)];
                if (list.is_null()) list = json::array();
                list.push_back(std::move(c));
            }
        }
    } catch (const std::exception&) {
        // A model_calls table of another shape: the report goes on without it.
    }
    sqlite3_close(db);
    return out;
}

}  // namespace


std::string renderHtmlReport(const RunLog& log, int64_t run_id, const ReportOptions& opt,
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

    std::map<int64_t, json> calls = modelCalls(log.path(), run_id);
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
               {"method", s.method}, {"status", s.status}};
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

    std::ostringstream h;
    std::string title = "eacu run " + std::to_string(run->id) + " — " + fs::path(run->script).filename().string();
    h << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
      << "<meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">"
      << "<meta name=\"generator\" content=\"eacu " << EACU_VERSION << "\">"
      << "<title>" << htmlEscape(title) << "</title><style>" << kStyle << "</style></head>\n<body id=\"report\">\n<header><h1>"
      << htmlEscape(title) << " <span class=\"badge " << htmlEscape(run->status) << "\" id=\"run-status\">"
      << htmlEscape(run->status) << "</span></h1><div class=\"meta\">script <b>" << htmlEscape(run->script)
      << "</b> " << htmlEscape(run->args_json) << " · device <b>" << htmlEscape(run->device) << "</b> ("
      << run->screen_w << "x" << run->screen_h << ", scale " << run->scale << ") · started <b>"
      << formatLocalTime(run->started_at) << "</b>";
    if (run->ended_at > 0) {
        char buf[32];
        std::snprintf(buf, sizeof buf, "%.1f", run->ended_at - run->started_at);
        h << " · " << buf << " s";
    }
    h << " · <b id=\"step-count\">" << steps.size() << "</b> steps · " << used_frames.size()
      << " frames";
    if (n_calls) h << " · <b id=\"model-calls\">" << n_calls << "</b> model call" << (n_calls == 1 ? "" : "s");
    h << " · log " << htmlEscape(log.path()) << "</div><div id=\"run-calls\"></div>";
    if (run->replay_of) {
        h << "<div class=\"diffs\" id=\"replay\">replay (" << htmlEscape(run->replay_mode.empty() ? "?" : run->replay_mode)
          << " mode) of run <b>" << *run->replay_of << "</b>";
        if (!original) h << " (no longer in the log)";
        else if (diff_list.empty()) h << ": every step agrees with the original";
        else {
            h << ": " << diff_list.size() << " difference" << (diff_list.size() == 1 ? "" : "s") << "<ul>";
            for (const auto& d : diff_list)
                h << "<li><a href=\"#step=" << d.idx << "\" onclick=\"location.hash='step=" << d.idx
                  << "';location.reload()\">step " << d.idx << "</a>: " << htmlEscape(d.what) << "</li>";
            h << "</ul>";
        }
        h << "</div>";
    }
    if (!run->error.empty()) h << "<pre class=\"err\" id=\"run-error\">" << htmlEscape(run->error) << "</pre>";
    h << "</header>\n<main><section id=\"steps\"><div class=\"tools\">steps · <button id=\"expand\">expand all</button> "
         "<button id=\"collapse\">collapse all</button> · ←/→ move</div><div id=\"list\"></div></section>\n"
         "<section id=\"screen\"><div id=\"bar\"><span class=\"dots\"><span></span><span></span><span></span></span>"
         "<span id=\"title\">no steps</span><button id=\"bbefore\" class=\"on\">before</button><button id=\"bafter\">after</button></div>"
         "<div id=\"view\"><img id=\"frame\" alt=\"frame\"><svg id=\"ov\" xmlns=\"http://www.w3.org/2000/svg\"></svg>"
         "<div id=\"nofr\" style=\"display:none\">no frame recorded for this step</div></div>"
         "<div id=\"scrub\"><input type=\"range\" id=\"scrubber\" min=\"0\" max=\"0\" value=\"0\"><div id=\"nodes\"></div>"
         "<div id=\"caption\"></div></div></section></main>\n";
    h << "<script id=\"eacu-data\" type=\"application/json\">" << scriptJson(data) << "</script>\n";

    // Frames, thumbnails and reference images: embedded as inert text blocks decoded on demand,
    // or written beside the page.
    size_t n_frames = 0;
    for (int64_t id : used_frames) {
        std::vector<unsigned char> png = log.framePng(id);
        std::vector<unsigned char> th = thumbnail(png, opt.thumb_width);
        if (!opt.assets_dir.empty()) {
            writeFile(assets_dir / "frames" / (std::to_string(id) + ".png"), png);
            writeFile(assets_dir / "thumbs" / (std::to_string(id) + ".jpg"), th);
        } else {
            h << "<script type=\"text/plain\" id=\"t" << id << "\">" << base64Encode(std::string_view(reinterpret_cast<const char*>(th.data()), th.size()))
              << "</script>\n<script type=\"text/plain\" id=\"f" << id << "\">"
              << base64Encode(std::string_view(reinterpret_cast<const char*>(png.data()), png.size())) << "</script>\n";
        }
        ++n_frames;
    }
    for (const auto& [path, n] : refs) {
        std::vector<unsigned char> bytes = readFile(path);
        if (!opt.assets_dir.empty()) writeFile(assets_dir / "refs" / (std::to_string(n) + ".png"), bytes);
        else
            h << "<script type=\"text/plain\" id=\"r" << n << "\">" << base64Encode(std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()))
              << "</script>\n";
    }
    h << "<script>" << kScript << "</script>\n</body></html>\n";
    std::string out = h.str();
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
