// The warp scheduler stepper (page 06; explainer/views/scheduler.py runs
// explainer.model.scheduler and sends what is shown). Rows: the warps of scheduler 0 of one SM;
// columns: cycles, a window of them around the current cycle, and the whole run binned below.
// Each cell is a warp's state in that cycle (issuing, ready but not picked, stalled on a load,
// waiting at a barrier, done), the issuing cell lettered with its instruction. Stepping is a
// lookup here (buttons, slider, keys, Play); Python is asked only for another preset or latency
// ({cmd: "kernel", name: "<preset>|<latency kind>"}; a static page's keyed store answers it).

function createSchedulerView({ model, el: host }) {
  learnStrings(model);
  injectCss();
  const root = el("div", { class: "explainer-scheduler explainer-view" }, host);
  const tip = tooltip(root);

  let meta = null, A = null, built = null;
  let c = 0, stride = 1, timer = null;

  // ---- controls -------------------------------------------------------------------------
  const presetRow = el("div", { class: "ex-row" }, root);
  const presetLab = el("label", { class: "ex-field" }, presetRow);
  el("span", {}, presetLab, tr("SM holds"));
  const presetSel = el("select", { class: "explainer-scheduler-preset", "aria-label": tr("preset") }, presetLab);
  let latSeg = null;
  const latBox = el("span", {}, presetRow);
  const stepRow = el("div", { class: "ex-row" }, root);
  const bFirst = el("button", { type: "button", title: tr("first cycle"), class: "explainer-first" }, stepRow, "|◀");
  const bPrev = el("button", { type: "button", title: tr("back (←)"), class: "explainer-prev", "aria-label": tr("previous cycle") }, stepRow, "◀");
  const bPlay = el("button", { type: "button", title: tr("play / pause"), class: "explainer-play" }, stepRow, tr("Play"));
  const bNext = el("button", { type: "button", title: tr("forward (→)"), class: "explainer-next", "aria-label": tr("next cycle") }, stepRow, "▶");
  const bLast = el("button", { type: "button", title: tr("last cycle"), class: "explainer-last" }, stepRow, "▶|");
  const slider = el("input", { type: "range", min: "0", max: "0", value: "0", class: "explainer-slider", "aria-label": tr("cycle"), style: "width:300px" }, stepRow);
  const strideSeg = toggle(stepRow, tr("cycles per step"), ["1", "10", "100"], "1", (v) => { stride = Number(v); });
  strideSeg.buttons.forEach((b) => b.classList.add("explainer-stride"));
  const motionLab = el("label", { class: "ex-field", title: tr("animate the issue") }, stepRow);
  const motionBox = el("input", { type: "checkbox", class: "explainer-motion", "aria-label": tr("motion") }, motionLab);
  motionBox.checked = true;
  el("span", {}, motionLab, tr("motion"));
  const fly = motion(root, { enabled: () => motionBox.checked && stride === 1 && !timer });
  motionBox.addEventListener("change", () => { if (!motionBox.checked) fly.cancel(); });

  const errorLine = el("div", { class: "ex-error explainer-error", role: "status" }, root);
  const labelBox = el("div", { class: "explainer-step-label" }, root);
  const labelMain = el("div", { style: "font-size:17px;font-weight:600;padding:6px 0" }, labelBox);
  const labelSub = el("div", { style: "color:#4b5563;font-size:13px" }, labelBox);
  const body = el("div", { class: "ex-panels", style: "display:flex;gap:18px;align-items:flex-start;flex-wrap:wrap" }, root);
  const figBox = el("div", { class: "ex-figs explainer-scheduler-figs" }, body);
  const side = el("div", { class: "explainer-scheduler-text", style: "font-size:14px;line-height:1.5;max-width:460px" }, body);
  const legend = el("div", { class: "ex-legend-line", style: "font-size:12px;margin:4px 0" }, root);
  const util = el("div", { class: "explainer-scheduler-util", style: "font-size:14px;padding:2px 0" }, root);
  const notes = el("div", { class: "explainer-scheduler-notes", style: "font-size:13px;max-width:980px" }, root);
  const caption = el("div", { class: "ex-note" }, root);

  const pres = presenter({
    root, where: presetRow, head: [presetRow, stepRow], label: [labelBox], figs: [figBox], side: [side],
    foot: [util, legend, errorLine],
    keys: { next: () => go(c + stride), prev: () => go(c - stride), first: () => go(0), last: () => go(meta.cycles - 1) },
  });
  const unkey = arrowKeys((d) => go(c + d * stride), root);

  bFirst.addEventListener("click", () => go(0));
  bPrev.addEventListener("click", () => go(c - stride));
  bNext.addEventListener("click", () => go(c + stride));
  bLast.addEventListener("click", () => go(meta.cycles - 1));
  slider.addEventListener("input", () => go(Number(slider.value)));
  bPlay.addEventListener("click", () => (timer ? stop() : play()));
  presetSel.addEventListener("change", () => ask(presetSel.value, meta.latency_kind));

  function play() {
    if (!meta) return;
    if (c >= meta.cycles - 1) go(0);
    bPlay.textContent = tr("Pause");
    timer = setInterval(() => {
      if (c >= meta.cycles - 1) return stop();
      go(c + stride);
    }, 90);
  }
  function stop() {
    if (timer) clearInterval(timer);
    timer = null;
    bPlay.textContent = tr("Play");
  }

  // ---- the payload ----------------------------------------------------------------------
  function load() {
    const m = model.get("meta");
    const buf = model.get("buf");
    if (!m || !m.arrays || !buf) return;
    stop();
    fly.cancel();
    meta = m;
    A = unpack(meta.arrays, buf);
    presetSel.textContent = "";
    for (const [key, label] of meta.presets) el("option", { value: key }, presetSel, label);
    presetSel.value = meta.preset;
    latBox.textContent = "";
    latSeg = toggle(latBox, tr("latency"), meta.latencies.map(([, t]) => t),
      meta.latencies.find(([k]) => k === meta.latency_kind)[1],
      (label) => ask(meta.preset, meta.latencies.find(([, t]) => t === label)[0]));
    latSeg.buttons.forEach((b) => b.classList.add("explainer-latency"));
    slider.max = String(meta.cycles - 1);
    legend.innerHTML = meta.states.map((s, i) => swatch(meta.palette[i], s)).join("") +
      " · " + tr("letters: {letters}", { letters: escapeHtml(meta.letter_text) }) + "<br>" +
      tr("SM slots used per cycle: {swatches}", { swatches: meta.busy_palette.map((col, i) => swatch(col, String(i))).join("") }) +
      " · " + tr("scheduler 0 issuing, per column of the whole run: {swatches}",
        { swatches: meta.busy_palette.map((col, i) => swatch(col, meta.busy_text[i])).join("") });
    notes.innerHTML = `<div>${tr("{sentence}.", { sentence: escapeHtml(meta.occupancy) })}</div><div>${escapeHtml(meta.rule)}</div>` +
      `<div>${escapeHtml(meta.result)}</div>`;
    caption.textContent = meta.caption;
    build();
    const start = (meta.start || {}).cycle;
    go(Number.isInteger(start) ? Math.min(start, meta.cycles - 1) : 0, false);
    pres.refit();
  }

  function build() {
    figBox.textContent = "";
    const rows = meta.rows.length, W = meta.window, size = 18, osize = 6;
    const slotsName = tr("SM slots used (of {n})", { n: meta.schedulers }), busyName = tr("scheduler 0 issuing");
    const wholeRun = tr("the whole run, {bin} cycle(s) a column: each warp's most frequent state", { bin: meta.bin });
    const left = Math.max(...[...meta.rows, slotsName, busyName].map((t) => textWidth(t, 11))) + 10;
    const top = 46;
    const gridW = W * size, gridH = rows * size;
    const slotsTop = top + gridH + 6;
    const ovTop = slotsTop + size + 40;
    const ovW = meta.bins * osize, ovH = rows * osize;
    const busyTop = ovTop + ovH + 4;
    const width = Math.max(left + gridW, left + ovW, textWidth(wholeRun, 13) + 8) + 12;
    const height = busyTop + osize + 22;
    const fig = el("div", { class: "ex-fig explainer-scheduler-fig", style: `width:${width}px;height:${height}px` }, figBox);
    const s = svg("svg", { width, height, role: "img" }, fig);
    const title = svg("text", { x: 4, y: 14, class: "ex-title" }, s, "");
    svg("text", { x: left, y: top - 22, class: "ex-axis" }, s, tr("cycle →"));
    const ticks = indexTicks(s, W, size, (i) => [left + i * size + size / 2, top - 7], "middle", meta.cycles);
    meta.rows.forEach((t, r) => svg("text", { x: left - 6, y: top + r * size + size / 2, class: "ex-axis",
      "text-anchor": "end", "dominant-baseline": "middle" }, s, t));
    svg("text", { x: left - 6, y: slotsTop + size / 2, class: "ex-axis", "text-anchor": "end", "dominant-baseline": "middle" },
      s, slotsName);
    const grid = new Grid(fig, "window", rows, W, left, top, size, meta.palette);
    const slots = new Grid(fig, "slots", 1, W, left, slotsTop, size, meta.busy_palette);
    const cur = svg("rect", { y: top - 2, width: size, height: gridH + size + 10, fill: "none", stroke: "#111827", "stroke-width": 2 }, s);
    svg("text", { x: 4, y: ovTop - 8, class: "ex-title" }, s, wholeRun);
    const ov = new Grid(fig, "overview", rows, meta.bins, left, ovTop, osize, meta.palette);
    const busy = new Grid(fig, "busy", 1, meta.bins, left, busyTop, osize, meta.busy_palette);
    svg("text", { x: left - 6, y: busyTop + osize / 2, class: "ex-axis", "text-anchor": "end", "dominant-baseline": "middle" },
      s, busyName);
    const span = svg("rect", { y: ovTop - 2, height: ovH + osize + 8, fill: "rgba(17,24,39,0.08)", stroke: "#111827", "stroke-width": 1 }, s);
    const now = svg("line", { y1: ovTop - 4, y2: busyTop + osize + 4, stroke: "#b91c1c", "stroke-width": 2 }, s);
    // the overview never changes within a payload: painted once
    const ovc = new Int16Array(rows * meta.bins);
    for (let r = 0; r < rows; r++) for (let b = 0; b < meta.bins; b++) ovc[r * meta.bins + b] = at(A.overview, r, b);
    ov.paint(ovc);
    busy.paint(Array.from({ length: meta.bins }, (_, b) => at(A.busy, 0, b)));
    fig.addEventListener("mousemove", (e) => {
      const rc = grid.cellOf(e);
      const sl = slots.cellOf(e);
      if (sl) return tip.show(tr("cycle {c}: {used} of {n} issue slots used",
        { c: built.first + sl[1], used: at(A.slots, built.first + sl[1]), n: meta.schedulers }), e);
      if (rc) {
        const cyc = built.first + rc[1];
        const st = at(A.state, rc[0], cyc);
        return tip.show(`${meta.rows[rc[0]]} · ` + tr("cycle {c}: {state}", { c: cyc, state: meta.states[st] }), e);
      }
      const ob = ov.cellOf(e) || busy.cellOf(e);
      if (ob) return tip.show(tr("cycles {start}… · click to go there", { start: at(A.bin_start, ob[1]) }), e);
      tip.hide();
    });
    fig.addEventListener("mouseleave", () => tip.hide());
    fig.addEventListener("click", (e) => {
      const ob = ov.cellOf(e) || busy.cellOf(e);
      if (ob) go(at(A.bin_start, ob[1]));
      const rc = grid.cellOf(e);
      if (rc) go(built.first + rc[1]);
    });
    built = { grid, slots, cur, span, now, ticks, title, left, size, osize, top, first: -1, fig,
              colours: new Int16Array(rows * W), texts: new Array(rows * W) };
  }

  // ---- one cycle ------------------------------------------------------------------------
  function go(target, animated = true) {
    if (!meta) return;
    const t = Math.max(0, Math.min(meta.cycles - 1, target));
    const moved = animated && t === c + 1;
    c = t;
    slider.value = String(c);
    bPrev.disabled = bFirst.disabled = c === 0;
    bNext.disabled = bLast.disabled = c === meta.cycles - 1;
    draw();
    if (moved) animate();
  }

  function draw() {
    const rows = meta.rows.length, W = meta.window;
    // the window: the current cycle three quarters of the way along, clamped to the run
    const first = Math.max(0, Math.min(meta.cycles - W, c - Math.floor(W * 3 / 4)));
    const b = built;
    if (first !== b.first) {
      for (let r = 0; r < rows; r++) {
        for (let i = 0; i < W; i++) {
          const cyc = first + i;
          const inside = cyc < meta.cycles;
          b.colours[r * W + i] = inside ? at(A.state, r, cyc) : -1;
          b.texts[r * W + i] = inside && at(A.issued_row, cyc) === r ? meta.letters[at(A.issued_kind, cyc)] : "";
        }
      }
      b.grid.paint(b.colours);
      b.grid.label(b.texts);
      b.slots.paint(Array.from({ length: W }, (_, i) => (first + i < meta.cycles ? at(A.slots, first + i) : -1)));
      b.ticks(first);
      b.first = first;
    }
    b.cur.setAttribute("x", String(b.left + (c - first) * b.size - 1));
    const f = at(A.bin_of, first), l = at(A.bin_of, Math.min(meta.cycles - 1, first + W - 1));
    b.span.setAttribute("x", String(b.left + f * b.osize - 1));
    b.span.setAttribute("width", String((l - f + 1) * b.osize + 2));
    const x = b.left + (at(A.bin_of, c) + 0.5) * b.osize;
    b.now.setAttribute("x1", String(x));
    b.now.setAttribute("x2", String(x));
    b.title.textContent = tr("scheduler 0 of {n}: its {rows} warps, cycles {first}..{last}",
      { n: meta.schedulers, rows, first, last: Math.min(meta.cycles, first + W) - 1 });

    const ir = at(A.issued_row, c);
    const warpName = (r) => tr("warp {w}", { w: meta.row_warps[r] });
    labelMain.textContent = tr("cycle = {c} of 0..{last}", { c, last: meta.cycles - 1 }) + " · " + (ir < 0
      ? tr("scheduler 0 is idle: none of its warps is ready")
      : tr("scheduler 0 issues {warp}'s {instruction}", { warp: warpName(ir), instruction: meta.kinds[at(A.issued_kind, c)] }));
    labelSub.textContent = tr("running utilisation: scheduler 0 {mine}% · whole SM {all}%",
      { mine: at(A.running, c).toFixed(1), all: at(A.running_sm, c).toFixed(1) });
    const groups = meta.states.map(() => []);
    for (let r = 0; r < rows; r++) groups[at(A.state, r, c)].push(String(meta.row_warps[r]));
    const lines = [];
    if (ir >= 0) {
      const k = at(A.issued_k, c), kind = at(A.issued_kind, c), ph = at(A.issued_phase, c);
      const detail = meta.kinds[kind] === "fma" ? `, k = ${k}` : meta.kinds[kind] === "bar" ? tr(", barrier {n} of 2", { n: k + 1 }) : "";
      lines.push(tr("<b>Issued:</b> {warp}: <code>{instruction}</code> (phase t = {phase}{detail})",
        { warp: escapeHtml(meta.rows[ir]), instruction: escapeHtml(meta.kind_text[kind]), phase: ph, detail }));
    } else {
      lines.push(tr("<b>Issued:</b> nothing: an idle cycle (an issue slot lost)"));
    }
    meta.states.forEach((name, v) => {
      if (v === 0) return;
      lines.push(`${swatch(meta.palette[v], name)}: ${groups[v].length ? tr("warps {list}", { list: groups[v].join(", ") }) : tr("none")}`);
    });
    const others = [];
    for (let sc = 0; sc < meta.schedulers; sc++) {
      const w = at(A.issued_all, sc, c);
      others.push(`${sc}: ${w < 0 ? tr("idle") : tr("warp {w}", { w })}`);
    }
    lines.push(tr("<b>Each scheduler this cycle</b> (scheduler: warp issued): {list}", { list: others.join(" · ") }));
    side.innerHTML = lines.map((t) => `<div>${t}</div>`).join("");
    util.innerHTML = tr("Issue slots used this cycle: <b>{used} of {n}</b> · running utilisation (cycles 0..{c}): scheduler 0 <b>{mine}%</b>, whole SM <b>{all}%</b>",
      { used: at(A.slots, c), n: meta.schedulers, c, mine: at(A.running, c).toFixed(1), all: at(A.running_sm, c).toFixed(1) });
    pres.drew();
  }

  // A token with the instruction's name, from the row's label to its issuing cell.
  function animate() {
    const ir = at(A.issued_row, c);
    if (ir < 0) return;
    const b = built, col = c - b.first;
    fly.play(() => {
      const box = b.fig.getBoundingClientRect(), k = box.width / b.fig.offsetWidth;
      return { x: box.left + (b.left - 30) * k, y: box.top + (b.top + (ir + 0.5) * b.size) * k };
    }, () => b.grid.centre(ir, col), meta.kinds[at(A.issued_kind, c)]);
  }

  function ask(preset, latency) {
    askPython(model, { cmd: "kernel", name: `${preset}|${latency}` }, {
      busy: () => { errorLine.textContent = tr("computing…"); },
      loaded: () => { setError(""); load(); },
      missing: (note) => { setError(note); if (meta) { presetSel.value = meta.preset; } },
    });
  }

  function setError(s) { errorLine.textContent = s ? `⚠ ${s}` : ""; }

  model.on("change:rev", () => { load(); setError(model.get("error")); });
  model.on("msg:custom", (msg) => {
    if (msg && msg.error != null) {
      setError(msg.error);
      if (meta) presetSel.value = meta.preset;
    }
  });
  load();
  setError(model.get("error"));
  pres.fromUrl();

  root.explainerView = {
    state: () => ({ cycle: c, cycles: meta && meta.cycles, preset: meta && meta.preset, latency: meta && meta.latency_kind,
                    stride, first: built && built.first }),
    colours: (name) => {
      const g = name === "slots" ? built.slots : name === "overview" ? null : built.grid;
      if (!g) return null;
      return Array.from({ length: g.rows }, (_, r) => Array.from(g.colour.slice(r * g.cols, (r + 1) * g.cols)));
    },
    texts: () => Array.from({ length: built.grid.rows }, (_, r) => built.grid.text.slice(r * built.grid.cols, (r + 1) * built.grid.cols)),
    go: (t) => go(t),
  };
  return () => { stop(); unkey(); fly.cancel(); pres.leave(); };
}

export default { render: createSchedulerView };
