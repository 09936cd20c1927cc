// The warps and coalescing explorer (explainer/views/warps.py computes what it shows).
//
// Python sent, for one block size, block and loop step, the warp / lane / linear id of every
// thread and, for every warp of the block, the request table of naive, naive_col and tiled
// (active lanes, distinct addresses, 32-byte sectors, the ideal) and the lanes line. Pinning a
// thread (a click on the warp map, typing threadIdx) is a lookup here; Python is asked only for
// another block size, block or loop step ({cmd: "launch" | "block" | "step"}).

function createWarpsView({ model, el: host }) {
  learnStrings(model);
  injectCss();
  const root = el("div", { class: "explainer-warps explainer-view" }, host);
  const tip = tooltip(root);

  let meta = null, A = null;
  let tx = 0, ty = 0;  // the pinned thread
  let built = null;

  // ---- controls -------------------------------------------------------------------------
  const row = el("div", { class: "ex-row" }, root);
  const tLab = el("label", { class: "ex-field" }, row);
  el("span", {}, tLab, tr("block T×T"));
  const tSel = el("select", { class: "explainer-tile", "aria-label": tr("block T×T") }, tLab);
  const fbx = numberField(row, "blockIdx.x", 0, () => ask({ cmd: "block", block: [fbx.value, fby.value], thread: [tx, ty] }));
  const fby = numberField(row, "blockIdx.y", 0, () => ask({ cmd: "block", block: [fbx.value, fby.value], thread: [tx, ty] }));
  const ftx = numberField(row, "threadIdx.x", 0, () => pinTyped());
  const fty = numberField(row, "threadIdx.y", 0, () => pinTyped());
  const fk = numberField(row, tr("k / phase t"), 0, () => ask({ cmd: "step", k: fk.value, thread: [tx, ty] }));
  fk.dataset.field = "k / phase t";  // (the field's name for tests and scripts, in every language)
  tSel.addEventListener("change", () => ask({ cmd: "launch", M: meta.M, N: meta.N, K: meta.K, T: tSel.value, thread: [tx, ty] }));
  const errorLine = el("div", { class: "ex-error explainer-error", role: "status" }, root);
  const body = el("div", { class: "ex-panels", style: "display:flex;gap:18px;align-items:flex-start;flex-wrap:wrap" }, root);
  const figBox = el("div", { class: "ex-figs" }, body);
  const side = el("div", { style: "max-width:760px" }, body);
  const info = el("div", { class: "explainer-warp-info", style: "font-size:14px" }, side);
  const tableBox = el("div", { class: "explainer-sector-table" }, side);
  const lanes = el("div", { class: "explainer-warp-lanes", style: "font-size:12px;color:#374151" }, root);

  function load() {
    const m = model.get("meta");
    const buf = model.get("buf");
    if (!m || !m.arrays || !buf) return;
    meta = m;
    A = unpack(meta.arrays, buf);
    setError("");
    const start = (meta.start || {}).thread;
    if (Array.isArray(start)) [tx, ty] = start;
    else if (start != null) [tx, ty] = threadOfLinear(start);
    build();
    syncControls();
    draw();
  }

  // The thread whose linear id (Python's lin_of) is `lin`.
  function threadOfLinear(lin) {
    for (let y = 0; y < meta.T; y++) for (let x = 0; x < meta.T; x++) if (at(A.lin_of, y, x) === lin) return [x, y];
    return [0, 0];
  }

  function build() {
    const geom = JSON.stringify([meta.T]);
    if (built && built.geom === geom) return;
    figBox.textContent = "";
    const Tn = meta.T, size = Math.max(10, Math.min(36, Math.floor(320 / Tn)));
    const left = 30, top = 44;
    const W = left + Tn * size + 10, H = top + Tn * size + 10;
    const fig = el("div", { class: "ex-fig explainer-warp-map", style: `width:${W}px;height:${H}px` }, figBox);
    const s = svg("svg", { width: W, height: H, role: "img" }, fig);
    svg("text", { x: 4, y: 14, class: "ex-title" }, s, tr("warp of each thread (pinned: orange)"));
    svg("text", { x: left, y: top - 8, class: "ex-axis" }, s, "threadIdx.x →");
    svg("text", { x: 12, y: top + 4, class: "ex-axis", transform: `rotate(90 12 ${top + 4})` }, s, "threadIdx.y →");
    const grid = new Grid(fig, "warps", Tn, Tn, left, top, size, meta.palette);
    fig.addEventListener("mousemove", (e) => {
      const rc = grid.cellOf(e);
      if (!rc) return tip.hide();
      tip.show(tr("threadIdx=(x={x}, y={y}) · warp {warp}, lane {lane} · click to pin",
                 { x: rc[1], y: rc[0], warp: at(A.warp_of, rc[0], rc[1]), lane: at(A.lane_of, rc[0], rc[1]) }), e);
    });
    fig.addEventListener("mouseleave", () => tip.hide());
    fig.addEventListener("click", (e) => {
      const rc = grid.cellOf(e);
      if (rc) pin(rc[1], rc[0]);
    });
    built = { geom, grid, colours: new Int16Array(Tn * Tn) };
  }

  function draw() {
    if (!meta) return;
    const C = meta.colours, Tn = meta.T;
    const w = at(A.warp_of, ty, tx);
    const col = built.colours, texts = new Array(Tn * Tn);
    for (let y = 0; y < Tn; y++) {
      for (let x = 0; x < Tn; x++) {
        const wx = at(A.warp_of, y, x);
        col[y * Tn + x] = wx === w ? C.SAME_WARP : wx % 2 ? C.OTHER_ODD : C.OTHER_EVEN;
        texts[y * Tn + x] = built.grid.size >= 14 ? String(wx) : "";
      }
    }
    col[ty * Tn + tx] = C.PINNED;
    built.grid.paint(col);
    built.grid.label(texts);
    const lin = at(A.lin_of, ty, tx);
    info.innerHTML = tr("thread (x={tx}, y={ty}) of a {T}×{T} block: linear id <code>tx + ty*blockDim.x = {tx} + {ty}*{T} = {lin}</code> → <b>warp {warp}, lane {lane}</b>.",
                        { tx, ty, T: Tn, lin, warp: w, lane: at(A.lane_of, ty, tx) }) + ` ${escapeHtml(meta.block_text)}`;
    const TD = "padding:2px 8px;text-align:right;border-bottom:1px solid #e5e7eb;white-space:nowrap";
    const TH = "padding:2px 8px;text-align:right;border-bottom:2px solid #9ca3af";
    const head = [tr("kernel"), tr("access"), tr("active lanes"), tr("distinct addresses"), tr("32-B sectors"), tr("ideal"), ""];
    const rows = meta.rows.map(([kernel, access, code], j) => {
      const times = at(A.times, w, j);
      const verdict = times === 0 ? `<span style='color:#047857'>${tr("coalesced")}</span>`
        : `<span style='color:#b91c1c'>${tr("{times}× the ideal", { times })}</span>`;
      const cells = [escapeHtml(kernel), `<code>${escapeHtml(code)}</code>`, at(A.active, w, j), at(A.distinct, w, j),
                     at(A.sectors, w, j), at(A.ideal, w, j), verdict];
      return `<tr data-kernel="${escapeHtml(kernel)}" data-access="${escapeHtml(access)}">` + cells.map((c) => `<td style="${TD}">${c}</td>`).join("") + "</tr>";
    });
    tableBox.innerHTML = `<table style="font-size:13px;border-collapse:collapse;margin:4px 0"><tr>${head.map((h) => `<th style="${TH}">${h}</th>`).join("")}</tr>${rows.join("")}`
      + `<caption style="caption-side:bottom;font-size:12px;color:#4b5563;text-align:left">${tr("Warp {warp} of block (x={bx}, y={by}),", { warp: w, bx: meta.block[0], by: meta.block[1] })} ${escapeHtml(meta.caption)}</caption></table>`;
    lanes.innerHTML = meta.spelled[w];
    syncIds();
  }

  function pin(x, y) {
    tx = x; ty = y;
    setError("");
    draw();
  }

  function pinTyped() {
    const x = ftx.value.trim(), y = fty.value.trim();
    for (let yy = 0; yy < meta.T; yy++) {
      for (let xx = 0; xx < meta.T; xx++) if (String(xx) === x && String(yy) === y) return pin(xx, yy);
    }
    setError(tr("thread (x={tx}, y={ty}) is outside the {shape} block: {range}", { tx: x, ty: y, shape: `${meta.T}x${meta.T}`, range: meta.thread_range }));
    syncIds();
  }

  function ask(msg) {
    askPython(model, msg, {
      busy: () => { errorLine.textContent = tr("computing…"); },
      loaded: () => { setError(""); load(); },
      missing: (note) => { setError(note); syncControls(); },
    });
  }

  function setError(s) { errorLine.textContent = s ? `⚠ ${s}` : ""; }

  function syncIds() {
    ftx.value = String(tx); fty.value = String(ty);
  }

  function syncControls() {
    if (tSel.options.length !== meta.tiles.length) {
      tSel.textContent = "";
      for (const t of meta.tiles) el("option", { value: String(t) }, tSel, String(t));
    }
    tSel.value = String(meta.T);
    fbx.value = String(meta.block[0]); fby.value = String(meta.block[1]);
    fk.value = String(meta.k);
    syncIds();
  }

  // a new payload means the last input succeeded (Python clears its error with it): clear the line too
  model.on("change:rev", () => { load(); setError(model.get("error")); });
  model.on("msg:custom", (msg) => {
    if (msg && msg.error != null) {
      setError(msg.error);
      if (meta) syncControls();
    }
    if (msg && msg.pin != null) pin(msg.pin[0], msg.pin[1]);
  });
  load();
  setError(model.get("error"));

  root.explainerView = {
    colours: () => built && Array.from({ length: meta.T }, (_, r) => Array.from(built.grid.colour.slice(r * meta.T, (r + 1) * meta.T))),
    centre: (r, c) => built.grid.centre(r, c),
    state: () => ({ T: meta && meta.T, block: meta && meta.block, k: meta && meta.k, thread: [tx, ty] }),
  };
  return () => {};
}

export default { render: createWarpsView };
