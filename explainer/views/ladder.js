// Page 08's mapping view (explainer/views/ladder.py computes what it shows).
//
// For one rung of the ladder Python sent, for every thread, the outputs it owns (owner of every
// C cell), its warp, the rows / columns of As / Bs it reads, the elements it copies and where
// they go, and for every warp its region; picking a thread (typed, or a click on the C tile), a
// step k or a mode is a lookup in those arrays here. Python is asked only for another rung
// ({cmd: "kernel", name}).

// A rows x cols grid of cells of cw x ch pixels on a canvas (As / Bs are strips whose cells
// need not be square). Cell edges sit on whole device pixels, so small cells show no seams.
class LadderCells {
  constructor(parent, name, rows, cols, x, y, cw, ch, palette) {
    Object.assign(this, { name, rows, cols, cw, ch, palette });
    this.gap = Math.min(cw, ch) >= 6 ? 1 : 0;
    this.dpr = Math.max(1, Math.min(2, window.devicePixelRatio || 1));
    this.canvas = el("canvas", { class: "explainer-grid", "data-grid": name,
      style: `position:absolute;left:${x}px;top:${y}px;width:${cols * cw}px;height:${rows * ch}px` }, parent);
    this.canvas.width = Math.round(cols * cw * this.dpr);
    this.canvas.height = Math.round(rows * ch * this.dpr);
    this.ctx = this.canvas.getContext("2d");
    this.colour = new Int16Array(rows * cols).fill(-1);
  }

  cell(i) {
    const r = Math.floor(i / this.cols), c = i % this.cols; // (cell position on screen)
    const d = this.dpr, g = this.gap * d;
    const x0 = Math.round(c * this.cw * d), x1 = Math.round((c + 1) * this.cw * d);
    const y0 = Math.round(r * this.ch * d), y1 = Math.round((r + 1) * this.ch * d);
    this.ctx.fillStyle = this.palette[this.colour[i]] || "#ffffff";
    this.ctx.clearRect(x0, y0, x1 - x0, y1 - y0);
    this.ctx.fillRect(x0, y0, Math.max(1, x1 - x0 - g), Math.max(1, y1 - y0 - g));
  }

  paint(colours) {
    for (let i = 0; i < colours.length; i++) {
      if (colours[i] !== this.colour[i]) {
        this.colour[i] = colours[i];
        this.cell(i);
      }
    }
  }

  cellOf(event) {
    if (event.target !== this.canvas) return null;
    const box = this.canvas.getBoundingClientRect();
    const r = Math.floor((event.clientY - box.top) / this.ch), c = Math.floor((event.clientX - box.left) / this.cw);
    return r >= 0 && r < this.rows && c >= 0 && c < this.cols ? [r, c] : null;
  }

  centre(r, c) {
    const box = this.canvas.getBoundingClientRect();
    return { x: box.left + (c + 0.5) * this.cw, y: box.top + (r + 0.5) * this.ch };
  }
}

