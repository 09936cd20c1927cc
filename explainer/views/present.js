// Presenter mode (the lecture hall): one view's figures, label and code panel side by side on
// the whole screen, for a projector.
//
// A "Present" button, or `?present` in the page's URL, moves the view's parts into a stage that
// covers the viewport (position: fixed; and full screen through the Fullscreen API when the
// browser grants it: a click does, a page load does not); Escape, or the Exit button, puts
// every part back where it was. The figures keep their geometry and are scaled to the space
// left (a CSS transform; their canvases are redrawn at the scaled resolution, so they stay
// sharp); A− / A+ scale the text (remembered in localStorage). While presenting, the keys a
// presentation clicker sends step the view: → Space PageDown forward, ← Shift+Space PageUp
// back, Home / End the first / last step; never while the focus is in an input field. A key
// steps at once: the view draws synchronously, nothing waits on an animation.

const PRESENT_CSS = `
/* presenter: the stage (present.js) */
html.ex-presenting-doc, html.ex-presenting-doc body { overflow: hidden !important; }
.explainer-view.ex-presenting > :not(.ex-present-stage):not(.explainer-tip) { display: none !important; }
.explainer-view.ex-presenting > .explainer-tip { z-index: 2147483001 !important; }
.explainer-view.ex-presenting:fullscreen { background: #ffffff; }
.explainer-view .ex-present-stage { position: fixed; inset: 0; z-index: 2147483000; box-sizing: border-box;
  width: 100vw; height: 100vh; height: 100dvh; overflow: hidden; background: #ffffff; color: #111827;
  display: grid; grid-template-columns: minmax(0, 1fr); grid-template-rows: auto auto minmax(0, 1fr) auto;
  gap: 0.35em; padding: 0.5em 1em 0.6em;
  font-size: calc(var(--ex-present-zoom, 1) * (0.75vmin + 8px)); line-height: 1.3; }
.explainer-view .ex-present-head { display: flex; flex-wrap: wrap; align-items: center; gap: 0.3em 1.4em; min-width: 0; }
.explainer-view .ex-present-head .ex-row { margin: 0; gap: 0.3em 0.6em; }
.explainer-view .ex-present-stage button { font-size: 0.8em; height: auto; min-width: 2.4em; padding: 0.25em 0.6em; }
.explainer-view .ex-present-stage label.ex-field, .explainer-view .ex-present-stage .ex-field > span { font-size: 0.8em !important; }
.explainer-view .ex-present-stage .ex-field button { font-size: 1em; }
.explainer-view .ex-present-head input[type=range].explainer-slider { width: auto !important; flex: 1 1 8em; min-width: 6em; }
.explainer-view.ex-presenting .explainer-present { display: none; }
.explainer-view .ex-present-head select { font-size: 0.8em; max-width: 18em; }
.explainer-view .ex-present-tools { display: inline-flex; gap: 0.3em; margin-left: auto; }
.explainer-view .ex-present-label { min-width: 0; }
.explainer-view .ex-present-label .explainer-step-label { display: flex; flex-wrap: wrap; align-items: baseline; gap: 0 1.2em; }
.explainer-view .ex-present-label .explainer-step-label > :first-child { font-size: 1.3em !important; padding: 0 !important; }
.explainer-view .ex-present-label .explainer-step-label > :nth-child(2) { font-size: 1em !important; }
.explainer-view .ex-present-figs { display: flex; align-items: flex-start; justify-content: center; gap: 1.2em;
  min-height: 0; min-width: 0; overflow: hidden; }
.explainer-view .ex-present-fig { flex: 0 0 auto; position: relative; overflow: hidden; }
.explainer-view .ex-present-fig .ex-fig { transform-origin: 0 0; }
.explainer-view .ex-present-side { flex: 1 1 0; min-width: 0; max-width: 90ch; align-self: stretch;
  display: flex; flex-direction: column; gap: 0.2em; }
.explainer-view .ex-present-side .ex-note { font-size: 0.7em !important; }
.explainer-view .ex-present-side > :last-child { flex: 1 1 auto; min-height: 0; overflow: auto; }
.explainer-view .ex-present-side > :not(pre):not(.ex-note) { font-size: 0.95em !important; }
.explainer-view .ex-present-side pre.explainer-code { flex: 1 1 auto; min-height: 0; margin: 0; position: relative;
  overflow: auto; white-space: pre-wrap; font-size: 0.82em; line-height: 1.3; }
.explainer-view .ex-present-side pre.explainer-code > span { padding-left: 5ch; text-indent: -5ch; }
.explainer-view .ex-present-foot { min-width: 0; }
.explainer-view .ex-present-foot > * { font-size: 0.85em !important; margin: 0 !important; padding: 0.1em 0 !important; }
.explainer-view .ex-present-foot > .ex-legend-line { font-size: 0.7em !important; }
/* end presenter */
`;

