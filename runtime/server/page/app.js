// The chat page of `eacu serve` (issue 12; seed 001 §1.1, §3.2, §6.3). Plain JS, no framework.
//
// State is driven only by the server: POST /api/chat/send starts a task, and everything shown
// about a task comes from the session's SSE stream (GET /api/chat/stream, docs/serve-protocol.md §3).
// The one exception is the card shown at once on send, before the server has answered: it is
// bound to its task when the POST returns (or when task.started arrives first).
//
// A task is one assistant card (class TaskCard) with two modes (seed 001 §6.3):
//   running: progress header (latest line; expands to a timeline), screen window with the live
//            frames or a chosen step's screenshot, and a scrubber (a node per step + "live");
//   answer:  the answer text (completed / awaiting_user with the 我已经操作 button / failed /
//            stopped). When an awaiting task resumes, the prompt stays in the chat as a note,
//            the person's reply follows it and the card goes back to running at the bottom.
// Take over (issue 29, docs/serve-protocol.md §4): while the task awaits the person, or after
// 接管 (take-over) paused it, the live screen is the task's screen for them: pointer and keys
// (and text composed by an input method) go to the task's device as input events, mapped from
// the shown image to the frame's physical pixels. 交还 (hand-back) or 我已经操作 resumes it.
// The server's token travels in its HttpOnly cookie: the page never sees it.
'use strict';
(() => {
  const params = new URLSearchParams(location.search);
  const SESSION_KEY = 'eacu.session';
  const STREAM_EVENTS = ['task.started', 'screen.live', 'progress.append', 'progress.update',
    'task.awaiting_user', 'task.completed', 'task.failed', 'task.stopped', 'task.paused', 'task.resumed'];

  const $ = (sel, root = document) => root.querySelector(sel);

  // h('div', {class: 'x', dataset: {testid: 'y'}, onclick: f}, child, 'text', ...) -> element
  function h(tag, attrs, ...children) {
    const el = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v == null || v === false) continue;
      if (k === 'dataset') Object.assign(el.dataset, v);
      else if (k.startsWith('on')) el.addEventListener(k.slice(2), v);
      else if (k === 'text') el.textContent = v;
      else el.setAttribute(k, v === true ? '' : v);
    }
    for (const c of children) if (c != null) el.append(c);
    return el;
  }

  // ---- server access ---------------------------------------------------------------------
  // URLs are resolved against the page's own folder ("/api/frames/3" -> "<base>api/frames/3"),
  // so the page works at `/` and behind a prefix; the server's cookie authorises them all
  // (fetch, EventSource and <img> send it to the page's own origin).
  function apiUrl(path, query) {
    const u = new URL(String(path).replace(/^\/+/, ''), document.baseURI);
    for (const [k, v] of Object.entries(query || {})) if (v != null) u.searchParams.set(k, v);
    return u.href;
  }
  async function request(method, path, body) {
    const headers = {};
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    const r = await fetch(apiUrl(path), {
      method, headers, body: body === undefined ? undefined : JSON.stringify(body),
    });
    let data = null;
    try { data = await r.json(); } catch (_) { /* not JSON: keep null */ }
    if (!r.ok) {
      const err = new Error((data && data.error) || `HTTP ${r.status}`);
      err.status = r.status;
      throw err;
    }
    return data;
  }
  const post = (path, body) => request('POST', path, body);
  // A frame URL of the server ("/api/frames/12") or a data: URL as it is.
  const imageUrl = (src) => (!src ? null : src.startsWith('data:') ? src : apiUrl(src));

  // ---- formatting ------------------------------------------------------------------------
  const clock = (t) => (t ? new Date(t * 1000).toLocaleTimeString('zh-CN', { hour12: false }) : '');
  function duration(s) {
    s = Math.max(0, Math.round(s));
    return s < 60 ? `${s} 秒` : `${Math.floor(s / 60)} 分 ${String(s % 60).padStart(2, '0')} 秒`;
  }

  // ---- page state ------------------------------------------------------------------------
  const S = {
    session: null,        // session id (string, as in the URL), null before the first send
    sessionRaw: null,     // the same id as the server's JSON has it (number or string)
    es: null,             // the EventSource of the session's stream
    seen: new Set(),      // persisted events already applied: "id\ntype\ndata"
    lastId: null,         // the last persisted event id seen (for a manual reconnect)
    backoff: 500,         // ms before a manual reconnect; doubles up to 8 s
    retryTimer: 0,
    tasks: new Map(),     // task_id -> TaskCard
    pending: [],          // cards shown on send whose task id is not known yet
    sending: false,
  };
  // Counts for tests and debugging (window.eacuPage): events applied, duplicates dropped.
  const stats = window.eacuPage = { events: 0, duplicates: 0, reconnects: 0 };
  const messages = $('#messages');
  const chat = $('#chat');
  const input = $('#input');
  const sendBtn = $('#send');

  // Keeps the chat scrolled to the bottom when it was there before a change.
  function follow(fn) {
    const atBottom = chat.scrollHeight - chat.scrollTop - chat.clientHeight < 120;
    const r = fn();
    if (atBottom) chat.scrollTop = chat.scrollHeight;
    return r;
  }
  function setStatus(text, kind) {
    const el = $('#status');
    el.textContent = text || '';
    el.dataset.kind = kind || '';
  }
  function setConn(state) {
    const labels = { idle: '就绪', connecting: '连接中…', open: '已连接', retry: '重新连接…', error: '连接失败' };
    const el = $('#conn');
    el.dataset.state = state;
    $('span', el).textContent = labels[state] || state;
  }
  function addMessage(el, before) {
    $('#empty')?.remove();
    if (before) messages.insertBefore(el, before); else messages.append(el);
    return el;
  }
  function userBubble(text) {
    return h('div', { class: 'msg user', dataset: { testid: 'user-message' } },
      h('div', { class: 'bubble', text }));
  }

  // ---- one task: the assistant's card ------------------------------------------------------
  class TaskCard {
    constructor(text) {
      this.id = null;
      this.text = text || '';
      this.items = [];          // progress items; items[i] has index i + 1
      this.sel = 'live';        // 'live' or a progress index
      this.live = null;         // the latest screen.live frame {image, width, height}
      this.status = 'pending';  // pending | queued | running | awaiting_user | completed | failed | stopped
      this.mode = 'running';
      this.startedAt = null;    // Unix seconds of task.started
      this.endedAt = null;
      this.ackText = null;      // what the person answered while the task waited
      this.takenOver = false;   // 接管: the run is paused (task.paused) or about to be
      this.build();
    }

    build() {
      this.toggle = h('button', {
        type: 'button', class: 'prog-head', 'aria-expanded': 'false',
        dataset: { testid: 'progress-toggle' }, title: 'Show all steps',
        onclick: () => this.expand(this.toggle.getAttribute('aria-expanded') !== 'true'),
      },
      h('span', { class: 'state-icon', 'aria-hidden': 'true' }),
      this.latest = h('span', { class: 'latest', text: '正在提交…' }),
      this.count = h('span', { class: 'count' }),
      h('span', { class: 'chev', 'aria-hidden': 'true' }));
      this.timeline = h('ol', { class: 'timeline', hidden: true, dataset: { testid: 'progress-list' } });

      this.img = h('img', { alt: '屏幕画面', dataset: { testid: 'screen' }, draggable: 'false' });
      // Receives the keyboard and the input method's composed text while the person acts.
      this.keys = h('textarea', { class: 'keys', 'aria-label': 'Keyboard for the task\'s screen', autocomplete: 'off',
        autocapitalize: 'off', spellcheck: 'false', tabindex: '-1' });
      this.img.addEventListener('load', () => {
        this.view.classList.add('has-frame');
        this.view.classList.remove('broken');
        this.setAspect(this.img.naturalWidth, this.img.naturalHeight);
        this.placeCursor();
      });
      this.img.addEventListener('error', () => { if (this.img.getAttribute('src')) this.view.classList.add('broken'); });
      this.cursor = h('span', { class: 'cursor-mark', hidden: true });
      this.view = h('div', { class: 'view' }, this.img, this.cursor, this.keys,
        h('div', { class: 'placeholder' }, h('span', { class: 'spinner' }), h('span', { class: 'ph-text', text: '正在连接屏幕…' })),
        h('div', { class: 'broken-note', text: '截图加载失败' }));
      this.title = h('span', { class: 'title', text: '屏幕 · 实时' });
      this.elapsed = h('span', { class: 'elapsed' });
      this.stopBtn = h('button', {
        type: 'button', class: 'stop', dataset: { testid: 'stop' }, title: 'Stop the task', disabled: true,
        onclick: () => this.stop(),
      }, h('i', { 'aria-hidden': 'true' }), '停止');
      this.takeBtn = h('button', {
        type: 'button', class: 'take', dataset: { testid: 'take-over' }, title: 'Take over the screen', hidden: true,
        onclick: () => this.takeOver(),
      }, '接管');
      this.backBtn = h('button', {
        type: 'button', class: 'take back', dataset: { testid: 'hand-back' }, title: 'Hand the screen back', hidden: true,
        onclick: () => this.handBack(),
      }, '交还');
      this.nodes = h('div', { class: 'nodes' },
        this.liveNode = this.makeNode('live', '实时画面'));
      this.fill = h('div', { class: 'fill' });
      this.scrubber = h('div', {
        class: 'scrubber', role: 'slider', tabindex: '0', 'aria-label': 'Steps',
        dataset: { testid: 'scrubber' },
      }, h('div', { class: 'rail' }, h('div', { class: 'track' }, this.fill), this.nodes),
      h('span', { class: 'live-label', text: '实时' }));
      this.wireScrubber();
      this.wireInput();

      this.run = h('section', { class: 'run' },
        this.toggle, this.timeline,
        h('div', { class: 'window' },
          h('div', { class: 'bar' },
            h('span', { class: 'dots', 'aria-hidden': 'true' }, h('i'), h('i'), h('i')),
            this.title, this.elapsed, this.takeBtn, this.backBtn, this.stopBtn),
          this.view, this.scrubber));
      this.answerBox = h('section', { class: 'answer-box', hidden: true });
      this.card = h('div', { class: 'card' }, this.answerBox, this.run);
      this.el = h('article', { class: 'msg assistant task', dataset: { testid: 'task', status: this.status } },
        h('div', { class: 'avatar', 'aria-hidden': 'true' }), this.card);
      this.el.dataset.mode = 'running';
    }

    bind(id) {
      this.id = id;
      this.el.dataset.taskId = String(id);
      this.stopBtn.disabled = !this.isRunning();
      S.tasks.set(id, this);
    }
    isRunning() { return ['pending', 'queued', 'running'].includes(this.status); }

    // The person's input goes to the task now (it awaits them, or they took it over).
    acting() { return this.id != null && (this.status === 'awaiting_user' || this.takenOver); }
    setStatus(status) {
      this.status = status;
      this.el.dataset.status = status;
      if (!['running', 'awaiting_user'].includes(status)) this.takenOver = false;
      this.stopBtn.disabled = this.id == null || !this.isRunning() || this.stopping;
      this.renderControl();
      this.renderHeader();
      this.tick(Date.now() / 1000);
    }

    renderControl() {
      this.takeBtn.hidden = !(this.id != null && this.status === 'running' && !this.takenOver);
      this.backBtn.hidden = !this.takenOver;
      this.el.dataset.control = this.takenOver ? (this.isPaused ? 'person' : 'taking') : this.status === 'awaiting_user' ? 'person' : 'run';
      this.view.classList.toggle('acting', this.acting());
      this.keys.tabIndex = this.acting() ? 0 : -1;
    }
    async takeOver() {
      if (this.id == null) return;
      this.takeBtn.disabled = true;
      this.isPaused = false; // task.paused may come on the stream before the answer below
      try {
        await post(`api/tasks/${this.id}/take-over`, {});
        this.takenOver = true;
        this.select('live');
        if (!this.isPaused) setStatus('正在接管：任务会在当前步骤结束后暂停…', 'info');
      } catch (e) {
        setStatus(`接管失败：${e.message}`, 'error');
      }
      this.takeBtn.disabled = false;
      this.renderControl();
    }
    async handBack() {
      if (this.id == null) return;
      this.backBtn.disabled = true;
      try {
        await post(`api/tasks/${this.id}/hand-back`, {});
        this.takenOver = false;
        this.isPaused = false;
      } catch (e) {
        setStatus(`交还失败：${e.message}`, 'error');
      }
      this.backBtn.disabled = false;
      this.renderControl();
    }
    paused(d) {
      this.takenOver = true;
      this.isPaused = true;
      setStatus('你正在操作任务的屏幕：点击、拖动、滚动和键盘都会发送到任务的屏幕。完成后点「交还」。', 'info');
      this.renderControl();
    }
    resumedByHandBack() {
      this.takenOver = false;
      this.isPaused = false;
      setStatus('');
      this.renderControl();
    }

    // ---- the person's input on the live screen ----
    // A point of the page as physical pixels of the task's frame: the image is shown with
    // object-fit: contain, so the frame's box inside the element is found first. Null when
    // outside the frame or no live frame is known.
    framePoint(clientX, clientY) {
      const f = this.live;
      if (!f || !f.width || !f.height) return null;
      const r = this.img.getBoundingClientRect();
      const k = Math.min(r.width / f.width, r.height / f.height);
      if (!(k > 0)) return null;
      const ox = r.left + (r.width - f.width * k) / 2, oy = r.top + (r.height - f.height * k) / 2;
      const x = Math.floor((clientX - ox) / k), y = Math.floor((clientY - oy) / k);
      if (x < 0 || y < 0 || x >= f.width || y >= f.height) return null;
      return { x, y };
    }
    // Input events go out one after another, in order (the run performs them in order too).
    sendInput(event) {
      if (!this.acting()) return Promise.resolve();
      const id = this.id;
      this.inputChain = (this.inputChain || Promise.resolve()).then(() =>
        post(`api/tasks/${id}/input`, { event }).catch((e) => setStatus(`操作没有送达：${e.message}`, 'error')));
      return this.inputChain;
    }
    wireInput() {
      const v = this.view;
      let down = null, moveTimer = null, lastClick = null;
      v.addEventListener('contextmenu', (e) => { if (this.acting()) e.preventDefault(); });
      v.addEventListener('pointerdown', (e) => {
        if (!this.acting() || this.sel !== 'live') return;
        e.preventDefault();
        this.keys.focus({ preventScroll: true });
        const p = this.framePoint(e.clientX, e.clientY);
        if (!p) return;
        down = { p, button: e.button, id: e.pointerId, moved: false, x: e.clientX, y: e.clientY };
        v.setPointerCapture(e.pointerId);
      });
      v.addEventListener('pointermove', (e) => {
        if (!this.acting() || this.sel !== 'live') return;
        if (down) {
          if (Math.hypot(e.clientX - down.x, e.clientY - down.y) > 5) down.moved = true;
          return;
        }
        // Hover: the pointer goes there once it rests (menus that open on hover).
        clearTimeout(moveTimer);
        moveTimer = setTimeout(() => {
          const p = this.framePoint(e.clientX, e.clientY);
          if (p && this.acting()) this.sendInput({ kind: 'move', x: p.x, y: p.y });
        }, 400);
      });
      const up = (e) => {
        if (!down || e.pointerId !== down.id) return;
        const d = down;
        down = null;
        if (v.hasPointerCapture(e.pointerId)) v.releasePointerCapture(e.pointerId);
        clearTimeout(moveTimer);
        if (e.type === 'pointercancel') return;
        const q = this.framePoint(e.clientX, e.clientY);
        if (d.moved && q && d.button === 0) {
          this.sendInput({ kind: 'drag', x: d.p.x, y: d.p.y, to_x: q.x, to_y: q.y });
        } else if (d.button === 2) {
          this.sendInput({ kind: 'right_click', x: d.p.x, y: d.p.y });
        } else if (d.button === 0) {
          // A click goes out at once; a second press soon after at the same place goes out as
          // the double click (the run starts it 0.5 s after the click: a click, then a double
          // click, which is what an application does with a double click's first press).
          const now = performance.now(), c = lastClick;
          if (c && now - c.t < 500 && Math.abs(c.p.x - d.p.x) <= 4 && Math.abs(c.p.y - d.p.y) <= 4) {
            lastClick = null;
            this.sendInput({ kind: 'double_click', x: c.p.x, y: c.p.y });
          } else {
            lastClick = { t: now, p: d.p };
            this.sendInput({ kind: 'click', x: d.p.x, y: d.p.y });
          }
        }
      };
      v.addEventListener('pointerup', up);
      v.addEventListener('pointercancel', up);
      v.addEventListener('dblclick', (e) => {
        // The click and the double click went out from pointerup already.
        if (this.acting()) e.preventDefault();
      });
      let wheelAcc = 0, wheelTimer = null, wheelAt = null;
      v.addEventListener('wheel', (e) => {
        if (!this.acting() || this.sel !== 'live') return;
        e.preventDefault();
        wheelAt = this.framePoint(e.clientX, e.clientY) || wheelAt;
        wheelAcc += e.deltaMode === 0 ? e.deltaY / 100 : e.deltaY;
        clearTimeout(wheelTimer);
        wheelTimer = setTimeout(() => {
          const n = Math.round(wheelAcc) || Math.sign(wheelAcc);
          wheelAcc = 0;
          if (n && wheelAt) this.sendInput({ kind: 'wheel', x: wheelAt.x, y: wheelAt.y, dy: n });
        }, 120);
      }, { passive: false });
      // Keys: names and combinations here; text (typed or composed by an input method) below.
      const names = { Enter: 'Return', Backspace: 'BackSpace', Tab: 'Tab', Escape: 'Escape', Delete: 'Delete',
        Insert: 'Insert', Home: 'Home', End: 'End', PageUp: 'PageUp', PageDown: 'PageDown', ArrowUp: 'Up',
        ArrowDown: 'Down', ArrowLeft: 'Left', ArrowRight: 'Right', ' ': 'space' };
      this.keys.addEventListener('keydown', (e) => {
        if (!this.acting() || e.isComposing || e.key === 'Process' || e.key === 'Dead') return;
        if (['Control', 'Shift', 'Alt', 'Meta', 'CapsLock'].includes(e.key)) return;
        const mods = [];
        if (e.ctrlKey) mods.push('ctrl');
        if (e.altKey) mods.push('alt');
        if (e.metaKey) mods.push('super');
        let name = names[e.key] || (/^F\d{1,2}$/.test(e.key) ? e.key : null);
        if (!name && mods.length && e.key.length === 1) name = e.key.toLowerCase();
        if (!name) return; // a printable character: it arrives as text (the input event)
        if (name === 'space' && !mods.length) return;
        if (e.shiftKey && (mods.length || e.key.length > 1)) mods.push('shift');
        e.preventDefault();
        this.sendInput({ kind: 'key', keys: [...mods, name].join('+') });
      });
      const sendText = (text) => {
        if (text) this.sendInput({ kind: 'text', text });
        this.keys.value = '';
      };
      this.keys.addEventListener('compositionend', (e) => sendText(e.data));
      this.keys.addEventListener('input', (e) => {
        if (!this.acting()) { this.keys.value = ''; return; }
        if (e.isComposing || e.inputType === 'insertCompositionText') return; // compositionend sends it
        sendText(e.inputType === 'insertLineBreak' ? '' : (e.data != null ? e.data : this.keys.value));
      });
    }

    // ---- events ----
    started(d) {
      // task.started again after awaiting_user: the task resumed; `reply` (if the server sends
      // it) is what the person answered, so a reload shows it too.
      if (d.reply) this.ackText = d.reply;
      if (this.mode === 'answer' && this.status === 'awaiting_user') this.resume();
      if (d.text && !this.text) this.text = d.text;
      this.startedAt = this.startedAt || d.time;
      if (this.mode === 'running') this.setStatus(d.status === 'queued' ? 'queued' : 'running');
    }
    liveFrame(d) {
      if (!d.image) return;
      // A frame passed on as the device encoded it (marked false) has no pointer mark drawn in:
      // the page's ring shows where the pointer is.
      const ring = d.marked === false && d.cursor_x >= 0 && d.cursor_y >= 0 ? [d.cursor_x, d.cursor_y] : null;
      this.live = { image: d.image, width: d.width, height: d.height, cursor: ring };
      this.setAspect(d.width, d.height);
      if (this.status === 'queued') this.setStatus('running');
      if (this.sel === 'live') this.show();
    }
    progress(d, isUpdate) {
      // A new progress line means the task went on after awaiting_user (an update of an old
      // line does not: the step that asked may be completed while it still waits).
      // The person's own steps (actor user) come while it waits: they do not resume it.
      if (!isUpdate && d.actor !== 'user' && this.mode === 'answer' && this.status === 'awaiting_user') this.resume();
      if (this.mode === 'running' && (this.status === 'queued' || this.status === 'pending')) this.setStatus('running');
      const i = Number(d.index);
      if (!(i >= 1)) return;
      let it = this.items[i - 1];
      if (!it) {
        // Items are 1-based and dense; an update for an item never appended creates it too.
        while (this.items.length < i) {
          const n = this.items.length + 1;
          const item = { index: n, text: '', status: 'running', screenshot: null };
          this.items.push(item);
          this.addItemDom(item);
        }
        it = this.items[i - 1];
      }
      for (const k of ['text', 'screenshot', 'frame_id', 'cursor_x', 'cursor_y', 'status', 'time', 'actor']) {
        if (d[k] !== undefined && !(isUpdate && d[k] === null && k === 'screenshot' && it.screenshot)) it[k] = d[k];
      }
      this.renderItem(it);
      this.renderHeader();
      if (this.sel === it.index) this.show();
    }
    finish(status, d) {
      this.endedAt = d.time;
      this.stopping = false;
      if (status === 'awaiting_user') {
        this.prompt = { text: d.text || '', kind: d.kind || 'needs_user', ack: d.show_ack_button !== false };
        this.ackText = null;
        this.takenOver = false;
        this.isPaused = false;
      }
      this.setStatus(status);
      let text;
      if (status === 'completed') text = d.answer || '任务完成。';
      else if (status === 'failed') text = d.error || '任务失败。';
      else if (status === 'stopped') text = '已停止';
      else text = d.text || '需要你操作。';
      this.toAnswer(status, text);
    }

    // ---- answer mode ----
    toAnswer(status, text) {
      this.mode = 'answer';
      this.el.dataset.mode = 'answer';
      const labels = { completed: '完成', failed: '失败', stopped: '已停止', awaiting_user: '需要你操作' };
      const box = this.answerBox;
      box.replaceChildren();
      box.className = `answer-box ${status}`;
      const meta = [labels[status]];
      if (this.items.length) meta.push(`${this.items.length} 步`);
      if (this.startedAt && this.endedAt && status !== 'awaiting_user') meta.push(`用时 ${duration(this.endedAt - this.startedAt)}`);
      box.append(h('div', { class: 'answer-label', text: meta.join(' · ') }));
      box.append(h('div', { class: 'answer', dataset: { testid: 'answer' }, text }));
      if (status === 'awaiting_user') {
        const p = this.prompt;
        const row = h('div', { class: 'ack-row' });
        if (p.ack) {
          this.ackBtn = h('button', {
            type: 'button', class: 'primary ack', dataset: { testid: 'ack' },
            onclick: () => this.ack(),
          }, p.kind === 'confirm' ? '允许，继续' : '我已经操作');
          row.append(this.ackBtn);
        }
        row.append(this.ackNote = h('span', { class: 'ack-note', text: p.kind === 'ask' ? '在下方输入你的回答' : '完成后点击按钮，或在下方回复' }));
        box.append(row);
      }
      if (this.items.length || this.live) {
        const more = h('button', {
          type: 'button', class: 'link show-run', dataset: { testid: 'show-run' }, 'aria-expanded': 'false',
          onclick: () => {
            const open = this.el.classList.toggle('run-open');
            more.setAttribute('aria-expanded', String(open));
            more.textContent = open ? '收起执行过程' : `查看执行过程（${this.items.length} 步）`;
            if (open) this.show();
          },
        }, `查看执行过程（${this.items.length} 步）`);
        box.append(more);
      }
      // Awaiting the person: the live screen stays open, for them to act on.
      this.el.classList.toggle('run-open', status === 'awaiting_user');
      if (status === 'awaiting_user') {
        this.select('live');
        const more = box.querySelector('[data-testid="show-run"]');
        if (more) { more.setAttribute('aria-expanded', 'true'); more.textContent = '收起执行过程'; }
      }
      box.hidden = false;
      this.show();
    }
    // The task left awaiting_user: the prompt and the reply stay as chat messages, and this card
    // goes on, running, at the bottom.
    resume() {
      const p = this.prompt || { text: '' };
      const note = h('div', { class: 'msg assistant note', dataset: { testid: 'user-action-note', taskId: String(this.id) } },
        h('div', { class: 'avatar', 'aria-hidden': 'true' }),
        h('div', { class: 'card note-card' }, h('div', { class: 'answer-label', text: '需要你操作' }),
          h('div', { class: 'note-text', text: p.text || '需要你操作。' })));
      addMessage(note, this.el);
      addMessage(userBubble(this.ackText || '我已经操作'));
      addMessage(this.el); // moves the card after the reply
      this.mode = 'running';
      this.el.dataset.mode = 'running';
      this.el.dataset.resumed = String((Number(this.el.dataset.resumed) || 0) + 1);
      this.el.classList.remove('run-open');
      this.answerBox.hidden = true;
      this.answerBox.replaceChildren();
      this.endedAt = null;
      this.setStatus('running');
      this.show();
    }
    async ack() {
      if (this.id == null) return;
      this.ackBtn.disabled = true;
      this.ackNote.textContent = '已发送，等待任务继续…';
      try {
        await post('api/chat/ack-user-action', { task_id: this.id });
        this.ackText = this.ackText || '我已经操作';
      } catch (e) {
        this.ackBtn.disabled = false;
        this.ackNote.textContent = `发送失败：${e.message}`;
      }
    }
    async stop() {
      if (this.id == null) return;
      this.stopping = true;
      this.stopBtn.disabled = true;
      this.stopBtn.lastChild.textContent = '正在停止…';
      try {
        await post('api/chat/stop', { task_id: this.id });
      } catch (e) {
        this.stopping = false;
        this.stopBtn.disabled = !this.isRunning();
        this.stopBtn.lastChild.textContent = '停止';
        setStatus(`停止失败：${e.message}`, 'error');
      }
    }

    // ---- rendering ----
    renderHeader() {
      const n = this.items.length;
      const last = this.items[n - 1];
      const waiting = { pending: '正在提交…', queued: '排队中，等待空闲的执行器…', running: '正在启动屏幕…' };
      this.latest.textContent = last ? (last.text || `第 ${n} 步`) : (waiting[this.status] || '');
      this.count.textContent = n ? `${n} 步` : '';
      this.toggle.dataset.state = last && last.status === 'failed' ? 'failed' : (this.isRunning() ? 'running' : this.status);
      this.toggle.disabled = !n;
      this.el.querySelector('.ph-text').textContent = this.status === 'queued' ? '排队中…' : '正在连接屏幕…';
    }
    addItemDom(it) {
      it.li = h('li', {
        class: 'item', dataset: { testid: 'progress-item', index: String(it.index) }, tabindex: '0',
        onclick: () => this.select(it.index),
        onkeydown: (e) => { if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); this.select(it.index); } },
        onmouseenter: () => it.node.classList.add('hover'),
        onmouseleave: () => it.node.classList.remove('hover'),
      }, h('span', { class: 'dot', 'aria-hidden': 'true' }), it.textEl = h('span', { class: 'text' }),
      it.timeEl = h('time', { class: 'time' }));
      this.timeline.append(it.li);
      it.node = this.makeNode(String(it.index), '');
      it.node.addEventListener('mouseenter', () => it.li.classList.add('hover'));
      it.node.addEventListener('mouseleave', () => it.li.classList.remove('hover'));
      this.nodes.insertBefore(it.node, this.liveNode);
      this.markSelection();
    }
    renderItem(it) {
      it.textEl.textContent = (it.actor === 'user' ? '你：' : '') + (it.text || `第 ${it.index} 步`);
      it.li.dataset.actor = it.actor || 'script';
      it.node.dataset.actor = it.actor || 'script';
      it.timeEl.textContent = clock(it.time);
      it.li.dataset.status = it.status || 'running';
      it.node.dataset.status = it.status || 'running';
      it.li.dataset.screenshot = it.screenshot || '';
      it.node.title = `${it.index}. ${it.text || ''}`;
    }
    makeNode(key, label) {
      return h('button', {
        type: 'button', class: 'node', tabindex: '-1', title: label,
        dataset: { node: key }, 'aria-label': key === 'live' ? 'Live' : `Step ${key}`,
      });
    }
    expand(open) {
      this.toggle.setAttribute('aria-expanded', String(open));
      this.timeline.hidden = !open;
      this.el.classList.toggle('expanded', open);
    }

    // ---- the screen window and the scrubber ----
    select(key) {
      this.sel = key === 'live' ? 'live' : Number(key);
      this.markSelection();
      this.show();
    }
    markSelection() {
      for (const it of this.items) {
        const on = this.sel === it.index;
        it.li.classList.toggle('sel', on);
        it.node.classList.toggle('sel', on);
        if (on) it.li.setAttribute('aria-current', 'step'); else it.li.removeAttribute('aria-current');
      }
      this.liveNode.classList.toggle('sel', this.sel === 'live');
      // The fill runs from the first node to the selected one.
      const n = this.items.length + 1;
      const pos = this.sel === 'live' ? n : this.sel;
      this.fill.style.width = n > 1 ? `${((pos - 1) / (n - 1)) * 100}%` : '0';
      this.scrubber.setAttribute('aria-valuemin', '1');
      this.scrubber.setAttribute('aria-valuemax', String(n));
      this.scrubber.setAttribute('aria-valuenow', String(pos));
      this.scrubber.setAttribute('aria-valuetext', this.sel === 'live' ? 'live' : `step ${this.sel}`);
    }
    // What the screen window shows for the selection: a step's screenshot (or the latest one
    // before it when the step has none yet), or the live frame (or, once the task has ended and
    // no live frame was seen, e.g. after a reload, the last screenshot).
    show() {
      let src = null, title, cursor = null, note = '';
      if (this.sel === 'live') {
        const lastShot = [...this.items].reverse().find((it) => it.screenshot);
        if (this.live) {
          src = this.live.image;
          cursor = this.live.cursor;
        } else if (!this.isRunning() && lastShot) src = imageUrl(lastShot.screenshot);
        title = this.isRunning() ? '屏幕 · 实时' : '屏幕 · 最后画面';
      } else {
        const it = this.items[this.sel - 1];
        const shot = it.screenshot ? it : this.items.slice(0, this.sel).reverse().find((x) => x.screenshot);
        if (shot) src = imageUrl(shot.screenshot);
        else if (this.live) src = this.live.image;
        if (!it.screenshot) note = '（此步骤还没有截图）';
        title = `第 ${this.sel}/${this.items.length} 步 · ${it.text || ''}${note}`;
        if (it.cursor_x != null && it.cursor_y != null && it.screenshot) cursor = [it.cursor_x, it.cursor_y];
      }
      this.title.textContent = title;
      this.title.title = title;
      this.view.dataset.showing = this.sel === 'live' ? 'live' : 'step';
      this.cursorAt = cursor;
      if (src && this.img.getAttribute('src') !== src) this.img.src = src;
      this.placeCursor();
    }
    setAspect(w, hgt) {
      if (w > 0 && hgt > 0) this.run.style.setProperty('--ar', String(w / hgt));
    }
    // A ring where the pointer was on a step's screenshot, or is on a live frame passed on
    // unmarked (other live frames carry their own mark).
    placeCursor() {
      const c = this.cursorAt, w = this.img.naturalWidth, hgt = this.img.naturalHeight;
      if (!c || !w || !hgt) { this.cursor.hidden = true; return; }
      this.cursor.hidden = false;
      this.cursor.style.left = `${(c[0] / w) * 100}%`;
      this.cursor.style.top = `${(c[1] / hgt) * 100}%`;
    }
    // Click or drag on the bar selects the nearest node; the arrow keys step through them.
    wireScrubber() {
      const pick = (x) => {
        const nodes = [...this.nodes.children];
        let best = null, bestD = Infinity;
        for (const n of nodes) {
          const r = n.getBoundingClientRect();
          const d = Math.abs(r.left + r.width / 2 - x);
          if (d < bestD) { bestD = d; best = n; }
        }
        if (best && best.dataset.node !== String(this.sel)) this.select(best.dataset.node);
      };
      this.scrubber.addEventListener('pointerdown', (e) => {
        if (e.button !== 0) return;
        e.preventDefault();
        this.scrubber.focus({ preventScroll: true });
        this.scrubber.setPointerCapture(e.pointerId);
        this.scrubber.classList.add('dragging');
        pick(e.clientX);
      });
      this.scrubber.addEventListener('pointermove', (e) => {
        if (this.scrubber.hasPointerCapture(e.pointerId)) pick(e.clientX);
      });
      const end = (e) => {
        if (this.scrubber.hasPointerCapture(e.pointerId)) this.scrubber.releasePointerCapture(e.pointerId);
        this.scrubber.classList.remove('dragging');
      };
      this.scrubber.addEventListener('pointerup', end);
      this.scrubber.addEventListener('pointercancel', end);
      this.scrubber.addEventListener('keydown', (e) => {
        const n = this.items.length;
        const pos = this.sel === 'live' ? n + 1 : this.sel;
        let next = null;
        if (e.key === 'ArrowLeft') next = Math.max(1, pos - 1);
        else if (e.key === 'ArrowRight') next = Math.min(n + 1, pos + 1);
        else if (e.key === 'Home') next = 1;
        else if (e.key === 'End') next = n + 1;
        if (next == null) return;
        e.preventDefault();
        this.select(next === n + 1 ? 'live' : next);
      });
    }
    tick(now) {
      if (!this.startedAt || !this.isRunning() || this.mode !== 'running') { this.elapsed.textContent = ''; return; }
      this.elapsed.textContent = duration(now - this.startedAt);
    }
  }

  // ---- the stream --------------------------------------------------------------------------
  // The card of an event's task. A task first seen on the stream (a reload, another tab) gets
  // its user message and card here; one sent from this page adopts the card shown on send.
  function cardFor(d, type) {
    const id = Number(d.task_id);
    let t = S.tasks.get(id);
    if (t) return t;
    if (type === 'screen.live') return null; // not worth a card of its own
    const text = (d.text || '').trim();
    const i = type === 'task.started' ? S.pending.findIndex((p) => p.text.trim() === text) : -1;
    if (i >= 0) {
      t = S.pending.splice(i, 1)[0];
    } else {
      t = new TaskCard(text);
      follow(() => {
        if (text) addMessage(userBubble(text));
        addMessage(t.el);
      });
      if (!$('#session-title').textContent && text) setSessionTitle(text);
    }
    t.bind(id);
    return t;
  }
  function applyEvent(type, d) {
    // The session id as the server's JSON types it (after a reload the page has only the
    // string from its URL).
    if (d.session_id != null && String(d.session_id) === S.session) S.sessionRaw = d.session_id;
    const t = cardFor(d, type);
    if (!t) return;
    follow(() => {
      switch (type) {
        case 'task.started': t.started(d); break;
        case 'screen.live': t.liveFrame(d); break;
        case 'progress.append': t.progress(d, false); break;
        case 'progress.update': t.progress(d, true); break;
        case 'task.awaiting_user': t.finish('awaiting_user', d); break;
        case 'task.completed': t.finish('completed', d); break;
        case 'task.failed': t.finish('failed', d); break;
        case 'task.stopped': t.finish('stopped', d); break;
        case 'task.paused': t.paused(d); break;
        case 'task.resumed': t.resumedByHandBack(); break;
      }
    });
  }
  function onStreamEvent(e) {
    // Persisted events carry an id; after a reconnect the server may send some again, so each
    // is applied once. screen.live has no id (its lastEventId is the previous event's), so it
    // is never deduplicated; the key holds the data too, so an id-less event is never taken
    // for the persisted event before it.
    if (e.type !== 'screen.live') {
      const key = `${e.lastEventId}\n${e.type}\n${e.data}`;
      if (S.seen.has(key)) { stats.duplicates += 1; return; }
      S.seen.add(key);
      if (e.lastEventId) S.lastId = e.lastEventId;
    }
    stats.events += 1;
    let d;
    try { d = JSON.parse(e.data); } catch (_) { console.warn('eacu: bad event data', e.type, e.data); return; }
    try { applyEvent(e.type, d); } catch (err) { console.error('eacu: event', e.type, err); }
  }
  function closeStream() {
    clearTimeout(S.retryTimer);
    if (S.es) { S.es.close(); S.es = null; }
  }
  function openStream() {
    closeStream();
    if (!S.session) { setConn('idle'); return; }
    // EventSource resends Last-Event-ID itself when it reconnects; a stream opened anew (after
    // a fatal error) names the last id in the query instead.
    const es = new EventSource(apiUrl('api/chat/stream', { session_id: S.session, last_event_id: S.lastId }));
    S.es = es;
    setConn('connecting');
    let opened = false;
    es.onopen = () => {
      if (es !== S.es) return;
      if (opened) stats.reconnects += 1; // EventSource reconnected itself
      opened = true;
      setConn('open');
      S.backoff = 500;
    };
    es.onerror = () => {
      if (es !== S.es) return;
      if (es.readyState !== EventSource.CLOSED) { setConn('retry'); return; } // it reconnects itself
      // The server refused the stream (an HTTP error): EventSource gives up, so we retry, unless
      // the session is gone (a new database): then the page starts afresh.
      es.close();
      S.es = null;
      setConn('retry');
      request('GET', `api/sessions/${encodeURIComponent(S.session)}`).then(
        () => scheduleReconnect(),
        (err) => {
          if (err.status === 404) { setStatus('这个会话已不存在，已开始新会话。', 'warn'); newSession(); }
          else if (err.status === 401 || err.status === 403) { setConn('error'); setStatus('未授权：页面地址需要带 access_token。', 'error'); }
          else scheduleReconnect();
        });
    };
    for (const type of STREAM_EVENTS) es.addEventListener(type, onStreamEvent);
  }
  function scheduleReconnect() {
    clearTimeout(S.retryTimer);
    S.retryTimer = setTimeout(openStream, S.backoff);
    S.backoff = Math.min(S.backoff * 2, 8000);
  }

  // ---- the session -------------------------------------------------------------------------
  function setSessionTitle(text) {
    const el = $('#session-title');
    el.textContent = text || '';
    el.title = text || '';
  }
  function rememberSession(id) {
    S.session = id;
    try { localStorage.setItem(SESSION_KEY, id); } catch (_) { /* storage may be off */ }
    const u = new URL(location.href);
    u.searchParams.set('session', id);
    history.replaceState(null, '', u.href);
  }
  function newSession() {
    closeStream();
    S.session = null;
    S.sessionRaw = null;
    S.seen.clear();
    S.lastId = null;
    S.tasks.clear();
    S.pending = [];
    try { localStorage.removeItem(SESSION_KEY); } catch (_) { /* ignore */ }
    const u = new URL(location.href);
    u.searchParams.delete('session');
    history.replaceState(null, '', u.href);
    messages.replaceChildren(emptyState);
    setSessionTitle('');
    setConn('idle');
    input.focus();
  }

  // ---- sending -----------------------------------------------------------------------------
  async function send() {
    const text = input.value.trim();
    if (!text || S.sending) return;
    S.sending = true;
    updateSend();
    input.value = '';
    autoGrow();
    setStatus('');
    // A reply to a task that waits for the person goes to that task (the server answers with
    // its id); anything else is a new task whose card shows at once.
    const waiting = [...S.tasks.values()].reverse().find((t) => t.status === 'awaiting_user');
    let card = null, bubble = null;
    if (waiting) {
      waiting.ackText = text;
      if (waiting.ackNote) waiting.ackNote.textContent = `已回复：${text}`;
      if (waiting.ackBtn) waiting.ackBtn.disabled = true;
    } else {
      card = new TaskCard(text);
      bubble = userBubble(text);
      S.pending.push(card);
      follow(() => { addMessage(bubble); addMessage(card.el); });
      chat.scrollTop = chat.scrollHeight;
      if (!$('#session-title').textContent) setSessionTitle(text);
    }
    try {
      const r = await post('api/chat/send', S.session ? { session_id: S.sessionRaw ?? S.session, text } : { text });
      const newSess = String(r.session_id) !== String(S.session);
      if (newSess) rememberSession(String(r.session_id));
      S.sessionRaw = r.session_id;
      const id = Number(r.task_id);
      if (card && card.id == null) {
        S.pending = S.pending.filter((p) => p !== card);
        const known = S.tasks.get(id);
        if (known) { // the stream got there first with a card of its own (or it was a reply)
          card.el.remove();
          if (known.status === 'awaiting_user') { bubble.remove(); known.ackText = text; }
          else bubble.remove();
        } else {
          card.bind(id);
          if (card.status === 'pending') card.setStatus('queued');
        }
      }
      if (newSess || !S.es) openStream();
    } catch (e) {
      if (card) {
        S.pending = S.pending.filter((p) => p !== card);
        card.setStatus('failed');
        card.toAnswer('failed', `发送失败：${e.message}`);
      } else if (waiting) {
        if (waiting.ackBtn) waiting.ackBtn.disabled = false;
        if (waiting.ackNote) waiting.ackNote.textContent = `发送失败：${e.message}`;
      }
      setStatus(`发送失败：${e.message}`, 'error');
    } finally {
      S.sending = false;
      updateSend();
    }
  }
  function updateSend() { sendBtn.disabled = S.sending || !input.value.trim(); }
  function autoGrow() {
    input.style.height = 'auto';
    input.style.height = `${Math.min(input.scrollHeight, 200)}px`;
  }

  // ---- start -------------------------------------------------------------------------------
  const emptyState = $('#empty');
  $('#composer').addEventListener('submit', (e) => { e.preventDefault(); send(); });
  input.addEventListener('input', () => { updateSend(); autoGrow(); });
  input.addEventListener('keydown', (e) => {
    // Enter sends, Shift+Enter is a new line; never while an input method is composing.
    if (e.key === 'Enter' && !e.shiftKey && !e.isComposing && e.keyCode !== 229) {
      e.preventDefault();
      send();
    }
  });
  emptyState.addEventListener('click', (e) => {
    const ex = e.target.closest('.example');
    if (ex) { input.value = ex.textContent; updateSend(); input.focus(); }
  });
  $('#new-session').addEventListener('click', newSession);
  setInterval(() => {
    const now = Date.now() / 1000;
    for (const t of S.tasks.values()) t.tick(now);
  }, 1000);

  let stored = null;
  try { stored = localStorage.getItem(SESSION_KEY); } catch (_) { /* ignore */ }
  const initial = params.get('session') || stored;
  if (initial) { rememberSession(initial); openStream(); } else setConn('idle');
  input.focus();
})();
