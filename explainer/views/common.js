// Shared front-end helpers of the explainer's views (joined before each view's own module).
// They draw; they compute nothing about the kernels: every index, owner and value a view shows
// arrives from Python (explainer.views.*) as arrays.

const SVGNS = "http://www.w3.org/2000/svg";
const TYPED = { int8: Int8Array, uint8: Uint8Array, int16: Int16Array, int32: Int32Array,
                float32: Float32Array, float64: Float64Array };

// The arrays Python packed (explainer/views/payload.py): {name: {data, shape}}. The bytes are
// copied once so that every typed array is aligned whatever the transport's offset.
function unpack(index, bytes) {
  const src = bytes instanceof ArrayBuffer ? new Uint8Array(bytes)
    : new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const buf = src.slice().buffer;
  const out = {};
  for (const [name, [dtype, offset, shape]] of Object.entries(index)) {
    const n = shape.reduce((a, b) => a * b, 1);
    out[name] = { data: new TYPED[dtype](buf, offset, n), shape };
  }
  return out;
}

// The pages' words in the reader's language. Python sends each view the translations of the
// strings its modules pass to tr() (its `i18n` trait: explainer/i18n, one catalogue for Python and
// JavaScript); tr(msgid, fields) gives the current language's text, English being the msgid
// itself, and fills its {name} fields (only the names given). No language is written in here.
const I18N = { lang: "en", strings: {} };
function learnStrings(model) {
  const t = model && model.get("i18n");
  if (t && t.strings) {
    I18N.lang = t.lang || I18N.lang;
    Object.assign(I18N.strings, t.strings);
  }
}
function tr(msgid, fields) {
  const text = I18N.strings[msgid] || msgid;
  return fields ? text.replace(/\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (m, k) => (k in fields ? String(fields[k]) : m)) : text;
}

// Element [i][j] (or [i][j][k]) of an unpacked array: addressing only.
function at(a, ...idx) {
  let off = 0;
  for (let d = 0; d < idx.length; d++) off = off * a.shape[d] + idx[d];
  for (let d = idx.length; d < a.shape.length; d++) off *= a.shape[d];
  return a.data[off];
}

// A loop counter as every label shows it: "phase t = 2 of 0..5", counted from 0 as in the
// kernel's loop and tiled-explainer trace (explainer.model.count_label says the same in Python).
function countText(name, i, n) {
  // The counters' names the views pass, in the reader's language (a name already translated stays).
  const names = { "phase t": tr("phase t"), "stage": tr("stage"), "buffer": tr("buffer"), "k-step": tr("k-step") };
  return tr("{name} = {i} of 0..{last}", { name: names[name] || name, i, last: n - 1 });
}

function el(tag, attrs = {}, parent = null, text = null) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "class") e.className = v;
    else if (k === "style") e.style.cssText = v;
    else e.setAttribute(k, v);
  }
  if (text != null) e.textContent = text;
  if (parent) parent.appendChild(e);
  return e;
}

function svg(tag, attrs = {}, parent = null, text = null) {
  const e = document.createElementNS(SVGNS, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  if (text != null) e.textContent = text;
  if (parent) parent.appendChild(e);
  return e;
}

function escapeHtml(s) {
  return String(s).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c]));
}

// A rows x cols grid of cells drawn on a canvas placed at (x, y) in ``parent`` (a positioned
// box): paint() takes one palette index per cell and redraws only the cells that changed;
// label() the same for texts. (A canvas, not one SVG rect per cell: a step then costs the
// browser one small bitmap update instead of re-recording thousands of elements.)
class Grid {
  constructor(parent, name, rows, cols, x, y, size, palette) {
    this.name = name;
    this.rows = rows;
    this.cols = cols;
    this.size = size;
    this.palette = palette;
    this.gap = size >= 6 ? 1 : 0;
    this.canvas = el("canvas", { class: "explainer-grid", "data-grid": name,
      style: `position:absolute;left:${x}px;top:${y}px;width:${cols * size}px;height:${rows * size}px` }, parent);
    this.canvas.explainerGrid = this;  // (present.js finds a figure's grids through their canvases)
    this.ctx = this.canvas.getContext("2d");
    this.colour = new Int16Array(rows * cols).fill(-1);
    this.text = new Array(rows * cols).fill("");
    this.fontSize = Math.max(6, Math.min(11, Math.floor(size * 0.42)));
    this.zoom = null;
    this.sharpen(1);
  }