const PRESENT_ZOOM_KEY = "explainer-present-zoom";

function injectPresentCss() {
  if (document.getElementById("explainer-present-css")) return;
  const style = el("style", { id: "explainer-present-css" }, document.head);
  style.textContent = PRESENT_CSS;
}

// True when the key event's target is a field the user types or slides in.
function typing(e) {
  const t = e.target;
  return !!t && (t.tagName === "INPUT" || t.tagName === "TEXTAREA" || t.tagName === "SELECT" || t.isContentEditable);
}

// The key -> the move it asks for ("next" | "prev" | "first" | "last" | "leave"), or null.
function presenterKey(e) {
  if (e.ctrlKey || e.metaKey || e.altKey) return null;
  switch (e.key) {
    case "ArrowRight": case "PageDown": return "next";
    case "ArrowLeft": case "PageUp": return "prev";
    case " ": case "Spacebar": return e.shiftKey ? "prev" : "next";
    case "Home": return "first";
    case "End": return "last";
    case "Escape": case "Esc": return "leave";
    default: return null;
  }
}

// presenter({...}) -> {button, enter, leave, active, refit, drew}.
//   root:    the view's root element (it holds everything below)
//   where:   the element the Present button is appended to
//   head:    elements for the top row (the step buttons...), in order
//   label:   the step label's element(s)
//   figs:    the boxes holding one `.ex-fig` each, scaled side by side (left to right)
//   side:    the panel beside the figures (or []): the code listing's [note, pre] (drew() keeps
//            its highlighted line in view), or a text
//   foot:    elements under the figures (the running sum, the legend)
//   keys:    {next, prev, first, last}: what the keys do
//   arrange: (optional) {options, sizes(a), use(a)}: the figures' arrangements on the stage;
//            sizes(a): each figure's natural [w, h] in arrangement a (null: as drawn now);
//            use(a): redraw them so (a = null: as on the page). fit() picks the option whose
//            smallest figure is scaled the most.
// How long ?present waits after the last view asked before choosing the page's first (ms).
const PRESENT_SETTLE_MS = 150;

