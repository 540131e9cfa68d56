// eacu studio's page (docs/studio.md). The device's live screen arrives as JPEG frames on one
// event stream (api/studio/stream, with the script's lines when they change). Record mode: the
// person's pointer, wheel, keys and text (an input method's composed text included) go to
// api/studio/input as device events in physical pixels, and the studio writes each as a line.
// Inspect mode: nothing reaches the device; the element under the resting pointer is outlined
// and shown with the target eacu would write for it.
'use strict';
(() => {
  const $ = (s) => document.querySelector(s);
  const img = $('#screen'), outline = $('#outline'), keys = $('#keys'), statusEl = $('#status');
  const S = { w: 0, h: 0, inspect: false, chosen: null, tree: null, lines: [], info: {} };

  // The token came in the address once: the cookie carries it now, so it leaves the address.
  if (location.search.includes('access_token=')) history.replaceState(null, '', location.pathname);

  function setStatus(text, kind) {
    statusEl.textContent = text;
    statusEl.className = kind || '';
  }
  async function call(method, path, body) {
    const r = await fetch(path, {
      method, headers: body ? { 'Content-Type': 'application/json' } : {}, body: body ? JSON.stringify(body) : undefined,
    });
    const j = await r.json().catch(() => ({}));
    if (!r.ok) throw new Error(j.error || `HTTP ${r.status}`);
    return j;
  }
  const post = (path, body) => call('POST', path, body || {});
  const get = (path) => call('GET', path);

  // ---- the live screen ----
  const stream = new EventSource('api/studio/stream');
  // The seq of the frame on screen: set once the image is decoded (what the person sees).
  const shownSeq = () => Number(img.dataset.seq) || 0;
  stream.addEventListener('screen.live', (e) => {
    const d = JSON.parse(e.data);
    S.w = d.width; S.h = d.height;
    img.src = d.image;
    img.decode().then(() => { if (img.src === d.image) img.dataset.seq = d.seq; }).catch(() => {});
    if (S.treeStale) loadTree();
  });
  stream.addEventListener('script', (e) => renderLines(JSON.parse(e.data)));
  stream.onerror = () => setStatus('连接中断，正在重连 reconnecting…', 'error');
  stream.onopen = () => setStatus('');

  // The device pixel under a page point (the image may be shown at any size).
  function devicePoint(e) {
    const r = img.getBoundingClientRect();
    const x = Math.round((e.clientX - r.left) * S.w / r.width), y = Math.round((e.clientY - r.top) * S.h / r.height);
    return { x: Math.max(0, Math.min(S.w - 1, x)), y: Math.max(0, Math.min(S.h - 1, y)) };
  }
  function showBox(b) {
    if (!b || !b.w || !S.w) { outline.hidden = true; return; }
    const k = img.clientWidth / S.w;
    Object.assign(outline.style, { left: `${b.x * k}px`, top: `${b.y * k}px`, width: `${b.w * k}px`, height: `${b.h * k}px` });
    outline.hidden = false;
  }

  // ---- record mode: the person's input ----
  let chain = Promise.resolve();
  function send(event) {
    const sent = performance.now();
    chain = chain.then(() => post('api/studio/input', { event })
      .then((r) => { S.lastInput = { kind: event.kind, ms: performance.now() - sent, server_ms: r.input_ms }; })
      .catch((err) => setStatus(`操作没有送达 not sent: ${err.message}`, 'error')));
    return chain;
  }
  // For the tests that drive the page (tests/e2e/studio_page.py): where device pixel (x, y) is
  // shown on the page, the input chain to await, and the page's state.
  window.__studio = {
    pagePoint(x, y) {
      const r = img.getBoundingClientRect();
      return { x: r.left + (x + 0.5) * r.width / S.w, y: r.top + (y + 0.5) * r.height / S.h };
    },
    sent: () => chain,
    state: () => S,
  };

  let down = null, lastClick = null;
  img.addEventListener('contextmenu', (e) => e.preventDefault());
  img.addEventListener('pointerdown', (e) => {
    e.preventDefault();
    keys.focus({ preventScroll: true });
    if (S.inspect) { choose(devicePoint(e)); return; }
    // The frame shown when the person pressed: the studio proves the line on exactly that frame.
    down = { p: devicePoint(e), t: performance.now(), button: e.button, id: e.pointerId, frame: shownSeq() };
    img.setPointerCapture(e.pointerId);
  });
  function up(e) {
    if (!down || e.pointerId !== down.id) return;
    const d = down; down = null;
    if (img.hasPointerCapture(e.pointerId)) img.releasePointerCapture(e.pointerId);
    if (e.type === 'pointercancel') return;
    const p = devicePoint(e), held = (performance.now() - d.t) / 1000;
    if (Math.hypot(p.x - d.p.x, p.y - d.p.y) > 8) {
      send({ kind: 'drag', x: d.p.x, y: d.p.y, to_x: p.x, to_y: p.y, frame: d.frame });
    } else if (d.button === 2) {
      send({ kind: 'right_click', x: d.p.x, y: d.p.y, frame: d.frame });
    } else if (held >= 0.8) {
      send({ kind: 'long_press', x: d.p.x, y: d.p.y, hold: Math.min(30, Math.round(held * 10) / 10), frame: d.frame });
    } else {
      // A second press at the same place soon after: the double click (the click went out).
      const now = performance.now();
      if (lastClick && now - lastClick.t < 400 && Math.abs(lastClick.p.x - d.p.x) <= 4 && Math.abs(lastClick.p.y - d.p.y) <= 4) {
        send({ kind: 'double_click', x: d.p.x, y: d.p.y, frame: d.frame });
        lastClick = null;
      } else {
        send({ kind: 'click', x: d.p.x, y: d.p.y, frame: d.frame });
        lastClick = { p: d.p, t: now };
      }
    }
  }
  img.addEventListener('pointerup', up);
  img.addEventListener('pointercancel', up);
  img.addEventListener('wheel', (e) => {
    e.preventDefault();
    if (S.inspect) return;
    const p = devicePoint(e);
    const dy = Math.sign(e.deltaY) * Math.max(1, Math.round(Math.abs(e.deltaY) / 100));
    const dx = Math.sign(e.deltaX) * Math.max(1, Math.round(Math.abs(e.deltaX) / 100));
    send({ kind: 'wheel', x: p.x, y: p.y, dx: e.deltaX ? dx : 0, dy: e.deltaY ? dy : 0, frame: shownSeq() });
  }, { passive: false });

  // Keys: names and combinations here; characters (typed or composed) arrive as text below.
  const named = { Enter: 'Return', Backspace: 'BackSpace', Tab: 'Tab', Escape: 'Escape', Delete: 'Delete',
    ArrowLeft: 'Left', ArrowRight: 'Right', ArrowUp: 'Up', ArrowDown: 'Down', Home: 'Home', End: 'End',
    PageUp: 'Page_Up', PageDown: 'Page_Down' };
  keys.addEventListener('keydown', (e) => {
    if (S.inspect || e.isComposing || e.keyCode === 229) return;
    let name = named[e.key] || (/^F\d{1,2}$/.test(e.key) ? e.key : null);
    const mods = [e.ctrlKey && 'ctrl', e.altKey && 'alt', e.metaKey && 'super'].filter(Boolean);
    if (!name && mods.length && e.key.length === 1) name = e.key.toLowerCase();
    if (!name) return;
    e.preventDefault();
    send({ kind: 'key', keys: [...mods, ...(e.shiftKey && mods.length ? ['shift'] : []), name].join('+') });
  });
  keys.addEventListener('compositionend', (e) => { if (!S.inspect && e.data) send({ kind: 'text', text: e.data }); keys.value = ''; });
  keys.addEventListener('input', (e) => {
    if (e.isComposing || e.inputType === 'insertCompositionText') return;
    if (!S.inspect && e.data) send({ kind: 'text', text: e.data });
    keys.value = '';
  });
  document.querySelectorAll('[data-key]').forEach((b) => b.addEventListener('click', () => send({ kind: 'key', keys: b.dataset.key })));

  // ---- inspect mode ----
  const inspectBtn = $('#inspect');
  inspectBtn.addEventListener('click', () => {
    S.inspect = !S.inspect;
    inspectBtn.setAttribute('aria-pressed', String(S.inspect));
    $('#mode-hint').textContent = S.inspect
      ? '检查：指向元素查看它；点击选中它（添加验证）。 Inspect: point at an element; click chooses it (add verify).'
      : '录制：在屏幕上操作，每个操作成为一行脚本。 Record: act on the screen; each action becomes a line.';
    outline.hidden = true;
    if (S.inspect) loadTree();
  });
  let restTimer = null, hoverSeq = 0, aheadAt = null;
  img.addEventListener('pointermove', (e) => {
    if (down || (S.inspect && S.chosen)) return;
    const p = devicePoint(e);
    clearTimeout(restTimer);
    if (S.inspect) { restTimer = setTimeout(() => showElement(p), 60); return; }  // the pointer rests
    // Record mode: where the pointer rests is proven ahead, so a click there is written at once.
    restTimer = setTimeout(() => {
      if (aheadAt && Math.abs(aheadAt.x - p.x) <= 2 && Math.abs(aheadAt.y - p.y) <= 2) return;
      aheadAt = p;
      post('api/studio/ahead', p).catch(() => {});
    }, 150);
  });
  const esc = (s) => String(s == null ? '' : s).replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' }[c]));
  async function showElement(p) {
    const mine = ++hoverSeq, t0 = performance.now();
    const info = $('#element-info');
    const r = await get(`api/studio/element?x=${p.x}&y=${p.y}`).catch((err) => ({ error: err.message }));
    if (mine !== hoverSeq) return;
    S.lastElementMs = performance.now() - t0;
    const e = r.element;
    info.dataset.x = p.x; info.dataset.y = p.y;
    info.innerHTML = e
      ? `<dl data-testid="element-fields">
          <dt>角色 role</dt><dd data-field="role">${esc(e.role)}</dd>
          <dt>名称 name</dt><dd data-field="name">${esc(e.name)}</dd>
          <dt>标识 id</dt><dd data-field="id">${esc(e.id)}</dd>
          <dt>描述 description</dt><dd data-field="description">${esc(e.description)}</dd>
          <dt>值 value</dt><dd data-field="value">${esc(e.value || '')}</dd>
          <dt>位置 bounds</dt><dd data-field="bounds">${e.bounds.x},${e.bounds.y} ${e.bounds.w}x${e.bounds.h}</dd>
          <dt>路径 path</dt><dd data-field="path">${esc(e.path)}</dd>
          <dt>来源 source</dt><dd data-field="source">${esc(e.source)}</dd></dl>`
      : `<p class="hint">这里没有树元素 no tree element here (${p.x},${p.y})${r.error ? ': ' + esc(r.error) : ''}</p>`;
    info.insertAdjacentHTML('beforeend', '<div data-testid="element-target"><p class="hint">正在证明目标 proving the target…</p></div>');
    if (e) showBox(e.bounds); else outline.hidden = true;
    if (S.proving) S.proving.abort();  // a request for a point the pointer left holds a connection
    S.proving = new AbortController();
    const pr = await fetch(`api/studio/prove?x=${p.x}&y=${p.y}`, { signal: S.proving.signal })
      .then((r) => r.json()).catch((err) => ({ error: err.message }));
    if (pr.error && mine !== hoverSeq) return;
    if (mine !== hoverSeq) return;
    const words = (pr.ocr || []).map((w) => `${esc(w.text)} (${w.confidence.toFixed(2)})`).join(' ');
    info.querySelector('[data-testid=element-target]').innerHTML = pr.error ? `<p class="err">${esc(pr.error)}</p>`
      : `<dl><dt>文字 OCR</dt><dd data-field="ocr">${words || '—'}</dd>
          <dt>目标 target</dt><dd><code data-field="target">${esc(pr.lua)}</code></dd>
          <dt>证明 proof</dt><dd data-field="why">${esc(pr.why)}</dd></dl>`;
    if (!e && pr.box) showBox(pr.box);
  }
  function choose(p) {
    S.chosen = p;
    $('#add-verify').disabled = false;
    showElement(p);
  }
  $('#add-verify').addEventListener('click', async () => {
    if (!S.chosen) return;
    try {
      await post('api/studio/verify', S.chosen);
      setStatus('已添加验证 verify added');
    } catch (err) { setStatus(`不能验证 cannot verify: ${err.message}`, 'error'); }
    S.chosen = null;
    $('#add-verify').disabled = true;
  });

  // ---- the tree ----
  async function loadTree() {
    S.treeStale = false;
    const r = await get('api/studio/tree').catch(() => null);
    if (!r) return;
    S.tree = r;
    renderTree();
  }
  function renderTree() {
    const box = $('#tree'), q = $('#tree-search').value.trim().toLowerCase();
    if (!S.tree || !S.tree.root) { box.innerHTML = `<p class="hint">这个设备没有树 no tree on this device</p>`; return; }
    const node = (n) => {
      const label = `${n.role}${n.name ? ' "' + n.name + '"' : ''}${n.id ? ' #' + n.id : ''}`;
      const hit = q && label.toLowerCase().includes(q);
      const kids = n.children.map(node).join('');
      return `<li><span data-testid="tree-node" data-path="${esc(n.path)}" data-box="${n.bounds.x},${n.bounds.y},${n.bounds.w},${n.bounds.h}"${hit ? ' class="hit"' : ''}>${esc(label)}</span>${kids ? `<ul>${kids}</ul>` : ''}</li>`;
    };
    box.innerHTML = `<ul>${node(S.tree.root)}</ul>`;
    const first = box.querySelector('.hit');
    if (first) first.scrollIntoView({ block: 'nearest' });
  }
  $('#tree-search').addEventListener('input', renderTree);
  $('#tree').addEventListener('click', (e) => {
    const s = e.target.closest('[data-testid=tree-node]');
    if (!s) return;
    document.querySelectorAll('#tree .chosen').forEach((c) => c.classList.remove('chosen'));
    s.classList.add('chosen');
    const [x, y, w, h] = s.dataset.box.split(',').map(Number);
    showBox({ x, y, w, h });
    if (S.inspect && w > 0) { S.chosen = { x: x + Math.floor(w / 2), y: y + Math.floor(h / 2) }; $('#add-verify').disabled = false; }
  });

  // ---- the script ----
  function renderLines(d) {
    S.lines = d.lines;
    S.running = d.running;
    $('#run-script').disabled = d.running;
    if (S.inspect) S.treeStale = true;
    const ol = $('#script');
    ol.innerHTML = d.lines.map((l) => {
      const cut = l.lua.indexOf('   -- ');
      const code = cut >= 0 ? l.lua.slice(0, cut) : l.lua, why = cut >= 0 ? l.lua.slice(cut + 6) : '';
      return `<li data-testid="line" data-id="${l.id}" data-state="${l.state}">
        ${l.thumb ? `<img src="${l.thumb}" alt="">` : ''}
        <div class="body"><code data-testid="line-code">${esc(code)}</code>
          <span class="state" data-testid="line-state">${esc(l.state)}</span>
          ${why ? `<div class="why">${esc(why)}</div>` : ''}
          ${l.error ? `<div class="err" data-testid="line-error">${esc(l.error)}</div>` : ''}</div>
        <button type="button" data-testid="line-edit" title="编辑 edit">✎</button>
        <button type="button" data-testid="line-delete" title="删除 delete">✕</button></li>`;
    }).join('');
  }
  $('#script').addEventListener('click', async (e) => {
    const li = e.target.closest('li');
    if (!li) return;
    const id = li.dataset.id;
    try {
      if (e.target.dataset.testid === 'line-delete') await post(`api/studio/lines/${id}/delete`);
      if (e.target.dataset.testid === 'line-edit') {
        const l = S.lines.find((x) => String(x.id) === id);
        const lua = prompt('编辑这一行 edit the line', l ? l.lua : '');
        if (lua != null) await post(`api/studio/lines/${id}`, { lua });
      }
    } catch (err) { setStatus(err.message, 'error'); }
  });
  $('#run-script').addEventListener('click', async () => {
    try { await post('api/studio/run'); setStatus('正在运行 playing back…'); } catch (err) { setStatus(err.message, 'error'); }
  });
  $('#save').addEventListener('click', async () => {
    setStatus('正在保存 saving…');
    try {
      const r = await post('api/studio/save');
      setStatus(`已保存 saved ${r.path}`);
      $('#save').dataset.saved = r.path;
    } catch (err) { setStatus(`没有保存 not saved: ${err.message}`, 'error'); }
  });

  // ---- the picker and the URL box: what the device has open, opened as a line ----
  async function open(request, what) {
    setStatus(`正在打开 opening ${what}…`);
    try {
      const r = await post('api/studio/open', request);
      setStatus(`${r.lua}`);
      loadPlaces();
    } catch (err) { setStatus(`没有打开 not opened: ${err.message}`, 'error'); }
  }
  async function loadPlaces() {
    let p;
    try { p = await get('api/studio/places'); } catch (err) { return; }
    S.places = p;
    const browser = p.url !== undefined;
    $('#url-form').hidden = !browser && p.device_kind !== 'adb';
    // The page's URL, unless the person is writing one.
    if (browser && document.activeElement !== $('#url') && !$('#url').dataset.edited) $('#url').value = p.url;
    $('#launch-form').hidden = !p.launch;
    $('#launch').placeholder = p.device_kind === 'adb' ? '包名 package' : '程序 command';
    const picker = $('#window-picker');
    picker.hidden = !p.windows;
    if (p.windows && !(document.activeElement === picker && picker.dataset.listed)) {
      picker.dataset.listed = '1';  // listed once on each focus: an open list is not replaced
      picker.replaceChildren(picker.options[0]);
      for (const w of p.windows) {
        const o = document.createElement('option');
        o.value = String(w.id);
        o.textContent = `${w.focused ? '● ' : ''}${w.title || '(no title)'} — ${w.class}`;
        picker.append(o);
      }
      picker.value = '';
    }
  }
  $('#url-form').addEventListener('submit', (e) => {
    e.preventDefault();
    const url = $('#url').value.trim();
    delete $('#url').dataset.edited;
    if (url) open({ url }, url);
  });
  $('#url').addEventListener('input', () => { $('#url').dataset.edited = '1'; });
  $('#launch-form').addEventListener('submit', (e) => {
    e.preventDefault();
    const v = $('#launch').value.trim();
    if (!v) return;
    open(S.places && S.places.device_kind === 'adb' ? { package: v } : { command: v }, v);
  });
  $('#window-picker').addEventListener('focus', () => { delete $('#window-picker').dataset.listed; loadPlaces(); });
  $('#window-picker').addEventListener('change', (e) => {
    const id = Number(e.target.value);
    if (id) open({ window: id }, e.target.selectedOptions[0].textContent);
  });

  get('api/studio/info').then((i) => {
    S.info = i;
    $('#device').textContent = `${i.device_kind}${i.tree_source ? ' · ' + i.tree_source : ''}`;
    $('#android').hidden = i.device_kind !== 'adb';
    loadPlaces();
  }).catch(() => {});
})();
