// The fragment explorer (page 09; explainer/views/mma.py computes what it shows).
//
// Python sent, for one warp of kernel 15, the lane and register holding every element of the
// warp's A slab (32 x 8 per k-step), B slab (8 x 32) and C warp tile (32 x 32), and per k-step
// the global row / column of each A and B element. Stepping (buttons, arrow keys), pinning a lane
// (a click on any cell) and naming a clicked C element's owner are lookups here; another warp
// asks Python ({cmd: "kernel", name: "warp N"}).

function createMmaView({ model, el: host }) {
  learnStrings(model);
  injectCss();
  const root = el("div", { class: "explainer-mma explainer-view" }, host);
  const tip = tooltip(root);
  let meta = null, A = null, built = null;
  let lane = 0, step = 0, picked = null;  // picked: [r, c] of a clicked C element, or null

  const row = el("div", { class: "ex-row" }, root);
  const warpSel = el("select", { class: "explainer-mma-warp", "aria-label": tr("warp") }, el("label", { class: "ex-field" }, row, tr("warp") + " "));
  const prev = el("button", { type: "button", class: "explainer-prev", "aria-label": tr("previous k-step") }, row, "◀");
  const next = el("button", { type: "button", class: "explainer-next", "aria-label": tr("next k-step") }, row, "▶");
  const stepLabel = el("span", { class: "explainer-step-label", style: "font-size:13px" }, row);
  const errorLine = el("div", { class: "ex-error explainer-error", role: "status" }, root);
  const stepText = el("div", { class: "explainer-mma-step", style: "font-size:13px;max-width:900px;margin:4px 0" }, root);
  const body = el("div", { class: "ex-panels", style: "display:flex;gap:18px;align-items:flex-start;flex-wrap:wrap" }, root);
  const figBox = el("div", { class: "ex-figs" }, body);
  const info = el("div", { class: "explainer-mma-info", style: "font-size:13px;max-width:520px;font-family:ui-monospace,monospace" }, body);
  const caption = el("div", { class: "ex-note" }, root);

  prev.addEventListener("click", () => go(step - 1));
  next.addEventListener("click", () => go(step + 1));
  warpSel.addEventListener("change", () => askPython(model, { cmd: "kernel", name: warpSel.value, lane, step, thread: lane, k: step }, {
    busy: () => setError(tr("loading {what} …", { what: warpSel.selectedOptions[0] ? warpSel.selectedOptions[0].textContent : warpSel.value })),
    loaded: () => { setError(""); load(); },
    missing: (note) => { setError(note); warpSel.value = `warp ${meta.warp}`; },
  }));
  const stopKeys = arrowKeys((d) => go(step + d), root);

  function setError(text) { errorLine.textContent = text || ""; }

  function load() {
    const m = model.get("meta");
    const buf = model.get("buf");
    if (!m || !m.arrays || !buf) return;
    meta = m;
    A = unpack(meta.arrays, buf);
    setError("");
    const st = meta.start || {};
    lane = Number(st.lane ?? st.thread ?? 0) || 0;
    step = Number(st.step ?? st.k ?? 0) || 0;
    if (step >= meta.steps.length) step = 0;
    picked = null;
    build();
    warpSel.textContent = "";
    for (let w = 0; w < meta.warps; w++) el("option", { value: `warp ${w}` }, warpSel, tr("warp {n}", { n: w }));
    warpSel.value = `warp ${meta.warp}`;
    caption.textContent = meta.caption;
    draw();
  }

  function build() {
    figBox.textContent = "";
    const rows = meta.rows, cols = meta.cols, kk = meta.kk, size = 13;
    const left = 24, top = 40, gap = 28;
    const bX = left + kk * size + gap, cY = top + kk * size + gap;
    const W = bX + cols * size + 10, H = cY + rows * size + 10;
    const fig = el("div", { class: "ex-fig explainer-mma-fig", style: `width:${W}px;height:${H}px` }, figBox);
    const s = svg("svg", { width: W, height: H, role: "img" }, fig);
    svg("text", { x: bX, y: 14, class: "ex-title" }, s, tr("B slab (8 × 32): lane of each element"));
    svg("text", { x: 4, y: cY - 8, class: "ex-title" }, s, tr("A slab (32 × 8)"));
    svg("text", { x: bX, y: cY - 8, class: "ex-title" }, s, tr("C warp tile (32 × 32): its owning lane"));
    const grids = {
      A: new Grid(fig, "A", rows, kk, left, cY, size, meta.palette),
      B: new Grid(fig, "B", kk, cols, bX, top, size, meta.palette),
      C: new Grid(fig, "C", rows, cols, bX, cY, size, meta.palette),
    };
    for (const [name, grid] of Object.entries(grids)) {
      grid.canvas.addEventListener("mousemove", (e) => {
        const rc = grid.cellOf(e);
        if (!rc) return tip.hide();
        tip.show(describe(name, rc[0], rc[1]), e);
      });
      grid.canvas.addEventListener("mouseleave", () => tip.hide());
      grid.canvas.addEventListener("click", (e) => {
        const rc = grid.cellOf(e);
        if (!rc) return;
        picked = name === "C" ? rc : null;
        lane = laneOf(name, rc[0], rc[1]);
        draw();
      });
    }
    built = { grids };
  }

  function laneOf(name, r, c) {
    return name === "A" ? at(A.lane_a, r, c) : name === "B" ? at(A.lane_b, r, c) : at(A.lane_c, r, c);
  }

  function elemA(r, c) {
    const gr = at(A.a_row, step, r, c), gc = at(A.a_col, step, r, c);
    return gr < 0 ? tr("0 (padding)") : `A[${gr}][${gc}]`;
  }
  function elemB(r, c) {
    const gr = at(A.b_row, step, r, c), gc = at(A.b_col, step, r, c);
    return gr < 0 ? tr("0 (padding)") : `B[${gr}][${gc}]`;
  }

  // a register's name, as the kernel names it: Python sent the names and, per cell, which one
  function regName(which, names, r, c) { return meta.reg_names[which][at(names, r, c)]; }

  function describe(name, r, c) {
    if (name === "A") return tr("{elem}: lane {lane}, register {reg}", { elem: elemA(r, c), lane: at(A.lane_a, r, c), reg: regName("a", A.name_a, r, c) });
    if (name === "B") return tr("{elem}: lane {lane}, register {reg}", { elem: elemB(r, c), lane: at(A.lane_b, r, c), reg: regName("b", A.name_b, r, c) });
    return tr("{elem}: lane {lane}, register {reg} of m16n8 tile ({mi}, {ni})", { elem: `C[${at(A.c_row, r, c)}][${at(A.c_col, r, c)}]`,
      lane: at(A.lane_c, r, c), reg: regName("c", A.name_c, r, c), mi: at(A.mi_c, r, c), ni: at(A.ni_c, r, c) });
  }

  function go(s) {
    if (!meta) return;
    step = Math.max(0, Math.min(meta.steps.length - 1, s));
    draw();
  }

  function paint(grid, lanes, rows, cols) {
    const out = new Int16Array(rows * cols);
    for (let r = 0; r < rows; r++) for (let c = 0; c < cols; c++) {
      const l = at(lanes, r, c);
      out[r * cols + c] = l === lane ? l : meta.dim;
    }
    grid.paint(out);
    const texts = new Array(rows * cols).fill("");
    for (let r = 0; r < rows; r++) for (let c = 0; c < cols; c++) if (at(lanes, r, c) === lane) texts[r * cols + c] = String(lane);
    grid.label(texts);
  }

  function draw() {
    if (!meta || !built) return;
    const { grids } = built;
    paint(grids.A, A.lane_a, meta.rows, meta.kk);
    paint(grids.B, A.lane_b, meta.kk, meta.cols);
    paint(grids.C, A.lane_c, meta.rows, meta.cols);
    stepLabel.textContent = countText("k-step", step, meta.steps.length);
    stepText.textContent = meta.steps[step];
    prev.disabled = step === 0;
    next.disabled = step === meta.steps.length - 1;
    const lines = [];
    if (picked) lines.push(`<b>${escapeHtml(describe("C", picked[0], picked[1]))}</b>`);
    lines.push(tr("<b>lane {lane}</b> (groupID g = {g}, threadID_in_group t = {t}) at this k-step:", { lane, g: at(A.g, lane), t: at(A.t, lane) }));
    // the lane's registers in the kernel's order (the order of meta.reg_names), each under its own name
    const own = (lanes, names, rows, cols, fmt, which) => {
      const out = [];
      for (let r = 0; r < rows; r++) for (let c = 0; c < cols; c++)
        if (at(lanes, r, c) === lane) out.push([at(names, r, c), `${regName(which, names, r, c)} = ${fmt(r, c)}`]);
      return out.sort((x, y) => x[0] - y[0]).map((x) => x[1]);
    };
    lines.push(tr("A fragments: {list}", { list: own(A.lane_a, A.name_a, meta.rows, meta.kk, elemA, "a").join(", ") }));
    lines.push(tr("B fragments: {list}", { list: own(A.lane_b, A.name_b, meta.kk, meta.cols, elemB, "b").join(", ") }));
    lines.push(tr("C registers: {list}", { list: own(A.lane_c, A.name_c, meta.rows, meta.cols, (r, c) => `C[${at(A.c_row, r, c)}][${at(A.c_col, r, c)}]`, "c").join(", ") }));
    info.innerHTML = lines.map((l) => `<div style="margin:2px 0">${l.startsWith("<b>") ? l : escapeHtml(l)}</div>`).join("");
  }

  // a new payload means the last input succeeded (Python clears its error with it): clear the line too
  model.on("change:rev", () => { load(); setError(model.get("error")); });
  model.on("msg:custom", (msg) => {
    if (msg && msg.error != null) setError(msg.error);
    if (msg && msg.select) {
      lane = msg.select.lane;
      step = msg.select.step;
      picked = null;
      setError("");
      draw();
    }
  });
  load();
  setError(model.get("error"));

  root.explainerView = {
    colours: (name) => {
      const g = built && built.grids[name];
      return g && Array.from({ length: g.rows }, (_, r) => Array.from(g.colour.slice(r * g.cols, (r + 1) * g.cols)));
    },
    centre: (name, r, c) => built.grids[name].centre(r, c),
    state: () => ({ warp: meta && meta.warp, lane, step, picked }),
    info: () => info.innerText,
  };
  return () => stopKeys();
}

export default { render: createMmaView };