  // The bitmap at `zoom` times the canvas's CSS size (times the screen's pixel ratio), every
  // cell redrawn: a figure that a CSS transform scales up (presenter mode, present.js) stays sharp.
  sharpen(zoom) {
    const dpr = Math.max(1, Math.min(2, window.devicePixelRatio || 1));
    const w = this.cols * this.size, h = this.rows * this.size;
    const k = Math.max(1, Math.min(dpr * zoom, 8192 / Math.max(w, h, 1), 6));
    if (k === this.zoom) return;
    this.zoom = k;
    this.canvas.width = Math.ceil(w * k);
    this.canvas.height = Math.ceil(h * k);
    const ctx = this.ctx;  // (a new size resets the context's state)
    ctx.setTransform(k, 0, 0, k, 0, 0);
    ctx.font = `${this.fontSize}px Inter, "Segoe UI", Helvetica, Arial, sans-serif`;
    ctx.textAlign = "center";
    ctx.textBaseline = "middle";
    for (let i = 0; i < this.colour.length; i++) if (this.colour[i] >= 0 || this.text[i]) this.cell(i);
  }

  cell(i) {
    const r = Math.floor(i / this.cols), c = i % this.cols; // (cell position on screen)
    const { ctx, size, gap } = this;
    ctx.clearRect(c * size, r * size, size, size);
    ctx.fillStyle = this.palette[this.colour[i]] || "#ffffff";
    ctx.fillRect(c * size, r * size, size - gap, size - gap);
    const t = this.text[i];
    if (t) {
      ctx.fillStyle = Grid.ink(this.colour[i]);
      ctx.fillText(t, c * size + (size - gap) / 2, r * size + (size - gap) / 2 + 0.5, size - 1);
    }
  }

  paint(colours) {
    for (let i = 0; i < colours.length; i++) {
      if (colours[i] !== this.colour[i]) {
        this.colour[i] = colours[i];
        this.cell(i);
      }
    }
  }

  label(texts) {
    for (let i = 0; i < this.colour.length; i++) {
      const t = texts ? texts[i] || "" : "";
      if (t !== this.text[i]) {
        this.text[i] = t;
        this.cell(i);
      }
    }
  }

  // White text on the dark colours (ACTIVE, HAZARD), dark text elsewhere.
  static ink(colour) { return colour === 3 || colour === 8 ? "#ffffff" : "#111827"; }

  // The cell under a pointer event, or null.
  cellOf(event) {
    if (event.target !== this.canvas) return null;
    const box = this.canvas.getBoundingClientRect();  // (a CSS transform may scale it: cells of box / cols)
    const r = Math.floor((event.clientY - box.top) * this.rows / box.height);
    const c = Math.floor((event.clientX - box.left) * this.cols / box.width);
    return r >= 0 && r < this.rows && c >= 0 && c < this.cols ? [r, c] : null;
  }

  // The centre of cell (r, c) in page coordinates (tests click there).
  centre(r, c) {
    const box = this.canvas.getBoundingClientRect();
    return { x: box.left + (c + 0.5) * box.width / this.cols, y: box.top + (r + 0.5) * box.height / this.rows };
  }
}