function presenter({ root, where, head = [], label = [], figs = [], side = [], foot = [], keys = {}, arrange = null }) {
  injectPresentCss();
  const button = el("button", { type: "button", class: "explainer-present",
    // (one literal: explainer.i18n reads the msgid from the source)
    title: tr("Present: the figures and the code full screen, for a projector (or add ?present to the URL). → / Space / PageDown: next step, ← / Shift+Space / PageUp: back, Home / End, Esc: leave") },
    where, tr("Present"));
  const stage = el("div", { class: "ex-present-stage", role: "dialog", "aria-label": tr("presenter mode") });
  const headEl = el("div", { class: "ex-present-head" }, stage);
  const labelEl = el("div", { class: "ex-present-label" }, stage);
  const figsEl = el("div", { class: "ex-present-figs" }, stage);
  const footEl = el("div", { class: "ex-present-foot" }, stage);
  const tools = el("span", { class: "ex-present-tools" });
  const smaller = el("button", { type: "button", class: "explainer-font-down", title: tr("smaller text"), "aria-label": tr("smaller text") }, tools, "A−");
  const larger = el("button", { type: "button", class: "explainer-font-up", title: tr("larger text"), "aria-label": tr("larger text") }, tools, "A+");
  const exit = el("button", { type: "button", class: "explainer-present-exit", title: tr("leave presenter mode (Esc)") }, tools, "✕ " + tr("Exit"));
  const figSlots = figs.map(() => el("div", { class: "ex-present-fig" }));
  const codeSlot = side.length ? el("div", { class: "ex-present-side" }) : null;
  const code = side[side.length - 1];  // what scrolls in the side panel

  let arranged = null;  // the arrangement in use (arrange.options), null on the page
  let on = false, fullscreen = false, parked = [], home = null, scrollWas = null, observer = null;
  let zoom = 1;
  try { zoom = Number(localStorage.getItem(PRESENT_ZOOM_KEY)) || 1; } catch (e) { /* no storage */ }
  let lines = null, codeTop = 0, codeView = 0;  // the code panel's line boxes, cached by fit()

  // Put `node` into `slot`, leaving a marker where it was; leave() puts it back.
  function park(node, slot) {
    const mark = document.createComment("presenter");
    node.replaceWith(mark);
    slot.appendChild(node);
    parked.push([node, mark]);
  }

  function enter({ full = false } = {}) {
    if (on) return;
    on = true;
    if (!home) home = document.createComment("presenter: the view");
    scrollWas = [window.scrollX, window.scrollY];
    // The view's root moves to <body> while presenting: no ancestor's transform, contain or
    // overflow then clips the fixed stage.
    root.replaceWith(home);
    document.body.appendChild(root);
    root.appendChild(stage);
    for (const node of head) park(node, headEl);
    headEl.appendChild(tools);
    for (const node of label) park(node, labelEl);
    figs.forEach((box, j) => { figsEl.appendChild(figSlots[j]); park(box, figSlots[j]); });
    if (codeSlot) { figsEl.appendChild(codeSlot); for (const node of side) park(node, codeSlot); }
    for (const node of foot) park(node, footEl);
    root.classList.add("ex-presenting");
    document.documentElement.classList.add("ex-presenting-doc");
    setZoom(zoom);
    window.scrollTo(0, 0);
    document.addEventListener("keydown", onKey, true);
    document.addEventListener("fullscreenchange", onFullscreen);
    observer = new ResizeObserver(() => fit());
    observer.observe(figsEl);
    fit();
    if (full) requestFull();
  }

  function leave() {
    if (!on) return;
    on = false;
    document.removeEventListener("keydown", onKey, true);
    document.removeEventListener("fullscreenchange", onFullscreen);
    if (observer) observer.disconnect();
    observer = null;
    if (document.fullscreenElement === root && document.exitFullscreen) document.exitFullscreen().catch(() => {});
    fullscreen = false;
    for (const [node, mark] of parked.reverse()) mark.replaceWith(node);
    parked = [];
    tools.remove();
    figSlots.forEach((s) => s.remove());
    if (codeSlot) codeSlot.remove();
    stage.remove();
    root.classList.remove("ex-presenting");
    document.documentElement.classList.remove("ex-presenting-doc");
    if (home.parentNode) home.replaceWith(root);
    else root.remove();  // its place on the page is gone (the output was cleared meanwhile)
    for (const box of figs) {
      const fig = box.querySelector(".ex-fig");
      if (fig) { fig.style.transform = ""; sharpenFig(fig, 1); }
    }
    if (arrange && arranged != null) { arranged = null; arrange.use(null); }
    if (scrollWas) window.scrollTo(scrollWas[0], scrollWas[1]);
    // (the focus is not put back on Present: a clicker's Space would open it again at once)
  }

  function requestFull() {
    const go = root.requestFullscreen || root.webkitRequestFullscreen;
    if (!go) return;
    try {
      const p = go.call(root, { navigationUI: "hide" });
      const ok = () => { fullscreen = document.fullscreenElement === root; };
      if (p && p.then) p.then(ok, () => { /* refused: the fixed stage covers the viewport anyway */ });
      else ok();
    } catch (e) { /* refused */ }
  }

  // Leaving full screen from the browser (its own Escape) leaves presenter mode too.
  function onFullscreen() {
    if (document.fullscreenElement === root) fullscreen = true;
    else if (on && fullscreen) leave();
  }

  function onKey(e) {
    if (!on || typing(e)) return;
    const what = presenterKey(e);
    if (!what) return;
    e.preventDefault();
    e.stopPropagation();  // this view only: not the page's other views, not a focused button
    if (what === "leave") return leave();
    const f = keys[what];
    if (f) f();
  }

  function setZoom(z) {
    zoom = Math.max(0.5, Math.min(3, Math.round(z * 100) / 100));
    stage.style.setProperty("--ex-present-zoom", String(zoom));
    try { localStorage.setItem(PRESENT_ZOOM_KEY, String(zoom)); } catch (e) { /* no storage */ }
    fit();  // now, not at the next frame's resize: the code line stays in view meanwhile
  }

  function sharpenFig(fig, s) {
    for (const c of fig.querySelectorAll("canvas.explainer-grid")) if (c.explainerGrid) c.explainerGrid.sharpen(s);
  }

  // Scale the figures to the space between the top rows and the foot, side by side, the code
  // panel taking what is left (at least about 40 characters' width, or a third of the row).
  function fit() {
    if (!on) return;
    const W = figsEl.clientWidth, H = figsEl.clientHeight;
    if (!W || !H) return;
    const gap = parseFloat(getComputedStyle(figsEl).columnGap) || 0;
    const boxes = figs.map((box) => box.querySelector(".ex-fig"));
    const drawn = boxes.map((fig) => (fig ? [fig.offsetWidth || 1, fig.offsetHeight || 1] : [1, 1]));
    let room = W - gap * Math.max(0, figs.length - (codeSlot ? 0 : 1));
    if (codeSlot) {
      const px = parseFloat(getComputedStyle(code).fontSize) || 14;
      room -= Math.min(W * 0.3, 52 * 0.6 * px + 24);
    }
    // Each figure as tall as the row (at most 4x), all narrowed alike until they fit beside the code.
    const layout = (sizes) => {
      let scales = sizes.map(([, h]) => Math.min(H / h, 4));
      const wide = sizes.reduce((sum, [w], j) => sum + w * scales[j], 0);
      if (wide > room) scales = scales.map((s) => s * room / wide);
      return { sizes, scales, score: Math.min(...scales) };
    };
    let best = null;
    for (const a of arrange ? arrange.options : [null]) {
      const sizes = arrange ? arrange.sizes(a).map((wh, j) => wh || drawn[j]) : drawn;
      const got = layout(sizes);
      if (!best || got.score > best.score + 1e-3 || (a === arranged && got.score > best.score - 1e-3)) best = { ...got, a };
    }
    if (arrange && best.a !== arranged) {
      arranged = best.a;
      arrange.use(best.a);  // rebuilds the figures; the view calls refit() again
      return;
    }
    const { sizes, scales } = best;
    boxes.forEach((fig, j) => {
      if (!fig) return;
      const s = scales[j], [w, h] = sizes[j];
      fig.style.transform = `scale(${s})`;
      figSlots[j].style.width = `${w * s}px`;
      figSlots[j].style.height = `${h * s}px`;
      sharpenFig(fig, s);
    });
    lines = null;  // the code's line boxes are measured again on the next drew()
    drew();
  }

  // After each draw: the highlighted code line scrolled into the code panel's view (line boxes
  // measured once per layout, not per step).
  function drew() {
    if (!on || !codeSlot) return;
    const pre = code;
    const hl = pre.querySelector(".hl");
    if (!hl) return;
    if (!lines) {
      lines = new Map();
      for (const line of pre.children) lines.set(line, [line.offsetTop, line.offsetTop + line.offsetHeight]);
      codeTop = pre.scrollTop;
      codeView = pre.clientHeight;
    }
    const box = lines.get(hl);
    if (!box) return;
    if (box[0] < codeTop || box[1] > codeTop + codeView) {
      codeTop = Math.max(0, Math.round(box[0] - codeView / 3));
      pre.scrollTop = codeTop;
    }
  }

  if (code) code.addEventListener("scroll", (e) => { codeTop = e.target.scrollTop; }, { passive: true });
  button.addEventListener("click", () => enter({ full: true }));
  exit.addEventListener("click", () => leave());
  smaller.addEventListener("click", () => setZoom(zoom / 1.15));
  larger.addEventListener("click", () => setZoom(zoom * 1.15));

  return {
    button, enter, leave, refit: () => fit(), drew,
    active: () => on,
    // `?present` in the page's URL: the page's first view that can present does (once per page).
    // Views start in any order (the live app renders its widgets as they arrive), so each asks,
    // and once none has asked for PRESENT_SETTLE_MS the first of them in the page presents.
    fromUrl() {
      let wanted = false;
      try { wanted = new URLSearchParams(window.location.search).has("present"); } catch (e) { /* no URL */ }
      if (!wanted) return;
      const q = window.__explainerPresent || (window.__explainerPresent = { views: [], timer: 0, done: false });
      if (q.done) return;
      q.views.push({ root, enter });
      clearTimeout(q.timer);
      q.timer = setTimeout(() => {
        q.done = true;
        const shown = q.views.filter((v) => v.root.isConnected);
        shown.sort((a, b) => (a.root.compareDocumentPosition(b.root) & Node.DOCUMENT_POSITION_FOLLOWING ? -1 : 1));
        (shown[0] || q.views[0]).enter();
      }, PRESENT_SETTLE_MS);
    },
  };
}