function createLadderView({ model, el: host }) {
  learnStrings(model);
  injectCss();
  const root = el("div", { class: "explainer-ladder-view explainer-view" }, host);
  const tip = tooltip(root);

  let meta = null, A = null;                // the payload: one rung
  let tid = 0, k = 0, mode = "reads";       // what is shown
  let built = null;

  // ---- controls -------------------------------------------------------------------------
  const rungRow = el("div", { class: "ex-row" }, root);
  const rungSeg = el("span", { class: "ex-seg explainer-ladder-rung" }, rungRow);
  const ctlRow = el("div", { class: "ex-row" }, root);
  const fThread = numberField(ctlRow, tr("thread: threadIdx.x"), 0, () => pickTyped());
  fThread.classList.add("explainer-ladder-thread");
  const kLabel = el("label", { class: "ex-field" }, ctlRow);
  el("span", {}, kLabel, tr("step k in the tile"));
  const kInput = el("input", { type: "range", min: "0", max: "0", step: "1", value: "0", "data-field": "k",
                               class: "explainer-ladder-k", style: "width:160px" }, kLabel);
  const kOut = el("output", { class: "explainer-ladder-k-value", style: "font-size:13px;min-width:1.5em" }, kLabel, "0");
  kInput.addEventListener("input", () => pick(tid, Number(kInput.value), mode));
  const modeRow = el("div", { class: "ex-row" }, root);
  const modeSeg = el("span", { class: "ex-seg explainer-ladder-mode" }, modeRow);
  const errorLine = el("div", { class: "ex-error explainer-ladder-error", role: "status" }, root);
  const info = el("div", { class: "explainer-ladder-info", style: "font-size:14px;line-height:1.5" }, root);
  const body = el("div", { class: "ex-row ex-panels", style: "align-items:flex-start;flex-wrap:nowrap" }, root);
  const figBox = el("div", { class: "explainer-ladder-figs ex-figs" }, body);
  const side = el("div", { style: "max-width:520px" }, body);
  const registers = el("div", { class: "explainer-ladder-registers" }, side);
  const copiesBox = el("div", { class: "explainer-ladder-copies", style: "font-size:12px;margin-top:6px" }, side);
  const legend = el("div", { class: "explainer-ladder-legend", style: "font-size:12px;margin:4px 0" }, root);

  // ---- the payload ----------------------------------------------------------------------
  function load() {
    const m = model.get("meta");
    const buf = model.get("buf");
    if (!m || !m.arrays || !buf) return;
    meta = m;
    A = unpack(meta.arrays, buf);
    const start = meta.start || {};
    // The thread / step / mode asked for where this rung has them, else the first.
    tid = validThread(start.thread) ? Number(start.thread) : 0;
    k = Number.isInteger(Number(start.k)) && Number(start.k) >= 0 && Number(start.k) <= meta.k_max ? Number(start.k) : 0;
    mode = meta.modes.some(([key]) => key === start.mode) ? start.mode : "reads";
    build();
    draw();
  }

  const validThread = (t) => t !== null && t !== undefined && String(t).trim() !== "" && Number.isInteger(Number(t))
    && Number(t) >= 0 && Number(t) < meta.threads;

  function build() {
    if (built && built.rung === meta.rung) return;
    figBox.textContent = "";
    const pal = meta.palette;
    const BM = meta.BM, BN = meta.BN, BK = meta.BK;
    // The C tile in proportion, As left of it, Bs above it (at least 70 px wide / tall).
    const s = Math.min(500 / BN, 500 / BM);
    const strip = Math.max(70, s * BK);
    const left = 64, top = 40, gap = 14;
    const xC = left + strip + gap, yC = top + strip + gap;
    const W = xC + BN * s + 20, H = yC + BM * s + 40;
    const fig = el("div", { class: "ex-fig explainer-ladder-fig", style: `width:${W}px;height:${H}px` }, figBox);
    const sv = svg("svg", { width: W, height: H, role: "img" }, fig);
    svg("text", { x: 4, y: 16, class: "ex-title" }, sv, meta.title);
    const gA = new LadderCells(fig, "A", BM, BK, left, yC, strip / BK, s, pal);
    const gB = new LadderCells(fig, "B", BK, BN, xC, top, s, strip / BK, pal);
    const gC = new LadderCells(fig, "C", BM, BN, xC, yC, s, s, pal);
    svg("text", { x: left, y: yC + BM * s + 16, class: "ex-axis" }, sv, meta.axis_a);
    svg("text", { x: xC, y: yC + BM * s + 16, class: "ex-axis" }, sv, meta.axis_n);
    svg("text", { x: 0, y: 0, class: "ex-axis", "text-anchor": "middle",
                  transform: `translate(${left - 8},${yC + BM * s / 2}) rotate(-90)` }, sv, meta.axis_m);
    svg("text", { x: xC - 6, y: top + strip / 2, class: "ex-axis", "text-anchor": "end" }, sv, meta.axis_b);
    const frames = svg("g", { class: "explainer-ladder-frames" }, sv);
    built = { rung: meta.rung, gA, gB, gC, frames, xC, yC, s,
              colA: new Int16Array(BM * BK), colB: new Int16Array(BK * BN), colC: new Int16Array(BM * BN) };
    fig.addEventListener("mousemove", (e) => {
      for (const grid of [gA, gB, gC]) {
        const rc = grid.cellOf(e);
        if (rc) { tip.show(hoverText(grid.name, rc[0], rc[1]), e); return; }
      }
      tip.hide();
    });
    fig.addEventListener("mouseleave", () => tip.hide());
    fig.addEventListener("click", (e) => {
      const rc = gC.cellOf(e);
      if (rc) pick(at(A.owner, rc[0], rc[1]), k, mode);
    });
    // The rung buttons and the mode buttons.
    rungSeg.textContent = "";
    for (const name of model.get("kernels") || []) {
      const btn = el("button", { type: "button", "data-value": name, style: "min-width:196px;padding:0 8px;white-space:nowrap" }, rungSeg, meta.labels[name] || name);
      btn.addEventListener("click", () => {
        if (name !== meta.rung) ask({ cmd: "kernel", name, thread: tid, k, mode });
      });
    }
    modeSeg.textContent = "";
    for (const [key, label] of meta.modes) {
      const btn = el("button", { type: "button", "data-value": key, style: "min-width:250px;padding:0 8px;white-space:nowrap" }, modeSeg, label);
      btn.addEventListener("click", () => pick(tid, k, key));
    }
    kInput.max = String(meta.k_max);
  }

  // ---- drawing ------------------------------------------------------------------------------
  function byOwner(out, who, base, warp) {
    const C = meta.colours, tw = A.thr_warp.data;
    for (let i = 0; i < out.length; i++) {
      const o = who.data[i];
      out[i] = o === tid ? C.NOW : tw[o] === warp ? C.WARP : base(i, o);
    }
  }

  function draw() {
    if (!meta) return;
    const C = meta.colours;
    const BK = meta.BK;
    const warp = at(A.thr_warp, tid);
    const { colA: cA, colB: cB, colC: cC } = built;
    const stripe = A.thr_stripe.data;
    byOwner(cC, A.owner, (i, o) => stripe[o], warp);
    if (mode === "reads") {
      cA.set(A.a_stripe.data);
      cB.set(A.b_stripe.data);
      const cellA = (m, kk) => m * BK + kk, cellB = (kk, n) => kk * meta.BN + n;  // grid addressing
      for (let m = 0; m < meta.BM; m++) if (at(A.warp_rows, warp, m)) cA[cellA(m, k)] = C.WARP;
      for (let n = 0; n < meta.BN; n++) if (at(A.warp_cols, warp, n)) cB[cellB(k, n)] = C.WARP;
      for (let i = 0; i < A.thr_rows.shape[1]; i++) {
        const m = at(A.thr_rows, tid, i);
        for (let kk = 0; kk < BK; kk++) cA[cellA(m, kk)] = kk === k ? C.NOW : C.THREAD;
      }
      for (let j = 0; j < A.thr_cols.shape[1]; j++) {
        const n = at(A.thr_cols, tid, j);
        for (let kk = 0; kk < BK; kk++) cB[cellB(kk, n)] = kk === k ? C.NOW : C.THREAD;
      }
    } else {
      byOwner(cA, A.loader_a, (i) => A.a_group.data[i], warp);
      byOwner(cB, A.loader_b, (i) => A.b_group.data[i], warp);
    }
    built.gA.paint(cA); built.gB.paint(cB); built.gC.paint(cC);
    drawFrames(warp);
    info.innerHTML = describe(warp);
    registers.innerHTML = registersHtml();
    copiesBox.innerHTML = copiesHtml();
    legend.innerHTML = meta.legend[mode].map(([c, t]) => swatch(meta.palette[c], fill(t))).join("") + escapeHtml(meta.legend_tail);
    syncControls();
  }

  // The warp's region (solid) and its warp-tiling sub-tiles (dotted), on the C tile.
  function drawFrames(warp) {
    const { frames, xC, yC, s } = built;
    frames.textContent = "";
    const rect = (row0, col0, rows, cols, width, dash) => svg("rect", {
      x: xC + col0 * s, y: yC + row0 * s, width: cols * s, height: rows * s, fill: "none", stroke: "#1d4ed8",
      "stroke-width": width, ...(dash ? { "stroke-dasharray": "3 2" } : {}) }, frames);
    const [r0, r1, c0, c1] = [0, 1, 2, 3].map((i) => at(A.warp_box, warp, i));
    rect(r0, c0, r1 - r0, c1 - c0, 2, false);
    for (let i = 0; i < A.warp_sub.shape[1]; i++) {
      rect(at(A.warp_sub, warp, i, 0), at(A.warp_sub, warp, i, 1), at(A.warp_sub, warp, i, 2), at(A.warp_sub, warp, i, 3), 1, true);
    }
  }

  const fill = (tpl, extra = {}) => String(tpl).replace(/\{(\w+)\}/g, (_, name) =>
    String({ tid, k, ...extra }[name] ?? `{${name}}`));

  function describe(warp) {
    const [rows, cols] = meta.thr_ranges[tid];
    return `${meta.info_rung}<br>` + tr("<b>thread {tid}</b> = warp {warp}, lane {lane}: outputs in rows {rows} × columns {cols} of the block tile; {text}.",
      { tid, warp, lane: at(A.thr_lane, tid), rows, cols, text: meta.warp_text[warp] });
  }

  function registersHtml() {
    const td = "padding:1px 3px;border:1px solid #e5e7eb;text-align:center;white-space:nowrap";
    const hd = td + ";background:#fdba74";
    const rows = Array.from({ length: A.thr_rows.shape[1] }, (_, i) => at(A.thr_rows, tid, i));
    const cols = Array.from({ length: A.thr_cols.shape[1] }, (_, j) => at(A.thr_cols, tid, j));
    let head, bodyRows;
    if (meta.registers_table === "1d") {
      head = `<th style='${td}'>m</th><th style='${hd}'>b: n=${cols[0]}</th>`;
      bodyRows = rows.map((m, i) => `<tr><th style='${hd}'>${m}</th><td style='${td}'>acc[${i}]</td></tr>`);
    } else {
      head = `<th style='${td}'>m \\ n</th>` + cols.map((n) => `<th style='${hd}'>${n}</th>`).join("");
      bodyRows = rows.map((m, i) => `<tr><th style='${hd}'>${m}</th>` + cols.map((_, j) => `<td style='${td}'>${i},${j}</td>`).join("") + "</tr>");
    }
    return `<div style='font-size:12px'>${fill(meta.registers, { n0: cols[0] })}</div>`
      + `<div style='max-height:330px;max-width:500px;overflow:auto'><table style='font-size:10px;border-collapse:collapse'>`
      + `<tr>${head}</tr>${bodyRows.join("")}</table></div>`;
  }

  function copiesHtml() {
    const lines = [];
    const vec = meta.vector > 1;
    for (let i = 0; i < A.cp_a.shape[1]; i++) {
      const m = at(A.cp_a, tid, i, 0), k0 = at(A.cp_a, tid, i, 1), k1 = at(A.cp_a, tid, i, 2);
      if (m < 0) continue;
      const slots = Array.from({ length: A.cp_a_slot.shape[2] }, (_, c) => at(A.cp_a_slot, tid, i, c));
      const banks = Array.from({ length: A.cp_a_bank.shape[2] }, (_, c) => at(A.cp_a_bank, tid, i, c));
      const elem = vec ? `A[row0+${m}][k0+${k0}..${k1}]` : `A[row0+${m}][k0+${k0}]`;
      const bankText = vec ? tr("(banks {list})", { list: banks.join(", ") }) : tr("(bank {list})", { list: banks.join(", ") });
      lines.push(`${elem} → ${slots.map((x) => `As[${x}]`).join(", ")} ${bankText}`);
    }
    for (let i = 0; i < A.cp_b.shape[1]; i++) {
      const kk = at(A.cp_b, tid, i, 0), n0 = at(A.cp_b, tid, i, 1), n1 = at(A.cp_b, tid, i, 2);
      if (kk < 0) continue;
      const s0 = at(A.cp_b_slot, tid, i, 0), s1 = at(A.cp_b_slot, tid, i, 1);
      lines.push(vec ? `B[k0+${kk}][col0+${n0}..${n1}] → Bs[${s0}..${s1}] ${tr("(one STS.128)")}` : `B[k0+${kk}][col0+${n0}] → Bs[${s0}]`);
    }
    return `${fill(meta.copies_head)}<br>` + lines.map(escapeHtml).join("<br>");
  }

  function hoverText(name, r, c) {
    if (name === "A") {
      return tr("A window (m={r}, k={c}) → {name} = slot {slot}, bank {bank} · copied by thread {t}",
        { r, c, name: meta.as_name, slot: at(A.a_slot, r, c), bank: at(A.a_bank, r, c), t: at(A.loader_a, r, c) });
    }
    if (name === "B") {
      return tr("B window (k={r}, n={c}) → {name} = slot {slot}, bank {bank} · copied by thread {t}",
        { r, c, name: meta.bs_name, slot: at(A.b_slot, r, c), bank: at(A.b_bank, r, c), t: at(A.loader_b, r, c) });
    }
    return tr("C tile (m={r}, n={c}) · computed by thread {t} · click to pick it", { r, c, t: at(A.owner, r, c) });
  }

  // ---- picking ------------------------------------------------------------------------------
  function pick(t, kk, md) {
    tid = t;
    k = kk;
    mode = md;
    setError("");
    draw();
  }

  function pickTyped() {
    const v = fThread.value.trim();
    if (v === "" || !Number.isInteger(Number(v))) {
      setError(tr("{what}, got {value}", { what: meta.thread_whole, value: `'${v}'` }));
      return syncControls();
    }
    if (!validThread(v)) {
      setError(tr("{what}, got {value}", { what: meta.thread_range, value: Number(v) }));
      return syncControls();
    }
    pick(Number(v), k, mode);
  }

  // A request only Python can answer; a static page looks it up in its store.
  function ask(msg) {
    askPython(model, msg, {
      busy: () => info.insertAdjacentHTML("afterbegin", `<div class="ex-note">${escapeHtml(tr("computing…"))}</div>`),
      loaded: () => { setError(""); load(); },
      missing: (note) => { setError(note); syncControls(); },
    });
  }

  function setError(s) {
    errorLine.textContent = s ? `⚠ ${s}` : "";
  }

  function syncControls() {
    if (!meta) return;
    fThread.value = String(tid);
    kInput.value = String(k);
    kOut.textContent = String(k);
    for (const btn of rungSeg.children) btn.classList.toggle("on", btn.dataset.value === meta.rung);
    for (const btn of modeSeg.children) btn.classList.toggle("on", btn.dataset.value === mode);
  }

  model.on("change:rev", () => { load(); setError(model.get("error")); });
  model.on("msg:custom", (msg) => {
    if (msg && msg.error != null) {
      setError(msg.error);
      syncControls();
    }
    if (msg && msg.select != null && meta) pick(msg.select.thread, msg.select.k, msg.select.mode);
  });
  load();
  setError(model.get("error"));

  // For tests: what is drawn, read back from the view itself.
  root.explainerView = {
    colours: (name) => {
      const grid = built && { A: built.gA, B: built.gB, C: built.gC }[name];
      if (!grid) return null;
      return Array.from({ length: grid.rows }, (_, r) => Array.from(grid.colour.slice(r * grid.cols, (r + 1) * grid.cols)));
    },
    hover: (name, r, c) => hoverText(name, r, c),
    centre: (name, r, c) => ({ A: built.gA, B: built.gB, C: built.gC })[name].centre(r, c),
    frames: () => Array.from(built.frames.children, (f) => ({ dotted: f.hasAttribute("stroke-dasharray") })),
    state: () => ({ rung: meta && meta.rung, thread: tid, k, mode }),
  };
  return () => {};
}

export default { render: createLadderView };