// A tooltip that follows the pointer inside a view.
function tooltip(root) {
  const tip = el("div", { class: "explainer-tip", style: "position:fixed;pointer-events:none;background:#111827;color:#fff;font:12px/1.3 ui-monospace,monospace;padding:3px 6px;border-radius:4px;display:none;z-index:1000;white-space:nowrap" }, root);
  return {
    show(text, event) {
      tip.textContent = text;
      tip.style.left = `${event.clientX + 12}px`;
      tip.style.top = `${event.clientY + 12}px`;
      tip.style.display = "block";
    },
    hide() { tip.style.display = "none"; },
  };
}

function swatch(colour, text) {
  return `<span style="display:inline-block;width:12px;height:12px;background:${colour};border:1px solid #9ca3af;vertical-align:middle"></span> ${escapeHtml(text)}&nbsp;&nbsp;`;
}

// Arrow keys anywhere on the page (not while typing) call onKey(+1 | -1) of one stepper: the one
// the student last clicked or touched, else the one most in view (a page with several steppers,
// page 09, steps the one being read, not always the first).
// One registry per page, on window: in the live app each view's front end is its own copy of
// this module, and they must agree on which one the keys belong to.
const keys = (window.__explainerKeys = window.__explainerKeys || { views: [], touched: null });
function keyTarget() {
  if (keys.touched && keys.touched.root.isConnected) return keys.touched;
  let best = null, most = 0;
  for (const v of keys.views.filter((w) => w.root.isConnected)) {
    const b = v.root.getBoundingClientRect();
    const seen = Math.max(0, Math.min(b.bottom, innerHeight) - Math.max(b.top, 0));
    if (seen > most) { best = v; most = seen; }
  }
  return best || keys.views[0] || null;
}
function arrowKeys(onKey, root) {
  const view = { root: root || document.body, onKey };
  keys.views.push(view);
  const touch = () => { keys.touched = view; };
  view.root.addEventListener("pointerdown", touch);
  const handler = (e) => {
    const t = e.target;
    if (t && (t.tagName === "INPUT" || t.tagName === "TEXTAREA" || t.tagName === "SELECT" || t.isContentEditable)) return;
    if ((e.key === "ArrowRight" || e.key === "ArrowLeft") && keyTarget() === view) {
      onKey(e.key === "ArrowRight" ? 1 : -1);
      e.preventDefault();
    }
  };
  document.addEventListener("keydown", handler);
  return () => {
    document.removeEventListener("keydown", handler);
    view.root.removeEventListener("pointerdown", touch);
    keys.views.splice(keys.views.indexOf(view), 1);
    if (keys.touched === view) keys.touched = null;
  };
}

