// The naive kernels' explorer (explainer/views/naive.py computes what it shows).
//
// For a window of C around one block, Python sent, for every thread of every block the window
// touches, the C element it computes, its warp and lane and where its row of A / column of B
// sit in the window, and for every C cell the thread that owns it. Pinning a thread (a click
// on C, typing threadIdx, or a blockIdx inside the window) is a lookup here; Python is asked
// only for another launch, kernel, or a block outside the window ({cmd: ...}).

function createNaiveView({ model, el: host }) {
  injectCss();
  learnStrings(model);
  const root = el("div", { class: "explainer-naive explainer-view" }, host);
  const tip = tooltip(root);

  let meta = null, A = null;  // the payload
  let b = 0, p = 0;           // the pinned thread: block b of meta's blocks, thread p of it
  let built = null;

  // ---- controls -------------------------------------------------------------------------
  const kernelRow = el("div", { class: "ex-row" }, root);
  el("span", { style: "font-size:13px" }, kernelRow, tr("kernel"));
  const kernelSeg = el("span", { class: "ex-seg explainer-kernel" }, kernelRow);
  const sizeRow = el("div", { class: "ex-row" }, root);
  const fM = numberField(sizeRow, "M", 0, () => {});  // committed together by Apply or Enter
  const fN = numberField(sizeRow, "N", 0, () => {});
  const fK = numberField(sizeRow, "K", 0, () => {});
  const fBX = numberField(sizeRow, "blockDim.x", 0, () => {});  // the block's shape, x and y apart (8×8, 32×8, 64×4 ...)
  const fBY = numberField(sizeRow, "blockDim.y", 0, () => {});
  const applier = applyControl(sizeRow, [fM, fN, fK, fBX, fBY], {
    changed: () => !!meta && [[fM, meta.M], [fN, meta.N], [fK, meta.K], [fBX, meta.BX], [fBY, meta.BY]].some(([f, v]) => f.value.trim() !== String(v)),
    apply: () => { if (applier.changed()) sendLaunch(); },
  });
  const idRow = el("div", { class: "ex-row" }, root);
  const fbx = numberField(idRow, "blockIdx.x", 0, () => pinTyped());
  const fby = numberField(idRow, "blockIdx.y", 0, () => pinTyped());
  const ftx = numberField(idRow, "threadIdx.x", 0, () => pinTyped());
  const fty = numberField(idRow, "threadIdx.y", 0, () => pinTyped());
  const errorLine = el("div", { class: "ex-error explainer-error", role: "status" }, root);
  const text = el("div", { class: "explainer-naive-text", style: "font-size:14px;line-height:1.6" }, root);
  const legend = el("div", { class: "ex-legend-line", style: "font-size:12px;margin:4px 0" }, root);
  const figBox = el("div", { class: "explainer-naive-figs" }, root);
  const turnBox = el("div", {}, root);  // "Your turn" (meta.exercise): the student's index expressions
  let turn = null, mine = null;
  // Presenter mode (present.js): the figure full screen, what the pinned thread does beside it.
  const pres = presenter({ root, where: kernelRow, head: [kernelRow], figs: [figBox], side: [text], foot: [legend, errorLine] });

  // ---- the payload ----------------------------------------------------------------------
  function load() {
    const m = model.get("meta");
    const buf = model.get("buf");
    if (!m || !m.arrays || !buf) return;
    meta = m;
    A = unpack(meta.arrays, buf);
    const start = meta.start || {};
    const pinned = start.pinned || meta.block;
    b = Math.max(0, blockIndex(pinned[0], pinned[1]));
    p = start.thread != null ? start.thread : 0;
    build();
    syncControls();
    if (meta.exercise && !turn) {
      turn = indexExercise(turnBox, meta.exercise, { compare: compareTyped, onResult: (r) => { mine = r; draw(); },
        answers: () => meta.exercise.answers, title: () => meta.exercise.title });
    } else if (turn) turn.reset();
    mine = null;
    draw();
    pres.refit();
  }

  // The row of `blocks` holding block (x, y), or -1 when the window does not touch it.
  function blockIndex(x, y) {
    for (let i = 0; i < A.blocks.shape[0]; i++) {
      if (String(at(A.blocks, i, 0)) === String(x).trim() && String(at(A.blocks, i, 1)) === String(y).trim()) return i;
    }
    return -1;
  }

  function build() {
    const geom = JSON.stringify([meta.kernel, meta.M, meta.N, meta.K, meta.BX, meta.BY, meta.mwin, meta.nwin, meta.kwin]);
    if (built && built.geom === geom) return;
    figBox.textContent = "";
    const pal = meta.palette;
    legend.innerHTML = meta.legend.map(([c, t]) => swatch(pal[c], t)).join("");
    const mw = A.rows.shape[0], nw = A.cols.shape[0], kw = A.ks.shape[0];
    const size = Math.max(3, Math.min(28, Math.floor(Math.min(700 / (kw + nw), 480 / (kw + mw)))));
    const left = 58, top = 40, gap = 16;
    const xC = left + kw * size + gap, yC = top + kw * size + gap;
    const W = xC + nw * size + 20, H = yC + mw * size + 44;
    const fig = el("div", { class: "ex-fig explainer-naive-fig", style: `width:${W}px;height:${H}px` }, figBox);
    const s = svg("svg", { width: W, height: H, role: "img" }, fig);
    svg("text", { x: 4, y: 16, class: "ex-title" }, s, meta.title);
    const gA = new Grid(fig, "A", mw, kw, left, yC, size, pal);
    const gB = new Grid(fig, "B", kw, nw, xC, top, size, pal);
    const gC = new Grid(fig, "C", mw, nw, xC, yC, size, pal);
    svg("text", { x: left, y: yC + mw * size + 16, class: "ex-axis" }, s, meta.title_k);
    svg("text", { x: 4, y: yC - 4, class: "ex-axis" }, s, meta.title_m);
    svg("text", { x: xC, y: yC + mw * size + 32, class: "ex-axis" }, s, meta.title_n);
    svg("text", { x: xC - 4, y: top - 6, class: "ex-axis", "text-anchor": "end" }, s, tr("B: row k"));
    if (A.a_text) gA.label(Array.from(A.a_text.data, String));
    if (A.b_text) gB.label(Array.from(A.b_text.data, String));
    built = { geom, gA, gB, gC, colA: new Int16Array(mw * kw), colB: new Int16Array(kw * nw), colC: new Int16Array(mw * nw) };
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
      if (rc) pin(at(A.c_blk, rc[0], rc[1]), at(A.c_p, rc[0], rc[1]));
    });
    // The kernel picker: one button per mapping.
    kernelSeg.textContent = "";
    for (const name of model.get("kernels") || []) {
      const btn = el("button", { type: "button", "data-value": name }, kernelSeg, meta.kernel_labels[name] || name);
      btn.addEventListener("click", () => {
        if (name !== meta.kernel) ask({ cmd: "kernel", name, thread: p, pinned: blockOf(b) });
      });
    }
  }

  const blockOf = (i) => [at(A.blocks, i, 0), at(A.blocks, i, 1)];

  // ---- drawing ------------------------------------------------------------------------------
  function draw() {
    if (!meta) return;
    const C = meta.colours;
    const mw = A.rows.shape[0], nw = A.cols.shape[0], kw = A.ks.shape[0];
    const cA = built.colA.fill(C.IDLE), cB = built.colB.fill(C.IDLE), cC = built.colC;
    // C: the pinned block's tile, the pinned thread's warp, the pinned thread's element.
    const warp = at(A.thr_warp, b, p);
    for (let r = 0; r < mw; r++) {
      for (let c = 0; c < nw; c++) {
        const ob = at(A.c_blk, r, c), op = at(A.c_p, r, c);
        cC[r * nw + c] = ob !== b ? C.IDLE : at(A.thr_warp, ob, op) === warp ? C.TILE : C.PANEL;
      }
    }
    if (mine) {  // "draw my copies": C elements whose thread the student's row / col send elsewhere
      for (let j = 0; j < mw * nw; j++) if (mine.wrongCell[j]) cC[j] = C.HAZARD;
    }
    const cell = at(A.thr_cell, b, p), ar = at(A.thr_arow, b, p), bc = at(A.thr_bcol, b, p);
    if (at(A.thr_writes, b, p)) {
      if (ar >= 0) for (let k = 0; k < kw; k++) cA[ar * kw + k] = C.ACTIVE;
      if (bc >= 0) for (let k = 0; k < kw; k++) cB[k * nw + bc] = C.ACTIVE;
      if (cell >= 0) cC[cell] = C.PINNED;
    }
    built.gA.paint(cA); built.gB.paint(cB); built.gC.paint(cC);
    text.innerHTML = describe();
    syncIds();
    for (const btn of kernelSeg.children) btn.classList.toggle("on", btn.dataset.value === meta.kernel);
  }

  // "Your turn": the student's expressions for every thread of every block drawn, against the
  // model's row / col of each (thr_rc), and their loads for every k drawn (A[row][k], B[k][col]).
  function compareTyped(e) {
    const nt = A.thread_xy.shape[0], nb = A.blocks.shape[0], nk = A.ks.shape[0], nw = A.cols.shape[0];
    const who = (bi, q) => tr("block (x={bx}, y={by}), thread (x={tx}, y={ty})",
      { bx: at(A.blocks, bi, 0), by: at(A.blocks, bi, 1), tx: at(A.thread_xy, q, 0), ty: at(A.thread_xy, q, 1) });
    const env = (bi, q, k) => {
      const v = { "blockIdx.x": at(A.blocks, bi, 0), "blockIdx.y": at(A.blocks, bi, 1), "threadIdx.x": at(A.thread_xy, q, 0),
                  "threadIdx.y": at(A.thread_xy, q, 1), "blockDim.x": meta.BX, "blockDim.y": meta.BY, "gridDim.x": meta.grid[0],
                  "gridDim.y": meta.grid[1], M: meta.M, N: meta.N, K: meta.K, k };
      v.row = evalIndex(e.row, v);
      v.col = evalIndex(e.col, v);
      return v;
    };
    const NOUNS = { thread: [tr("{n} thread"), tr("{n} threads")], block: [tr("{n} block"), tr("{n} blocks")],
                    load: [tr("{n} load"), tr("{n} loads")] };
    const count = (n, what) => NOUNS[what][n === 1 ? 0 : 1].replace("{n}", n.toLocaleString("en-US"));
    const lines = [], wrongCell = new Uint8Array(A.rows.shape[0] * nw);
    for (const [id, axis] of [["row", 0], ["col", 1]]) {
      let wrong = 0, first = null;
      for (let bi = 0; bi < nb; bi++) {
        for (let q = 0; q < nt; q++) {
          const got = env(bi, q, 0)[id], want = at(A.thr_rc, bi, q, axis);
          if (got === want) continue;
          wrong++;
          if (!first) first = tr("{who}: yours {got}, the kernel's {want}", { who: who(bi, q), got, want });
          const cell = at(A.thr_cell, bi, q);
          if (cell >= 0) wrongCell[cell] = 1;
        }
      }
      const all = (nb * nt).toLocaleString("en-US");
      lines.push({ id, ok: !wrong, text: wrong ? tr("{id}: {wrong} of {all} wrong; {first}", { id, wrong: count(wrong, "thread"), all, first })
        : tr("{id}: right for all {all} threads of the {blocks} drawn", { id, all, blocks: count(nb, "block") }) });
    }
    for (const [which, ids, want] of [["A", ["a_r", "a_c"], (r, c, k) => [r, k]], ["B", ["b_r", "b_c"], (r, c, k) => [k, c]]]) {
      let wrong = 0, all = 0, first = null;
      for (let bi = 0; bi < nb; bi++) {
        for (let q = 0; q < nt; q++) {
          if (!at(A.thr_writes, bi, q)) continue;  // outside C: the guard skips the loop
          for (let j = 0; j < nk; j++) {
            const k = at(A.ks, j), v = env(bi, q, k);
            const r = evalIndex(e[ids[0]], v), c = evalIndex(e[ids[1]], v);
            const [wr, wc] = want(at(A.thr_rc, bi, q, 0), at(A.thr_rc, bi, q, 1), k);
            all++;
            if (r !== wr || c !== wc) {
              wrong++;
              if (!first) first = tr("{who}, k = {k}: yours {mine}, the kernel's {theirs}",
                { who: who(bi, q), k, mine: `${which}[${r}][${c}]`, theirs: `${which}[${wr}][${wc}]` });
            }
          }
        }
      }
      lines.push({ id: ids[0], also: ids[1], ok: !wrong, text: `sum += …${which}[…][…]: ` + (wrong
        ? tr("{wrong} of {all} wrong; {first}", { wrong: count(wrong, "load"), all: all.toLocaleString("en-US"), first })
        : tr("right for every thread inside C, k = {k0}..{k1}", { k0: at(A.ks, 0), k1: at(A.ks, nk - 1) })) });
    }
    return { lines, wrongCell };
  }

  function describe() {
    const [bx, by] = blockOf(b);
    const tx = at(A.thread_xy, p, 0), ty = at(A.thread_xy, p, 1);
    const row = at(A.thr_rc, b, p, 0), col = at(A.thr_rc, b, p, 1);
    const K = meta.K.toLocaleString("en-US");
    const lines = [
      "<b>" + tr("block (x={bx}, y={by}), thread (x={tx}, y={ty})", { bx, by, tx, ty }) + "</b> · " +
        tr("linear id {id} → warp {warp}, lane {lane}", { id: at(A.thr_lin, b, p), warp: at(A.thr_warp, b, p), lane: at(A.thr_lane, b, p) }),
      `row = ${escapeHtml(meta.formula_row)} = <b>${row}</b>; col = ${escapeHtml(meta.formula_col)} = <b>${col}</b>`,
      at(A.thr_writes, b, p)
        ? tr("computes {sum}: reads {K} elements of A and {K} of B = <b>{loads}</b> global loads for one output",
          { sum: `C[${row}][${col}] = Σ<sub>k</sub> A[${row}][k]·B[k][${col}]`, K, loads: meta.loads_per_output.toLocaleString("en-US") })
        : tr("{c} is outside C: the guard {guard} skips this thread",
          { c: `C[${row}][${col}]`, guard: "<code>if (row &lt; M &amp;&amp; col &lt; N)</code>" }),
      meta.launch_html,
      meta.warps_html,
      warpLine(),
    ];
    return lines.join("<br>");
  }

  // The pinned thread's warp at k = 0, from the model's counts (warp_rows, warp_sec, warp_ideal).
  function warpLine() {
    if (!A.warp_sec) return "";
    const w = at(A.thr_warp, b, p), s = (m) => at(A.warp_sec, b, w, m), i = (m) => at(A.warp_ideal, b, w, m);
    return tr("warp {warp} spans {rows} row(s) of the block; at k = 0 its load of A touches {sa} sector(s) of 32 bytes (ideal {ia}), its load of B {sb} (ideal {ib}), its store of C {sc} (ideal {ic})",
      { warp: w, rows: at(A.warp_rows, b, w), sa: s(0), ia: i(0), sb: s(1), ib: i(1), sc: s(2), ic: i(2) });
  }

  function hoverText(name, r, c) {
    if (name === "A") return `A[${at(A.rows, r)}][${at(A.ks, c)}]` + (A.a_text ? ` = ${at(A.a_text, r, c)}` : "");
    if (name === "B") return `B[${at(A.ks, r)}][${at(A.cols, c)}]` + (A.b_text ? ` = ${at(A.b_text, r, c)}` : "");
    const ob = at(A.c_blk, r, c), op = at(A.c_p, r, c);
    const [bx, by] = blockOf(ob);
    return `C[${at(A.rows, r)}][${at(A.cols, c)}] · ` + tr("block (x={bx}, y={by}) thread (x={tx}, y={ty}) · warp {warp} · click to pin",
      { bx, by, tx: at(A.thread_xy, op, 0), ty: at(A.thread_xy, op, 1), warp: at(A.thr_warp, ob, op) });
  }

  // ---- pinning ------------------------------------------------------------------------------
  function pin(blk, q) {
    b = blk;
    p = q;
    setError("");
    draw();
  }

  function pinTyped() {
    const blk = blockIndex(fbx.value, fby.value);
    let q = -1;
    for (let j = 0; j < A.thread_xy.shape[0]; j++) {
      if (String(at(A.thread_xy, j, 0)) === ftx.value.trim() && String(at(A.thread_xy, j, 1)) === fty.value.trim()) q = j;
    }
    if (q < 0) {
      setError(tr("thread (x={tx}, y={ty}) is outside the {shape} block: {range}", { tx: ftx.value, ty: fty.value, shape: `${meta.BX}x${meta.BY}`, range: meta.thread_range }));
      return syncIds();
    }
    if (blk >= 0) return pin(blk, q);
    ask({ cmd: "block", block: [fbx.value, fby.value], thread: q });  // outside the window: Python
  }

  function sendLaunch() {
    // T: how a static page names the block in its store (an edge, or "BXxBY"); Python reads BX and BY.
    const bx = fBX.value.trim(), by = fBY.value.trim();
    ask({ cmd: "launch", M: fM.value, N: fN.value, K: fK.value, BX: bx, BY: by, T: bx === by ? bx : `${bx}x${by}`,
          thread: p, pinned: blockOf(b) });
  }

  // A request only Python can answer; a static page looks it up in its store.
  function ask(msg) {
    askPython(model, msg, {
      busy: () => text.insertAdjacentHTML("afterbegin", `<div class="ex-note">${escapeHtml(tr("computing…"))}</div>`),
      loaded: () => { setError(""); load(); },
      missing: (note) => { setError(note); syncControls(); },
    });
  }

  function setError(s) {
    errorLine.textContent = s ? `⚠ ${s}` : "";
  }

  function syncIds() {
    const [bx, by] = blockOf(b);
    fbx.value = String(bx); fby.value = String(by);
    ftx.value = String(at(A.thread_xy, p, 0)); fty.value = String(at(A.thread_xy, p, 1));
  }

  function syncControls() {
    fM.value = String(meta.M); fN.value = String(meta.N); fK.value = String(meta.K);
    fBX.value = String(meta.BX); fBY.value = String(meta.BY);
    applier.refresh();
    syncIds();
  }

  // a new payload means the last input succeeded (Python clears its error with it): clear the line too
  model.on("change:rev", () => { load(); setError(model.get("error")); });
  model.on("msg:custom", (msg) => {
    if (msg && msg.error != null) {
      setError(msg.error);
      if (meta) { syncControls(); draw(); }
    }
    if (msg && msg.pin != null) pin(msg.pin[0], msg.pin[1]);
  });
  load();
  setError(model.get("error"));
  pres.fromUrl();

  // For tests: what is drawn, read back from the view itself.
  root.explainerView = {
    colours: (name) => {
      const grid = built && { A: built.gA, B: built.gB, C: built.gC }[name];
      if (!grid) return null;
      return Array.from({ length: grid.rows }, (_, r) => Array.from(grid.colour.slice(r * grid.cols, (r + 1) * grid.cols)));
    },
    hover: (name, r, c) => hoverText(name, r, c),
    centre: (name, r, c) => ({ A: built.gA, B: built.gB, C: built.gC })[name].centre(r, c),
    state: () => ({ block: meta && blockOf(b), thread: meta && [at(A.thread_xy, p, 0), at(A.thread_xy, p, 1)], kernel: meta && meta.kernel }),
    present: pres,
  };
  return () => { pres.leave(); };
}

export default { render: createNaiveView };
