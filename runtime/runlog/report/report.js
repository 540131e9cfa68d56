// The report page's behaviour: builds the step list from the #eacu-data JSON, loads thumbnails
// as they scroll into view and full frames only when a step is selected, draws the match box and
// input point over the frame; selecting a step, clicking a node or dragging the scrubber stay in
// sync; #step=N selects a step on load. Embedded into the page by runtime/runlog/HtmlReport.cpp.
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
    ['actor', esc(s.actor || 'script')], ['method', esc(s.method || '-')], ['score', fmt(s.score, 3) + ' (threshold ' + fmt(s.threshold, 2) + ')'],
    ['box', box(s.box)], ['input', pt(s.input)], ['change', fmt(s.change, 4)],
    ['times', 'locate ' + fmt(s.locate_ms, 1) + ' ms · action ' + fmt(s.action_ms, 1) + ' ms · settle ' + fmt(s.settle_ms, 0) + ' ms'],
    ['frames', (s.before || '-') + ' / ' + (s.after || '-')],
  ];
  const callsHtml = callBlocks(s.calls);
  if (s.params && Object.keys(s.params).length) rows.push(['params', '<code>' + esc(JSON.stringify(s.params)) + '</code>']);
  if (s.ref != null) rows.push(['sought', '<img class="ref" data-ref="' + s.ref + '" alt="reference image">']);
  if (s.heal_new) rows.push(['healed', (s.heal_old != null ? '<figure><img class="ref" data-ref="' + s.heal_old + '" alt="recorded crop"><figcaption>recorded</figcaption></figure>' : '') +
    s.heal_new.map(f => '<figure><img class="ref" data-thumb="' + f + '" alt="healed crop"><figcaption>healed (' + esc(m.heal.method || '') + ' ' + fmt(m.heal.score, 2) + ')</figcaption></figure>').join('') +
    (m.heal.healed ? '' : ' not healed: ' + esc(m.heal.rejected || ''))]);
  if (s.diff) rows.push(['replay', '<span style="color:var(--warn)">' + esc(s.diff.join('; ')) + '</span>']);
  return '<div class="step ' + esc(s.status) + (s.diff ? ' differs' : '') + '" id="s' + s.idx + '" data-pos="' + s.pos +
    '" data-actor="' + esc(s.actor || 'script') + '">' +
    '<details><summary><span class="idx">' + s.idx + '</span><span class="act">' + esc(s.action) + '</span>' +
    (s.actor == 'user' ? '<span class="actor user">person</span>' : s.actor == 'model' ? '<span class="actor model">model</span>' : '') +
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
nodes.innerHTML = steps.map(s => '<i class="' + esc(s.status) + (s.diff ? ' differs' : '') + '" data-actor="' + esc(s.actor || 'script') +
  '" title="' + s.idx + ' ' + esc(s.action) + (s.actor == 'user' ? ' (person)' : '') + '"></i>').join('');
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
  // A window-bound step's frames are the window's own pixels: screen points minus its origin.
  const o = (s.params && s.params.window && s.params.window.origin) || [0, 0];
  if (s.box && which == 'before') g += '<rect x="' + (s.box[0] - o[0] - sw) + '" y="' + (s.box[1] - o[1] - sw) + '" width="' + (s.box[2] + 2 * sw) + '" height="' + (s.box[3] + 2 * sw) +
      '" fill="none" stroke="#ff2d55" stroke-width="' + sw + '"/>';
  if (s.input) {
    const r = Math.max(8, w / 120), x = s.input[0] - o[0], y = s.input[1] - o[1];
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