const VIEW_CSS = `
.explainer-view { font-family: Inter, "Segoe UI", Helvetica, Arial, "Noto Sans CJK SC", "Source Han Sans SC", "PingFang SC", "Microsoft YaHei", sans-serif; color: #111827; }
.explainer-view .ex-row { display: flex; flex-wrap: wrap; gap: 6px 12px; align-items: center; margin: 4px 0; }
.explainer-view label.ex-field { display: inline-flex; align-items: center; gap: 4px; font-size: 13px; }
.explainer-view input[type=number] { width: 64px; padding: 2px 4px; font-size: 13px; }
.explainer-view select { font-size: 13px; padding: 2px; max-width: 470px; }
.explainer-view button { font-size: 14px; min-width: 36px; height: 28px; cursor: pointer; border: 1px solid #d1d5db; background: #f9fafb; border-radius: 4px; }
.explainer-view button:hover { background: #eef2ff; }
.explainer-view button.on { background: #c7d2fe; border-color: #6366f1; }
.explainer-view .ex-seg button { border-radius: 0; margin: 0; }
.explainer-view .ex-error { color: #b91c1c; min-height: 1.4em; font-size: 13px; }
.explainer-view .ex-note { color: #4b5563; font-size: 12px; }
.explainer-view pre.explainer-code { font-family: ui-monospace, "SFMono-Regular", Menlo, Consolas, "Noto Sans Mono CJK SC", monospace; font-size: 12px; line-height: 1.35; background: #f9fafb; padding: 8px; border: 1px solid #e5e7eb; overflow-x: auto; }
.explainer-view pre.explainer-code span.hl { background: #fde68a; font-weight: 600; }
.explainer-view svg text.ex-axis { font-size: 11px; fill: #374151; }
.explainer-view .ex-fig { position: relative; contain: layout paint; }
.explainer-view .ex-fig > svg { position: absolute; left: 0; top: 0; pointer-events: none; z-index: 1; }
.explainer-view .explainer-step-label, .explainer-view .explainer-sum { contain: layout; }
.explainer-view svg text.ex-title { font-size: 13px; fill: #111827; }
.explainer-view svg text.ex-tick { font-size: 9px; fill: #6b7280; }
/* narrow screens: below 1000 px (a phone, a small tablet) the page never scrolls sideways. A
   figure wider than the screen scrolls inside its own box (its cells keep their size, so a tap
   still picks the cell under it), control rows and side-by-side panels wrap, tables scroll
   inside themselves. Wider screens are untouched; presenter mode (.ex-presenting) is left alone. */
@media (max-width: 999.98px) {
  .explainer-view:not(.ex-presenting) :is(.ex-row, .ex-panels) > * { min-width: 0; max-width: 100%; }
  .explainer-view:not(.ex-presenting) .ex-panels,
  .explainer-view:not(.ex-presenting) .explainer-pipeline-buffers { flex-wrap: wrap !important; }
  .explainer-view:not(.ex-presenting) :is(.ex-figs, .explainer-global, .explainer-shared, .explainer-naive-figs) {
    max-width: 100%; overflow-x: auto; overflow-y: hidden; }
  .explainer-view:not(.ex-presenting) :is(select, input[type=range]) { max-width: 100%; }
  .explainer-view:not(.ex-presenting) table { display: block; width: max-content; max-width: 100%; overflow-x: auto; }
  .explainer-view:not(.ex-presenting) :is(.explainer-step-label, .explainer-sum, .ex-note, .ex-error) { overflow-wrap: anywhere; }
}
/* end narrow screens */
`;

function injectCss() {
  if (document.getElementById("explainer-view-css")) return;
  const style = el("style", { id: "explainer-view-css" }, document.head);
  style.textContent = VIEW_CSS;
}

// A segmented toggle: [a | b]; onPick(value).
// The controls of a stepper view (pages 09's pipeline and hand-over): ◀ ▶, a slider and a label,
// classes `${cls}-prev` etc. `reset(n)` starts over at step 0 of n; every move calls `draw(step)`.
function stepControls(parent, cls, draw) {
  const row = el("div", { class: "ex-row" }, parent);
  const prev = el("button", { type: "button", class: `${cls}-prev`, "aria-label": tr("previous step") }, row, "◀");
  const next = el("button", { type: "button", class: `${cls}-next`, "aria-label": tr("next step") }, row, "▶");
  const slider = el("input", { type: "range", min: "0", max: "0", value: "0", class: `${cls}-slider`, "aria-label": tr("step") }, row);
  const label = el("span", { class: "explainer-step-label", style: "font-size:13px" }, row);
  const c = {
    step: 0, count: 0, label,
    reset(n) { c.count = n; slider.max = String(Math.max(0, n - 1)); c.go(0); },
    go(s) {
      if (!c.count) return;
      c.step = Math.max(0, Math.min(c.count - 1, s));
      slider.value = String(c.step);
      prev.disabled = c.step === 0;
      next.disabled = c.step === c.count - 1;
      draw(c.step);
    },
  };
  prev.addEventListener("click", () => c.go(c.step - 1));
  next.addEventListener("click", () => c.go(c.step + 1));
  slider.addEventListener("input", () => c.go(Number(slider.value)));
  arrowKeys((d) => c.go(c.step + d), parent);
  return c;
}

// A stepper's metadata from the model (its steps, a state legend, a caption), once Python has
// sent it: handed to ``use`` first, then the legend and the caption filled and the controls
// restarted (which draws step 0). Shared by the pipeline (kernel 16) and hand-over (kernel 17)
// steppers.
function loadSteps(model, use, ctl, legend, caption) {
  const m = model.get("meta");
  if (!m || !m.steps) return;
  use(m);
  legend.innerHTML = m.states.map((s, i) => swatch(m.palette[i], s)).join("");
  caption.textContent = m.caption;
  ctl.reset(m.steps.length);
}

// A kernel's lines as a listing, the lines numbered in ``hl`` highlighted.
function listingHtml(code, hl) {
  return code.map((c, j) =>
    `<span class="${hl.includes(j) ? "hl" : ""}">${String(c.line).padStart(4)}  ${escapeHtml(c.text)}</span>`).join("\n");
}

function toggle(parent, title, options, value, onPick) {
  const wrap = el("span", { class: "ex-field" }, parent);
  el("span", { style: "font-size:13px" }, wrap, title);
  const seg = el("span", { class: "ex-seg" }, wrap);
  const buttons = options.map((o) => {
    const b = el("button", { type: "button", "data-value": o }, seg, o);
    b.addEventListener("click", () => { set(o); onPick(o); });
    return b;
  });
  function set(v) { buttons.forEach((b) => b.classList.toggle("on", b.dataset.value === v)); }
  set(value);
  return { set, buttons };
}

function numberField(parent, title, value, onChange, width = null) {
  const lab = el("label", { class: "ex-field" }, parent);
  el("span", {}, lab, title);
  const input = el("input", { type: "number", value: String(value), "data-field": title }, lab);
  if (width) input.style.width = width;
  input.addEventListener("change", () => onChange(input.value));
  return input;
}

// The width in CSS px of `text` in the figures' sans font at `px` (a canvas measures it, so the
// answer does not wait for layout): figures size themselves to their titles and labels.
let measureCtx = null;
function textWidth(text, px) {
  if (!measureCtx) measureCtx = document.createElement("canvas").getContext("2d");
  measureCtx.font = `${px}px Inter, "Segoe UI", Helvetica, Arial, "Noto Sans CJK SC", "Source Han Sans SC", "PingFang SC", "Microsoft YaHei", sans-serif`;
  return Math.ceil(measureCtx.measureText(String(text)).width);
}

// Index numbers along one side of a grid: `count` labels at `place(i) -> [x, y]`, in an SVG
// `parent`, anchored "end" (left of a grid) or "middle" (above or below). Only every n-th index
// is written, n the smallest power of two that leaves room for the widest number at `pitch` px a
// cell. The returned function writes indices first..first+count-1 (again when the window moves).
function indexTicks(parent, count, pitch, place, anchor, widest) {
  const room = anchor === "end" ? 10 : textWidth(String(widest), 9) + 4;
  let every = 1;
  while (every * pitch < room) every *= 2;
  const labels = [];
  for (let i = 0; i < count; i++) {
    const [x, y] = place(i);
    labels.push(svg("text", { x, y, class: "ex-tick", "text-anchor": anchor, "dominant-baseline": "middle" }, parent, ""));
  }
  return (first) => labels.forEach((t, i) => { t.textContent = (first + i) % every === 0 ? String(first + i) : ""; });
}

// Typed fields committed together: an Apply button (and Enter in any of the fields) sends one
// request, so a launch is never sent, refused and snapped back one field at a time. Until then a
// note says the fields are edited. `changed()` says whether what is typed differs from what is
// shown; `apply()` sends it; `refresh()` (after the view syncs its fields) updates the note.
function applyControl(parent, fields, { changed, apply }) {
  const button = el("button", { type: "button", class: "explainer-apply", title: tr("compute what is typed (Enter)") }, parent, tr("Apply"));
  const note = el("span", { class: "ex-note explainer-edited" }, parent, "");
  function refresh() {
    const dirty = changed();
    button.classList.toggle("on", dirty);
    note.textContent = dirty ? tr("edited: Apply (or Enter) to compute it") : "";
  }
  for (const f of fields) {
    f.addEventListener("input", refresh);
    f.addEventListener("change", refresh);
    f.addEventListener("keydown", (e) => { if (e.key === "Enter") { e.preventDefault(); apply(); } });
  }
  button.addEventListener("click", () => apply());
  return { refresh, changed };
}

const NEEDS_LIVE = tr("This needs the live app (tiled-explainer serve) or JupyterLab.");

// A request only Python can answer (a new launch, block, kernel...). Live: send it, after
// busy() shows that it is on its way. Static page (views/static.js): the payload the page
// embedded for it becomes the model's meta / buf and loaded() draws it; with none stored,
// missing(note) shows the one line that says it needs the live app.
function askPython(model, msg, { busy, loaded, missing }) {
  if (model.get("live")) {
    busy();
    model.send(msg);
    return;
  }
  const store = model.get("store");
  const hit = store && store.find ? store.find(msg) : null;
  if (!hit) return missing((model.get("meta") || {}).offline_note || tr(NEEDS_LIVE));
  model.set("meta", hit.meta);
  model.set("buf", hit.buf);
  loaded();
}

// Motion that shows a copy: a small token (a value or an element's name) flies from one cell's
// on-screen centre to another's. `motion(root)` gives {play(from, to, text), cancel()}; `from` and
// `to` are functions returning page (client) coordinates {x, y}, read after the step's draw, in
// the next animation frame, so a figure scaled by a CSS transform (presenter mode) is measured as
// shown. A new play() cancels the running one: a click or a key never waits for a transition.
// Nothing moves under `prefers-reduced-motion: reduce`, or while enabled() says no.
function motion(root, { duration = 320, enabled = () => true } = {}) {
  let token = null, anim = null, frame = 0;
  const reduced = () => !!(window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)").matches);
  function cancel() {
    if (frame) cancelAnimationFrame(frame);
    frame = 0;
    if (anim) anim.cancel();
    anim = null;
    if (token) token.remove();
    token = null;
  }
  function play(from, to, text) {
    cancel();
    if (!enabled() || reduced()) return;
    frame = requestAnimationFrame(() => {
      frame = 0;
      const a = from(), b = to();
      if (!a || !b) return;
      // On the presenter's stage while presenting (the root's other children are hidden then).
      const host = (root.classList.contains("ex-presenting") && root.querySelector(":scope > .ex-present-stage")) || root;
      const t = el("div", { class: "explainer-token", "aria-hidden": "true",
        style: "position:fixed;left:0;top:0;z-index:2147483002;pointer-events:none;white-space:nowrap;" +
               "font:600 12px/1.2 ui-monospace,monospace;background:#111827;color:#fff;padding:2px 5px;" +
               "border-radius:4px;box-shadow:0 1px 4px rgba(0,0,0,.35);will-change:transform" }, host, text);
      // An ancestor's transform or containment may move the fixed box's origin: measure it.
      const box = t.getBoundingClientRect();
      const dx = -box.left - box.width / 2, dy = -box.top - box.height / 2;
      const at = (p) => `translate(${p.x + dx}px, ${p.y + dy}px)`;
      token = t;
      t.style.transform = at(a);
      if (!t.animate) { t.remove(); token = null; return; }
      anim = t.animate([{ transform: at(a), opacity: 1 }, { transform: at(b), opacity: 1 }],
        { duration, easing: "cubic-bezier(.3,.1,.3,1)", fill: "forwards" });
      anim.onfinish = () => {
        if (token !== t) return;
        // linger a moment on the target cell, then fade
        anim = t.animate([{ opacity: 1 }, { opacity: 0 }], { duration: 160, delay: 80, fill: "forwards" });
        anim.onfinish = () => { if (token === t) cancel(); };
      };
    });
  }
  return { play, cancel, active: () => token };
}
