// The tiled-kernel stepper (explainer/views/tiled.py computes what it shows).
//
// Everything a step shows is looked up in the arrays Python sent for the chosen block: which
// global element sits in each As / Bs cell in each phase, what the pinned thread copies and
// reads, its running sum, the hazards of the broken variants. Stepping, playing, hovering and
// pinning a thread of the block happen here; Python is asked only for a new launch, another
// block, or the next chunk of phases of a very long K loop (messages {cmd: ...}).

const PIN_NONE = 0, PIN_STORE_A = 1, PIN_STORE_B = 2, PIN_READ_K = 3, PIN_READ_ALL = 4, PIN_C = 5;

function createTiledView({ model, el: host }) {
  injectCss();
  learnStrings(model);
  const root = el("div", { class: "explainer-stepper explainer-view" }, host);
  const tip = tooltip(root);

  // ---- state (the view's own: never sent to Python while stepping) --------------------
  let meta = null, A = null;     // the payload: meta (JSON) and the arrays
  let mode = "k";                // "k": one k per step, "loop": the whole loop per step
  let show = "names";            // As / Bs show "names" or "values"
  let g = 0;                     // the current step, 0-based, of the whole program
  let p = 0;                     // the pinned thread of the block (tx + ty*T, from Python)
  let playing = null;
  let built = null;              // DOM built for this payload's geometry

  // ---- controls -------------------------------------------------------------------------
  const presetRow = el("div", { class: "ex-row" }, root);
  const presetSel = el("select", { class: "explainer-preset", "aria-label": tr("Preset") }, presetRow);
  // The kernel variants this page compares (page 04); hidden when there is only one.
  const kernelLab = el("label", { class: "ex-field", style: "display:none" }, presetRow);
  el("span", {}, kernelLab, tr("kernel"));
  const kernelSel = el("select", { class: "explainer-kernel", "aria-label": tr("kernel") }, kernelLab);
  // M, N, K, T and the block are typed, then committed together (Apply or Enter): one launch,
  // not one request per field (a field sent alone would be refused or snap back).
  const sizeRow = el("div", { class: "ex-row" }, root);
  const typed = () => {};  // committed by Apply (applyControl), not field by field
  const fM = numberField(sizeRow, "M", 0, typed);
  const fN = numberField(sizeRow, "N", 0, typed);
  const fK = numberField(sizeRow, "K", 0, typed);
  const fT = numberField(sizeRow, tr("tile T"), 0, typed);
  fT.dataset.field = "tile T";  // the field's name for tests and tools, whatever the language
  const idRow = el("div", { class: "ex-row" }, root);
  const fbx = numberField(idRow, "blockIdx.x", 0, typed);
  const fby = numberField(idRow, "blockIdx.y", 0, typed);
  const applier = applyControl(sizeRow, [fM, fN, fK, fT, fbx, fby], {
    changed: () => { const c = typedChanges(); return c.launch || c.block; },
    apply: () => apply(),
  });
  const ftx = numberField(idRow, "threadIdx.x", 0, () => pinTyped());
  const fty = numberField(idRow, "threadIdx.y", 0, () => pinTyped());
  // Static pages: the blocks this page holds for the launch, named by where they sit in the grid.
  const storedLab = el("label", { class: "ex-field", style: "display:none" }, idRow);
  el("span", {}, storedLab, tr("stored blocks"));
  const storedSel = el("select", { class: "explainer-stored-blocks", "aria-label": tr("stored blocks") }, storedLab);
  const storedNote = el("span", { class: "ex-note" }, idRow, "");
  const errorLine = el("div", { class: "ex-error explainer-error", role: "status" }, root);

  const stepRow = el("div", { class: "ex-row" }, root);
  const bFirst = el("button", { type: "button", title: tr("first step"), class: "explainer-first" }, stepRow, "|◀");
  const bPrev = el("button", { type: "button", title: tr("previous step (←)"), class: "explainer-prev" }, stepRow, "◀");
  const bPlay = el("button", { type: "button", title: tr("play / pause"), class: "explainer-play" }, stepRow, tr("▶ Play"));
  const bNext = el("button", { type: "button", title: tr("next step (→)"), class: "explainer-next" }, stepRow, "▶");
  const bLast = el("button", { type: "button", title: tr("last step"), class: "explainer-last" }, stepRow, "▶|");
  const slider = el("input", { type: "range", min: "0", value: "0", class: "explainer-slider", "aria-label": tr("step"), style: "width:360px" }, stepRow);
  const speedLab = el("label", { class: "ex-field" }, stepRow);
  el("span", {}, speedLab, tr("ms / step"));
  const speed = el("input", { type: "range", min: "33", max: "2000", step: "1", value: "600", class: "explainer-speed", style: "width:140px" }, speedLab);
  const speedOut = el("span", { style: "font-size:12px;width:3em" }, speedLab, "600");
  const toggleRow = el("div", { class: "ex-row" }, root);
  const tMode = toggle(toggleRow, tr("compute"), ["one k per step", "whole loop"], "one k per step", (v) => setMode(v === "whole loop" ? "loop" : "k"));
  const tShow = toggle(toggleRow, tr("As / Bs show"), ["names", "values"], "names", (v) => { show = v; draw(); });
  // the buttons' values stay the English words (what the code compares); their text is the reader's language
  const toggleText = { "one k per step": tr("one k per step"), "whole loop": tr("whole loop"), names: tr("names"), values: tr("values") };
  for (const b of [...tMode.buttons, ...tShow.buttons]) b.textContent = toggleText[b.dataset.value];
  // Motion: in a load step the pinned thread's value flies from A / B to As / Bs, at the store from
  // the thread to C (after the draw; off under prefers-reduced-motion or with this box unticked).
  const motionLab = el("label", { class: "ex-field", title: tr("animate the pinned thread's copy") }, toggleRow);
  const motionBox = el("input", { type: "checkbox", class: "explainer-motion", "aria-label": tr("motion") }, motionLab);
  motionBox.checked = true;
  el("span", {}, motionLab, tr("motion"));
  const fly = motion(root, { enabled: () => motionBox.checked });
  motionBox.addEventListener("change", () => { if (!motionBox.checked) fly.cancel(); });

  const labelBox = el("div", { class: "explainer-step-label" }, root);
  const labelMain = el("div", { style: "font-size:17px;font-weight:600;padding:6px 0" }, labelBox);
  const labelStep = el("div", { style: "color:#4b5563" }, labelBox);
  const legend = el("div", { class: "ex-legend-line", style: "font-size:12px;margin:4px 0" }, root);
  const globalBox = el("div", { class: "explainer-global" }, root);
  const sumLine = el("div", { class: "explainer-sum", style: "font-size:14px;padding:4px 0" }, root);
  const sharedBox = el("div", { class: "explainer-shared" }, root);
  const codeNote = el("div", { class: "ex-note" }, root);
  const code = el("pre", { class: "explainer-code" }, root);
  const turnBox = el("div", {}, root);  // "Your turn" (meta.exercise): the student's index expressions
  const summary = el("div", { class: "explainer-summary" }, root);
  let turn = null, mine = null;  // the exercise panel; the student's copies, drawn when asked
  // Presenter mode (present.js): the label, both figures and the code side by side, full screen.
  const pres = presenter({
    root, where: stepRow, head: [stepRow, toggleRow, presetSel, kernelLab], label: [labelBox], figs: [globalBox, sharedBox],
    side: [codeNote, code], foot: [sumLine, legend],
    keys: { next: () => goTo(g + 1), prev: () => goTo(g - 1), first: () => goTo(0), last: () => goTo(steps().total - 1) },
    // As / Bs / threads there: in a column, or As | Bs over the threads, whichever is drawn larger
    arrange: {
      options: ["column", "square"],
      sizes: (a) => [null, meta ? sharedGeom(meta.T, a).size : null],
      use: (a) => { shared = a; if (meta) { build(); draw(); } },
    },
  });
  let shared = null;  // the shared figure's arrangement: null (a row), "column" or "square" (presenter)

  // Where the shared figure puts grid j (As, Bs, threads) of cell size ss, and its size.
  // Row and column numbers sit left of and above each grid (x0, and 12 px over it); each grid's
  // name is under it, so a grid is at least as wide as its name, and the figure as its title.
  const SHARED_NAMES = ["As[ty][tx]", "Bs[ty][tx]", tr("threads: threadIdx.x →, threadIdx.y ↓")];
  function sharedGeom(Tn, a) {
    const ss = Math.max(8, Math.min(40, Math.floor(300 / Tn)));
    const sw = Tn * ss, x0 = 24;
    const wide = Math.max(sw, ...SHARED_NAMES.map((t) => textWidth(t, 11)));  // a grid or its name
    const pitch = wide + 30, down = sw + 46;  // across: and a gap; down: a grid, its name, the next's numbers
    const title = meta ? Math.max(...sharedTitleLines(a).map((t) => textWidth(t, 13))) + 12 : 0;
    if (!a) return { ss, sw, corner: (j) => [x0 + j * pitch, 52], size: [Math.max(x0 + 2 * pitch + wide + 10, title), 52 + sw + 30] };
    const y0 = 70;  // under the title's three lines and the column numbers
    if (a === "column") return { ss, sw, corner: (j) => [x0, y0 + j * down], size: [Math.max(x0 + wide + 10, title), y0 + 3 * down - 4] };
    return { ss, sw, corner: (j) => [x0 + (j % 2) * pitch, y0 + (j >> 1) * down], size: [Math.max(x0 + pitch + wide + 10, title), y0 + 2 * down - 4] };
  }

  // The shared figure's title, in lines: the block and its threads, then what As and Bs hold (the
  // longest phase's words, for sizing; draw() writes the step's own).
  function sharedTitleLines(a, tp = null) {
    const hold = tp == null ? meta.hold_text.reduce((x, y) => (y.length > x.length ? y : x), "") : meta.hold_text[tp];
    const parts = meta.title_shared.split(" · ");  // ["Shared memory of block (x, y)", "its N threads (k warps)"]
    const holds = tr("As and Bs hold {phase}", { phase: hold });
    return a ? [parts[0], holds, parts.slice(1).join(" · ")] : [parts.join(" · "), holds];
  }

  // ---- the payload ----------------------------------------------------------------------
  function load() {
    const m = model.get("meta");
    const buf = model.get("buf");
    if (!m || !m.arrays || !buf) return;
    fly.cancel();
    meta = m;
    A = unpack(meta.arrays, buf);
    const start = meta.start || {};
    if (start.mode) mode = start.mode;
    g = start.index != null ? start.index : 0;
    p = start.thread != null ? start.thread : 0;
    build();
    syncControls();
    if (meta.exercise && !turn) turn = indexExercise(turnBox, meta.exercise, { compare: compareTyped, onResult: (r) => { mine = r; draw(); } });
    else if (turn) turn.reset();
    mine = null;  // a new payload (launch, block): check again to draw the copies
    draw();
    reach();
  }

  // "Show the step" (quiz.js): reach a launch, block, kernel, pinned thread and step, one request
  // at a time, each asked like the student's own; a refusal ends it (done(false)).
  let goal = null;
  function reach() {
    const w = goal;
    if (!w || !meta) return;
    if ([meta.M, meta.N, meta.K, meta.T].join() !== [w.M, w.N, w.K, w.T].join()) {
      return ask({ cmd: "launch", M: w.M, N: w.N, K: w.K, T: w.T, block: w.block, mode });
    }
    if (String(meta.block) !== String(w.block)) return ask({ cmd: "block", block: w.block, thread: w.p, step: 0, mode });
    if (meta.kernel !== w.kernel) return ask({ cmd: "kernel", name: w.kernel, thread: w.p, mode });
    goal = null;
    stop();
    pin(w.p);
    goTo(w.steps[mode]);
    w.done(true);
  }
  function giveUp() { const w = goal; goal = null; if (w) w.done(false); }

  function steps() { return meta.steps[mode]; }
  function stepText() { return tr("step {n} of {total}", { n: g + 1, total: steps().total }); }
  const padText = tr("0 (pad)"), ghostText = tr("ghost");
  function S(name) { return A[`${mode}_${name}`]; }
  function local() { return g - steps().s0; }
  function T() { return meta.T; }

  // ---- building the figures (once per payload) --------------------------------------------
  function build() {
    const geom = JSON.stringify([meta.M, meta.N, meta.K, meta.T, meta.mwin, meta.nwin, meta.kernel, meta.block, meta.pbase, meta.p1, shared]);
    if (built && built.geom === geom) return;
    globalBox.textContent = "";
    sharedBox.textContent = "";
    const pal = meta.palette;
    legend.innerHTML = meta.legend.map(([c, t]) => swatch(pal[c], t)).join("");
    // Global memory: the textbook layout, B above C, A to the left of C.
    const mw = meta.mwin[1] - meta.mwin[0], nw = meta.nwin[1] - meta.nwin[0];
    const kw = A.kwin.data[1] - A.kwin.data[0];
    const size = Math.max(3, Math.min(28, Math.floor(Math.min(700 / (kw + nw), 480 / (kw + mw)))));
    const left = 58, top = 40, gap = 16;
    const xC = left + kw * size + gap, yC = top + kw * size + gap;
    const W = xC + nw * size + 20, H = yC + mw * size + 44;
    const gfig = el("div", { class: "ex-fig explainer-global-fig", style: `width:${W}px;height:${H}px` }, globalBox);
    const gs = svg("svg", { width: W, height: H + 10, class: "explainer-global-svg", role: "img" }, gfig);
    gfig.style.height = `${H + 10}px`;
    svg("text", { x: 4, y: 16, class: "ex-title" }, gs, meta.title_global);
    const gA = new Grid(gfig, "A", mw, kw, left, yC, size, pal);
    const gB = new Grid(gfig, "B", kw, nw, xC, top, size, pal);
    const gC = new Grid(gfig, "C", mw, nw, xC, yC, size, pal);
    const lines = svg("g", { stroke: "#6b7280", "stroke-width": 1, "pointer-events": "none" }, gs);
    const axK = svg("text", { x: left, y: yC + mw * size + 26, class: "ex-axis" }, gs, "");
    svg("text", { x: 4, y: yC - 4, class: "ex-axis" }, gs, meta.title_m);
    svg("text", { x: xC, y: yC + mw * size + 42, class: "ex-axis" }, gs, meta.title_n);
    // Row and column numbers: A's (and C's) rows left of A, C's (and B's) columns under C; the k
    // of A's columns (under A) and of B's rows (left of B) follow the phase's window (drawLines).
    const under = yC + mw * size + 9;
    const widest = Math.max(meta.mwin[1], meta.nwin[1], meta.K) - 1;
    indexTicks(gs, mw, size, (r) => [left - 3, yC + (r + 0.5) * size], "end", widest)(meta.mwin[0]);
    indexTicks(gs, nw, size, (c) => [xC + (c + 0.5) * size, under], "middle", widest)(meta.nwin[0]);
    const tickAk = indexTicks(gs, kw, size, (c) => [left + (c + 0.5) * size, under], "middle", widest);
    const tickBk = indexTicks(gs, kw, size, (r) => [xC - 3, top + (r + 0.5) * size], "end", widest);
    svg("text", { x: xC - 4, y: top - 6, class: "ex-axis", "text-anchor": "end" }, gs, tr("B: row k"));
    // Shared memory: As, Bs and the block's threads, in a row (presenter mode: see sharedGeom).
    const Tn = meta.T;
    const { ss, sw, corner, size: [SW, SH] } = sharedGeom(Tn, shared);
    const sfig = el("div", { class: "ex-fig explainer-shared-fig", style: `width:${SW}px;height:${SH}px` }, sharedBox);
    const sh = svg("svg", { width: SW, height: SH, class: "explainer-shared-svg", role: "img" }, sfig);
    const sTitle = svg("text", { x: 4, y: 16, class: "ex-title" }, sh, "");
    const sAs = new Grid(sfig, "As", Tn, Tn, ...corner(0), ss, pal);
    const sBs = new Grid(sfig, "Bs", Tn, Tn, ...corner(1), ss, pal);
    const sTh = new Grid(sfig, "threads", Tn, Tn, ...corner(2), ss, pal);
    SHARED_NAMES.forEach((text, j) => {
      const [x, y] = corner(j);
      svg("text", { x, y: y + sw + 18, class: "ex-axis" }, sh, text);
      // ty down the left, tx along the top (of the threads: threadIdx.y and threadIdx.x)
      indexTicks(sh, Tn, ss, (r) => [x - 3, y + (r + 0.5) * ss], "end", Tn - 1)(0);
      indexTicks(sh, Tn, ss, (c) => [x + (c + 0.5) * ss, y - 7], "middle", Tn - 1)(0);
    });
    built = { geom, column: shared != null, gA, gB, gC, lines, axK, tickAk, tickBk, sTitle, sAs, sBs, sTh, size, left, top, xC, yC, kwShown: null,
              colA: new Int16Array(mw * kw), colB: new Int16Array(kw * nw), colC: new Int16Array(mw * nw),
              colAs: new Int16Array(Tn * Tn), colBs: new Int16Array(Tn * Tn), colTh: new Int16Array(Tn * Tn) };
    // Pointer: hover says what a cell holds; a click on C or on a thread pins a thread.
    for (const [s, grids] of [[gfig, [gA, gB, gC]], [sfig, [sAs, sBs, sTh]]]) {
      s.addEventListener("mousemove", (e) => {
        for (const grid of grids) {
          const rc = grid.cellOf(e);
          if (rc) {
            s.style.cursor = grid.name === "threads" || (grid.name === "C" && cBlockHeld(rc[0], rc[1])) ? "pointer" : "";
            tip.show(hoverText(grid.name, rc[0], rc[1]), e);
            return;
          }
        }
        s.style.cursor = "";
        tip.hide();
      });
      s.addEventListener("mouseleave", () => tip.hide());
      s.addEventListener("click", (e) => {
        const c = gC.cellOf(e);
        if (c) return clickC(c[0], c[1]);
        const t = sTh.cellOf(e);
        if (t) return pin(at(A.thread_grid, t[0], t[1]));
      });
    }
    // The code panel: the kernel's lines; draw() highlights the running one(s).
    code.textContent = "";
    built.codeLines = meta.code.map(([no, text, kind]) => {
      const span = el("span", { style: "display:block", "data-kind": kind || "" }, code);
      el("span", { style: "color:#9ca3af" }, span, String(no).padStart(3, " ") + "  ");
      span.appendChild(document.createTextNode(text));
      return span;
    });
    codeNote.textContent = tr("kernels/{file} (trace-recording lines hidden); highlighted: the line(s) this step runs", { file: meta.file });
    summary.innerHTML = meta.summary;
    pres.refit();
  }

  // ---- drawing one step --------------------------------------------------------------------
  function draw() {
    if (!meta) return;
    const i = local();
    const C = meta.colours, Tn = meta.T;
    const kind = meta.kinds[at(S("kind"), i)];
    const tp = at(S("tp"), i), k = at(S("k"), i), pin = at(S("pin"), i);
    const kw0 = at(A.kwin, tp, 0), kw1 = at(A.kwin, tp, 1);
    const [m0, m1] = meta.mwin, [n0, n1] = meta.nwin;
    const mw = m1 - m0, nw = n1 - n0, kw = kw1 - kw0;
    const [ar0, ar1] = meta.a_panel, [bc0, bc1] = meta.b_panel;
    const kt0 = at(A.k_tile, tp, 0), kt1 = at(A.k_tile, tp, 1);
    const ks = pin === PIN_READ_K ? [k] : pin === PIN_READ_ALL ? [...Array(Tn).keys()] : [];

    // Global memory: panels, this phase's tiles, what moves now.
    const cA = built.colA, cB = built.colB, cC = built.colC;
    const aTile = at(S("a_tile"), i), bTile = at(S("b_tile"), i), cRect = at(S("c_rect"), i);
    // Page 03 draws the tiles whole: a cell past a matrix's edge is white, or grey where this
    // block's tile covers it (a padding zero stands in for it; in C, a ghost thread's element).
    const past = outsideOf();
    for (let r = 0; r < mw; r++) {
      const gr = m0 + r, inRow = gr >= ar0 && gr < ar1;
      for (let c = 0; c < kw; c++) {
        const gk = kw0 + c, inTile = gk >= kt0 && gk < kt1;
        cA[r * kw + c] = past.A(gr, gk) ? (inRow && inTile ? C.PADDING : C.OUTSIDE)
          : inRow ? (inTile ? aTile : C.PANEL) : C.IDLE;
      }
    }
    for (let r = 0; r < kw; r++) {
      const gk = kw0 + r, inTile = gk >= kt0 && gk < kt1;
      for (let c = 0; c < nw; c++) {
        const gc = n0 + c, inCol = gc >= bc0 && gc < bc1;
        cB[r * nw + c] = past.B(gk, gc) ? (inCol && inTile && kind !== "load_a" ? C.PADDING : C.OUTSIDE)
          : inCol ? (inTile ? bTile : C.PANEL) : C.IDLE;
      }
    }
    for (let r = 0; r < mw; r++) {
      const gr = m0 + r, inRow = gr >= ar0 && gr < ar1;
      for (let c = 0; c < nw; c++) {
        const gc = n0 + c, mine = inRow && gc >= bc0 && gc < bc1;
        cC[r * nw + c] = past.C(gr, gc) ? (mine ? C.PADDING : C.OUTSIDE) : mine ? cRect : C.IDLE;
      }
    }
    const markA = (src) => {
      const r = src[0], c = src[1];
      if (r >= 0 && r >= m0 && r < m1 && c >= kw0 && c < kw1) cA[(r - m0) * kw + (c - kw0)] = C.PINNED;
    };
    const markB = (src) => {
      const r = src[0], c = src[1];
      if (r >= 0 && r >= kw0 && r < kw1 && c >= n0 && c < n1) cB[(r - kw0) * nw + (c - n0)] = C.PINNED;
    };
    // The element a cell was copied from; for a padding zero, where the index arithmetic pointed
    // (past the edge: drawn on page 03 only).
    const aSrc = (cell) => (at(A.a_src, tp, cell, 0) < 0 && A.a_want ? [at(A.a_want, tp, cell, 0), at(A.a_want, tp, cell, 1)]
      : [at(A.a_src, tp, cell, 0), at(A.a_src, tp, cell, 1)]);
    const bSrc = (cell) => (at(A.b_src, tp, cell, 0) < 0 && A.b_want ? [at(A.b_want, tp, cell, 0), at(A.b_want, tp, cell, 1)]
      : [at(A.b_src, tp, cell, 0), at(A.b_src, tp, cell, 1)]);
    const own = at(A.store_cell, p);
    if (pin === PIN_STORE_A) markA(aSrc(own));
    if (pin === PIN_STORE_B) markB(bSrc(own));
    for (const kk of ks) {
      markA(aSrc(at(A.read_as, kk, p)));
      markB(bSrc(at(A.read_bs, kk, p)));
    }
    const cr = at(A.c_rc, p, 0), cc = at(A.c_rc, p, 1);
    if (cr >= m0 && cr < m1 && cc >= n0 && cc < n1) cC[(cr - m0) * nw + (cc - n0)] = C.PINNED;
    if (mine && mine.C && kind === "store") {  // a student's kernel: its stores, red where not the kernel's
      const mark = (r, c) => { if (r >= m0 && r < m1 && c >= n0 && c < n1) cC[(r - m0) * nw + (c - n0)] = C.HAZARD; };
      mine.C.forEach((e, q) => {
        if (!e || !e[2]) return;
        if (e[0] >= 0) mark(e[0], e[1]);            // where it stored
        if (at(A.writes, q)) mark(at(A.c_rc, q, 0), at(A.c_rc, q, 1));  // where it should have
      });
    }
    built.gA.paint(cA); built.gB.paint(cB); built.gC.paint(cC);
    // Values in small windows; C's once stored.
    if (A.a_text) built.gA.label(Array.from({ length: mw * kw }, (_, j) => {
      const r = Math.floor(j / kw), c = j % kw;
      return past.A(m0 + r, kw0 + c) ? "" : String(at(A.a_text, r, kw0 + c));
    }));
    if (A.b_text) built.gB.label(Array.from({ length: kw * nw }, (_, j) => {
      const r = Math.floor(j / nw), c = j % nw;
      return past.B(kw0 + r, n0 + c) ? "" : String(at(A.b_text, kw0 + r, c));
    }));
    if (A.c_text) built.gC.label(Array.from({ length: mw * nw }, (_, j) => (
      kind === "store" && cC[j] !== C.IDLE && !past.C(m0 + Math.floor(j / nw), n0 + (j % nw)) ? String(A.c_text.data[j]) : "")));
    if (built.kwShown !== kw0) drawLines(kw0, kw1);

    // Shared memory: what each cell of As / Bs holds after this step.
    const cAs = built.colAs, cBs = built.colBs, cTh = built.colTh;
    const asPh = at(S("as_phase"), i), bsPh = at(S("bs_phase"), i);
    const asCol = at(S("as_col"), i), bsCol = at(S("bs_col"), i);
    const tAs = new Array(Tn * Tn).fill(""), tBs = new Array(Tn * Tn).fill("");
    const full = { As: new Array(Tn * Tn).fill(""), Bs: new Array(Tn * Tn).fill("") };
    for (let cell = 0; cell < Tn * Tn; cell++) {
      const pos = at(A.cell_rc, cell, 0) * Tn + at(A.cell_rc, cell, 1);
      for (const [which, ph, col, out] of [["A", asPh, asCol, cAs], ["B", bsPh, bsCol, cBs]]) {
        if (ph < 0) { out[pos] = C.IDLE; continue; }
        const row = ph - meta.pbase;
        const src = which === "A" ? A.a_src : A.b_src;
        const r = at(src, row, cell, 0), c = at(src, row, cell, 1);
        out[pos] = r < 0 ? C.PADDING : col;
        const v = at(which === "A" ? A.a_val : A.b_val, row, cell);
        full[which === "A" ? "As" : "Bs"][pos] = show === "values" ? String(v) : r < 0 ? padText : `${which}[${r}][${c}]`;
        const yours = mine && mine[which][row * Tn * Tn + cell];
        if (yours) {  // "draw my copies": the element the student's indices copy, red where it is not the kernel's
          full[which === "A" ? "As" : "Bs"][pos] = yours[0] < 0 ? padText : `${which}[${yours[0]}][${yours[1]}]`;
          if (yours[2]) out[pos] = C.HAZARD;
        }
      }
    }
    const posOf = (cell) => at(A.cell_rc, cell, 0) * Tn + at(A.cell_rc, cell, 1);
    if (pin === PIN_STORE_A) cAs[posOf(own)] = C.PINNED;
    if (pin === PIN_STORE_B) cBs[posOf(own)] = C.PINNED;
    for (const kk of ks) {
      const pa = posOf(at(A.read_as, kk, p)), pb = posOf(at(A.read_bs, kk, p));
      if (cAs[pa] !== C.PADDING) cAs[pa] = C.PINNED;
      if (cBs[pb] !== C.PADDING) cBs[pb] = C.PINNED;
    }
    // A student's kernel: the cells the pinned thread read (its k-th read of each array in this
    // phase); where that is not the kernel's cell, both are red: the one read and the one it should have.
    const wrongRead = new Set();
    if (mine && mine.reads) {
      for (const kk of ks) {
        for (const [key, out, model] of [["A", cAs, A.read_as], ["B", cBs, A.read_bs]]) {
          const e = mine.reads[key] && mine.reads[key][(tp * Tn + kk) * Tn * Tn + p];
          if (!e || !e[1]) continue;
          const want = posOf(at(model, kk, p));
          out[want] = C.HAZARD;
          wrongRead.add(key + want);
          if (e[0] >= 0) { out[e[0]] = C.HAZARD; wrongRead.add(key + e[0]); }
        }
      }
    }
    // The block's threads: warp stripes, all arrived at a barrier, ghosts, the pinned one.
    const barrier = at(S("barrier"), i) === 1;
    const tTh = new Array(Tn * Tn).fill("");
    for (let q = 0; q < Tn * Tn; q++) {
      const pos = at(A.thread_xy, q, 1) * Tn + at(A.thread_xy, q, 0);
      cTh[pos] = barrier ? C.WAITING : at(A.warp_col, q);
      tTh[pos] = barrier ? "✓" : meta.thread_text ? `w${at(A.warp, q)}` : "";
      if (at(A.ghost, q)) { cTh[pos] = C.PADDING; tTh[pos] = ghostText; }
    }
    // Hazards of the barrier-less variants.
    const h = at(S("hz"), i);
    if (h >= 0) {
      if (at(S("hz_threads"), i)) {
        for (const kk of ks) {
          for (const [tab, read] of [[A.haz_as, A.read_as], [A.haz_bs, A.read_bs]]) {
            const cell = at(read, kk, p), w = at(A.writer, cell);
            if (at(tab, h, cell) && w !== p) cTh[at(A.thread_xy, w, 1) * Tn + at(A.thread_xy, w, 0)] = C.HAZARD;
          }
        }
      }
      for (let cell = 0; cell < Tn * Tn; cell++) {
        const pos = posOf(cell);
        if (at(A.haz_as, h, cell) && cAs[pos] !== C.PINNED) cAs[pos] = C.HAZARD;
        if (at(A.haz_bs, h, cell) && cBs[pos] !== C.PINNED) cBs[pos] = C.HAZARD;
      }
    }
    cTh[at(A.thread_xy, p, 1) * Tn + at(A.thread_xy, p, 0)] = C.PINNED;
    built.sAs.paint(cAs); built.sBs.paint(cBs); built.sTh.paint(cTh);
    const labelAll = meta.label_all || show === "values";
    for (let j = 0; j < Tn * Tn; j++) {
      tAs[j] = labelAll || cAs[j] === C.PINNED || wrongRead.has("A" + j) ? full.As[j] : "";
      tBs[j] = labelAll || cBs[j] === C.PINNED || wrongRead.has("B" + j) ? full.Bs[j] : "";
    }
    built.sAs.label(tAs); built.sBs.label(tBs); built.sTh.label(tTh);
    built.full = full;
    const sTitle = sharedTitleLines(shared, tp);
    if (built.sTitleText !== sTitle.join("\n")) {
      built.sTitleText = sTitle.join("\n");
      built.sTitle.textContent = "";
      sTitle.forEach((part, j) => svg("tspan", { x: 4, dy: j ? 14 : 0 }, built.sTitle, part));
    }

    // Label, running sum, code line, controls.
    labelMain.textContent = label(i);
    labelStep.textContent = stepText();
    sumLine.innerHTML = sumHtml(i, kind, pin, k, tp);
    for (const line of built.codeLines) line.classList.toggle("hl", line.dataset.kind === kind);
    slider.value = String(g);
    pres.drew();
  }

  // Whether a global (row, col) of A, B or C lies past the matrix's edge (page 03 draws those).
  function outsideOf() {
    const E = meta.edges;
    if (!E) return { A: () => false, B: () => false, C: () => false };
    return { A: (r, k) => r >= E.m || k >= E.k, B: (k, c) => k >= E.k || c >= E.n, C: (r, c) => r >= E.m || c >= E.n };
  }

  function drawLines(kw0, kw1) {
    const { lines, size, left, top, xC, yC } = built;
    lines.textContent = "";
    const [m0, m1] = meta.mwin, [n0, n1] = meta.nwin;
    const mw = m1 - m0, nw = n1 - n0, kw = kw1 - kw0;
    const ks = meta.lines.k.filter((v) => v >= kw0 && v <= kw1);
    const ms = meta.lines.m, ns = meta.lines.n;
    const seg = (x1, y1, x2, y2) => svg("line", { x1, y1, x2, y2 }, lines);
    for (const v of ks) {
      const d = (v - kw0) * size - 0.5;
      seg(left + d, yC, left + d, yC + mw * size);          // A: column boundaries
      seg(xC, top + d, xC + nw * size, top + d);            // B: row boundaries
    }
    for (const v of ms) {
      const d = (v - m0) * size - 0.5;
      seg(left, yC + d, left + kw * size, yC + d);          // A rows
      seg(xC, yC + d, xC + nw * size, yC + d);              // C rows
    }
    for (const v of ns) {
      const d = (v - n0) * size - 0.5;
      seg(xC + d, top, xC + d, top + kw * size);            // B columns
      seg(xC + d, yC, xC + d, yC + mw * size);              // C columns
    }
    // The edges of A, B and C inside the drawn tiles (page 03): a dark line, white past it.
    const E = meta.edges;
    if (E) {
      const edge = (x1, y1, x2, y2) => svg("line", { x1, y1, x2, y2, stroke: "#111827", "stroke-width": 2, class: "explainer-edge" }, lines);
      if (E.k > kw0 && E.k < kw1) {
        const d = (E.k - kw0) * size;
        edge(left + d, yC, left + d, yC + mw * size);
        edge(xC, top + d, xC + nw * size, top + d);
      }
      if (E.m > m0 && E.m < m1) {
        const d = (E.m - m0) * size;
        edge(left, yC + d, left + kw * size, yC + d);
        edge(xC, yC + d, xC + nw * size, yC + d);
      }
      if (E.n > n0 && E.n < n1) {
        const d = (E.n - n0) * size;
        edge(xC + d, top, xC + d, top + kw * size);
        edge(xC + d, yC, xC + d, yC + mw * size);
      }
    }
    built.axK.textContent = meta.title_k[at(S("tp"), local())];
    built.tickAk(kw0);
    built.tickBk(kw0);
    built.kwShown = kw0;
  }

  function label(i) {
    const kind = meta.kinds[at(S("kind"), i)];
    if (kind === "store") return `${meta.where} · ${meta.store_text}`;
    const k = at(S("k"), i);
    let s = `${meta.where} · ${meta.phase_text[at(S("tp"), i)]} · ${meta.words[kind]}`;
    if (kind === "compute") s += k >= 0 ? meta.k_text[k] : meta.loop_text;
    return s;
  }

  function sumHtml(i, kind, pin, k, tp) {
    const Tn = meta.T, tx = at(A.thread_xy, p, 0), ty = at(A.thread_xy, p, 1);
    const row = at(A.c_rc, p, 0), col = at(A.c_rc, p, 1);
    const idx = at(S("sum"), i);
    const total = idx < 0 ? 0 : A.sums.data[idx * Tn * Tn + p];
    let who = tr("thread (x={tx}, y={ty}) owns {cell}", { tx, ty, cell: `C[${row}][${col}]` });
    if (!at(A.writes, p)) who += tr(" (outside C: it loads and multiplies but stores nothing)");
    let detail = "";
    if (pin === PIN_READ_K) {
      const ca = at(A.read_as, k, p), cb = at(A.read_bs, k, p);
      const [ar, ac] = [at(A.a_src, tp, ca, 0), at(A.a_src, tp, ca, 1)];
      const [br, bc] = [at(A.b_src, tp, cb, 0), at(A.b_src, tp, cb, 1)];
      const a = ar < 0 ? tr("0 (padding)") : `A[${ar}][${ac}] = ${at(A.a_val, tp, ca)}`;
      const b = br < 0 ? tr("0 (padding)") : `B[${br}][${bc}] = ${at(A.b_val, tp, cb)}`;
      detail = ` · sum += As[${at(A.cell_rc, ca, 0)}][${at(A.cell_rc, ca, 1)}] × Bs[${at(A.cell_rc, cb, 0)}][${at(A.cell_rc, cb, 1)}] = ${a} × ${b}`;
    } else if (kind === "store" && at(A.writes, p)) {
      detail = tr(" · {cell} = {total} (numpy says {numpy})", { cell: `C[${row}][${col}]`, total, numpy: at(A.numpy_c, p) });
    }
    return tr("<b>Pinned</b> {who} · sum = <b>{total}</b>{detail}", { who: escapeHtml(who), total, detail: escapeHtml(detail) });
  }

  function hoverText(name, r, c) {
    const past = outsideOf(), k0 = at(A.kwin, at(S("tp"), local()), 0);
    if (name === "A") {
      const gr = meta.mwin[0] + r, gk = k0 + c;
      return `A[${gr}][${gk}]` + (past.A(gr, gk) ? tr(" · outside {name} ({shape}): a thread that loads it stores a padding zero", { name: "A", shape: `${meta.M}×${meta.K}` }) : "");
    }
    if (name === "B") {
      const gk = k0 + r, gc = meta.nwin[0] + c;
      return `B[${gk}][${gc}]` + (past.B(gk, gc) ? tr(" · outside {name} ({shape}): a thread that loads it stores a padding zero", { name: "B", shape: `${meta.K}×${meta.N}` }) : "");
    }
    if (name === "C") {
      const cell = `C[${meta.mwin[0] + r}][${meta.nwin[0] + c}]`;
      if (past.C(meta.mwin[0] + r, meta.nwin[0] + c)) {
        const who = at(A.c_owner, r, c, 2) < 0 ? "" : tr(" · its thread is a ghost (computes, stores nothing)") + (cBlockHeld(r, c) ? tr(" · click to pin it") : "");
        return tr("{cell} · outside C ({shape})", { cell, shape: `${meta.M}×${meta.N}` }) + who;
      }
      const obx = at(A.c_owner, r, c, 0), oby = at(A.c_owner, r, c, 1);
      if (cBlockHeld(r, c)) return tr("{cell} · click to pin its thread", { cell });
      return tr("{cell} · block (x={bx}, y={by}) is not held in this static page: pick a stored block", { cell, bx: obx, by: oby });
    }
    const Tn = meta.T;
    if (name === "threads") {
      const q = at(A.thread_grid, r, c);
      return tr("thread (x={tx}, y={ty}) · warp {warp} · click to pin", { tx: at(A.thread_xy, q, 0), ty: at(A.thread_xy, q, 1), warp: at(A.warp, q) });
    }
    return `${name}[${r}][${c}] = ${built.full[name][r * Tn + c] || tr("(empty)")}`;
  }

  // ---- moving -------------------------------------------------------------------------------
  function goTo(target) {
    const st = steps();
    const t = Math.max(0, Math.min(st.total - 1, Number(target) | 0));
    if (t < st.s0 || t >= st.s1) return ask({ cmd: "chunk", mode, step: t, thread: p });
    const moved = t !== g;
    g = t;
    draw();
    if (moved) flyCopy(); else fly.cancel();
  }

  // The copy this step makes, as a token flying between two cells (see motion() in common.js).
  function flyCopy() {
    fly.cancel();
    if (!meta || !built) return;
    const i = local(), kind = meta.kinds[at(S("kind"), i)], tp = at(S("tp"), i);
    const Tn = meta.T, [m0, m1] = meta.mwin, [n0, n1] = meta.nwin;
    const kw0 = at(A.kwin, tp, 0), kw1 = at(A.kwin, tp, 1);
    const own = at(A.store_cell, p), sr = at(A.cell_rc, own, 0), sc = at(A.cell_rc, own, 1);
    const b = built;
    if (kind === "load_a" || kind === "load_b") {
      const isA = kind === "load_a", src = isA ? A.a_src : A.b_src;
      const r = at(src, tp, own, 0), c = at(src, tp, own, 1);
      if (r < 0) return;  // a padding zero: nothing is read from global memory
      const inWin = isA ? r >= m0 && r < m1 && c >= kw0 && c < kw1 : r >= kw0 && r < kw1 && c >= n0 && c < n1;
      if (!inWin) return;
      const name = `${isA ? "A" : "B"}[${r}][${c}]`;
      const text = show === "values" ? String(at(isA ? A.a_val : A.b_val, tp, own)) : name;
      const from = isA ? () => b.gA.centre(r - m0, c - kw0) : () => b.gB.centre(r - kw0, c - n0);
      const to = isA ? () => b.sAs.centre(sr, sc) : () => b.sBs.centre(sr, sc);
      fly.play(from, to, text);
    } else if (kind === "store" && at(A.writes, p)) {
      const cr = at(A.c_rc, p, 0), cc = at(A.c_rc, p, 1);
      if (cr < m0 || cr >= m1 || cc < n0 || cc >= n1) return;
      const idx = at(S("sum"), i);
      const total = idx < 0 ? 0 : A.sums.data[idx * Tn * Tn + p];
      fly.play(() => b.sTh.centre(at(A.thread_xy, p, 1), at(A.thread_xy, p, 0)), () => b.gC.centre(cr - m0, cc - n0), String(total));
    }
  }

  function setMode(m) {
    if (m === mode) return;
    // Land on the same place in the program: same phase and kind (k 0 / the whole loop).
    const i = local();
    const kind = at(S("kind"), i), ph = at(S("phase"), i), k = at(S("k"), i);
    const other = meta.steps[m];
    const kinds = A[`${m}_kind`], phs = A[`${m}_phase`], kk = A[`${m}_k`];
    let target = 0;
    for (let j = 0; j < kinds.data.length; j++) {
      if (kinds.data[j] === kind && phs.data[j] === ph && (kk.data[j] <= 0 || kk.data[j] === k)) { target = j; break; }
    }
    mode = m;
    g = other.s0 + target;
    syncControls();
    draw();
  }

  function pin(q) {
    p = q;
    setError("");
    syncThread();
    draw();
  }

  function pinTyped() {
    const x = Number(ftx.value), y = Number(fty.value);
    for (let q = 0; q < meta.T * meta.T; q++) {
      if (at(A.thread_xy, q, 0) === x && at(A.thread_xy, q, 1) === y) return pin(q);
    }
    setError(tr("thread (x={tx}, y={ty}) is outside the {shape} block: {range}", { tx: ftx.value, ty: fty.value, shape: `${meta.T}x${meta.T}`, range: meta.thread_range }));
    syncThread();
  }

  function clickC(r, c) {
    const obx = at(A.c_owner, r, c, 0), oby = at(A.c_owner, r, c, 1), q = at(A.c_owner, r, c, 2);
    if (q < 0) return;
    if (obx === meta.block[0] && oby === meta.block[1]) return pin(q);
    ask({ cmd: "block", block: [obx, oby], thread: q, step: g, mode });
  }

  // What is typed and not yet applied.
  function typedChanges() {
    if (!meta) return { launch: false, block: false };
    const same = (f, v) => f.value.trim() === String(v);
    return {
      launch: !(same(fM, meta.M) && same(fN, meta.N) && same(fK, meta.K) && same(fT, meta.T)),
      block: !(same(fbx, meta.block[0]) && same(fby, meta.block[1])),
    };
  }

  function apply() {
    const { launch, block } = typedChanges();
    if (launch) {
      const msg = { cmd: "launch", M: fM.value, N: fN.value, K: fK.value, T: fT.value, mode };
      if (block) msg.block = [fbx.value, fby.value];
      ask(msg);
    } else if (block) {
      ask({ cmd: "block", block: [fbx.value, fby.value], thread: p, step: g, mode, typed: true });
    }
  }

  // A request only Python can answer (a new launch, block or chunk).
  function ask(msg) {
    askPython(model, msg, {
      busy: () => { labelStep.textContent = tr("computing…"); },
      loaded: () => { setError(""); load(); },
      missing: (note) => { setError(`${note}${storedHint(msg)}`); syncControls(); giveUp(); },
    });
  }

  // Static pages: what the page does hold, after the line that says a request needs the live app.
  function storedHint(msg) {
    const store = model.get("store");
    if (!store || !store.blocks) return "";
    if (msg.cmd === "launch") {
      const held = store.launches();
      return held.length ? tr(" Launches held here: {list}.", { list: held.join("; ") }) : "";
    }
    if (msg.cmd === "block") {
      const held = store.blocks();
      return held ? tr(" Blocks held for this launch: {list}.", { list: held.blocks.map(([x, y]) => `(${x}, ${y})`).join(", ") }) : "";
    }
    return "";
  }

  function setError(text) {
    errorLine.textContent = text ? `⚠ ${text}` : "";
  }

  // ---- controls mirror the state ----------------------------------------------------------
  function syncThread() {
    ftx.value = String(at(A.thread_xy, p, 0));
    fty.value = String(at(A.thread_xy, p, 1));
  }

  function syncControls() {
    fM.value = String(meta.M); fN.value = String(meta.N); fK.value = String(meta.K); fT.value = String(meta.T);
    fbx.value = String(meta.block[0]); fby.value = String(meta.block[1]);
    applier.refresh();
    syncThread();
    syncStoredBlocks();
    const st = steps();
    slider.max = String(st.total - 1);
    slider.value = String(g);
    tMode.set(mode === "k" ? "one k per step" : "whole loop");
    const presets = model.get("presets") || [];
    const current = meta.preset || "(custom)";
    if (presetSel.options.length !== presets.length + 1) {
      presetSel.textContent = "";
      // a preset's name is its key; its text, the reader's language (the view's i18n strings carry it)
      for (const name of ["(custom)", ...presets]) el("option", { value: name }, presetSel, name === "(custom)" ? tr("(custom)") : tr(name));
    }
    presetSel.value = presets.includes(current) ? current : "(custom)";
    const kernels = model.get("kernels") || [];
    kernelLab.style.display = kernels.length > 1 ? "" : "none";
    if (kernelSel.options.length !== kernels.length) {
      kernelSel.textContent = "";
      for (const name of kernels) el("option", { value: name }, kernelSel, name);
    }
    if (kernels.includes(meta.kernel)) kernelSel.value = meta.kernel;
  }

  // "Your turn": the student's expressions (parsed by yourturn.js) for every thread of this block,
  // every phase the payload holds and every k, against what the model sent: the C element each
  // thread owns (c_rc), the element each copies in each phase (a_src / b_src; for a padding zero
  // the index it names, a_want / b_want), the cells each reads at step k (read_as / read_bs).
  function compareTyped(e) {
    const Tn = meta.T, [bx, by] = meta.block, nph = A.a_src.shape[0];
    const who = (q) => tr("thread (x={tx}, y={ty})", { tx: at(A.thread_xy, q, 0), ty: at(A.thread_xy, q, 1) });
    const env = (q, t, k) => {
      const tx = at(A.thread_xy, q, 0), ty = at(A.thread_xy, q, 1);
      const v = { "blockIdx.x": bx, "blockIdx.y": by, "threadIdx.x": tx, "threadIdx.y": ty, "blockDim.x": Tn, "blockDim.y": Tn,
                  "gridDim.x": meta.grid[0], "gridDim.y": meta.grid[1], tx, ty, TILE: Tn, M: meta.M, N: meta.N, K: meta.K, t, k };
      v.row = evalIndex(e.row, v);
      v.col = evalIndex(e.col, v);
      return v;
    };
    const NOUNS = { thread: [tr("{n} thread"), tr("{n} threads")], copy: [tr("{n} copy"), tr("{n} copies")],
                    phase: [tr("{n} phase"), tr("{n} phases")], read: [tr("{n} read"), tr("{n} reads")] };
    const count = (n, what) => NOUNS[what][n === 1 ? 0 : 1].replace("{n}", n.toLocaleString("en-US"));
    const lines = [];
    // row and col: the C element each thread owns
    for (const [id, axis] of [["row", 0], ["col", 1]]) {
      let wrong = 0, first = null;
      for (let q = 0; q < Tn * Tn; q++) {
        const got = env(q, meta.pbase, 0)[id], want = at(A.c_rc, q, axis);
        if (got !== want) { wrong++; if (!first) first = tr("{who}: yours {got}, the kernel's {want}", { who: who(q), got, want }); }
      }
      lines.push({ id, ok: !wrong, text: wrong ? tr("{id}: {wrong} of {all} wrong; {first}", { id, wrong: count(wrong, "thread"), all: (Tn * Tn).toLocaleString("en-US"), first })
        : tr("{id}: right for all {n} threads", { id, n: Tn * Tn }) });
    }
    // the copies into As and Bs, phase by phase
    const copies = { A: new Array(nph * Tn * Tn), B: new Array(nph * Tn * Tn) };
    for (const [which, ids, src, want] of [["A", ["a_r", "a_c"], A.a_src, A.a_want], ["B", ["b_r", "b_c"], A.b_src, A.b_want]]) {
      let wrong = 0, first = null;
      for (let tp = 0; tp < nph; tp++) {
        for (let q = 0; q < Tn * Tn; q++) {
          const v = env(q, meta.pbase + tp, 0), cell = at(A.store_cell, q);
          const r = evalIndex(e[ids[0]], v), c = evalIndex(e[ids[1]], v);
          const pad = at(src, tp, cell, 0) < 0;
          const wr = pad ? at(want, tp, cell, 0) : at(src, tp, cell, 0), wc = pad ? at(want, tp, cell, 1) : at(src, tp, cell, 1);
          const bad = r !== wr || c !== wc;
          copies[which][tp * Tn * Tn + cell] = [r, c, bad];
          if (bad) {
            wrong++;
            if (!first) first = tr("{who}, phase t = {t}: yours {mine}, the kernel's {theirs}", { who: who(q), t: meta.pbase + tp, mine: `${which}[${r}][${c}]`, theirs: `${which}[${wr}][${wc}]` })
              + (pad ? tr(" (past {name}'s edge: a padding zero)", { name: which }) : "");
          }
        }
      }
      const text = `${which}s[ty][tx] = ${which}[…][…]: ` + (wrong ? tr("{wrong} of {all} wrong; {first}", { wrong: count(wrong, "copy"), all: (nph * Tn * Tn).toLocaleString("en-US"), first })
        : tr("right for all {n} threads in {phases}", { n: Tn * Tn, phases: count(nph, "phase") }));
      lines.push({ id: ids[0], also: ids[1], ok: !wrong, text });
    }
    // the reads of the compute loop, k = 0..T-1
    for (const [which, ids, read] of [["As", ["as_r", "as_c"], A.read_as], ["Bs", ["bs_r", "bs_c"], A.read_bs]]) {
      let wrong = 0, first = null;
      for (let k = 0; k < Tn; k++) {
        for (let q = 0; q < Tn * Tn; q++) {
          const v = env(q, meta.pbase, k), cell = at(read, k, q);
          const r = evalIndex(e[ids[0]], v), c = evalIndex(e[ids[1]], v);
          const wr = at(A.cell_rc, cell, 0), wc = at(A.cell_rc, cell, 1);
          if (r !== wr || c !== wc) {
            wrong++;
            if (!first) first = tr("{who}, k = {k}: yours {mine}, the kernel's {theirs}", { who: who(q), k, mine: `${which}[${r}][${c}]`, theirs: `${which}[${wr}][${wc}]` });
          }
        }
      }
      const text = `sum += …${which}[…][…]: ` + (wrong ? tr("{wrong} of {all} wrong; {first}", { wrong: count(wrong, "read"), all: (Tn * Tn * Tn).toLocaleString("en-US"), first })
        : tr("right for all {n} threads at every k", { n: Tn * Tn }));
      lines.push({ id: ids[0], also: ids[1], ok: !wrong, text });
    }
    return { lines, A: copies.A, B: copies.B };
  }

  function syncStoredBlocks() {
    const store = model.get("store");
    const held = !model.get("live") && store && store.blocks ? store.blocks() : null;
    storedLab.style.display = held ? "" : "none";
    storedNote.textContent = "";
    if (!held) return;
    storedSel.textContent = "";
    for (const [x, y, place] of held.blocks) {
      el("option", { value: `${x},${y}` }, storedSel, `(x=${x}, y=${y}) · ${place}`);
    }
    storedSel.value = `${meta.block[0]},${meta.block[1]}`;
    storedNote.textContent = tr("{n} of {all} blocks in this page", { n: held.blocks.length, all: held.all.toLocaleString("en-US") });
  }

  // Static pages: whether a C cell's block can be shown (the current block, or one stored).
  function cBlockHeld(r, c) {
    const obx = at(A.c_owner, r, c, 0), oby = at(A.c_owner, r, c, 1);
    if (at(A.c_owner, r, c, 2) < 0) return false;
    if (obx === meta.block[0] && oby === meta.block[1]) return true;
    const store = model.get("store");
    return model.get("live") || !store || !store.hasBlock || store.hasBlock(obx, oby);
  }

  // ---- wiring -----------------------------------------------------------------------------
  storedSel.addEventListener("change", () => {
    const [x, y] = storedSel.value.split(",").map(Number);
    ask({ cmd: "block", block: [x, y], thread: p, step: g, mode });
  });
  bFirst.addEventListener("click", () => goTo(0));
  bPrev.addEventListener("click", () => goTo(g - 1));
  bNext.addEventListener("click", () => goTo(g + 1));
  bLast.addEventListener("click", () => goTo(steps().total - 1));
  slider.addEventListener("input", () => goTo(slider.value));
  presetSel.addEventListener("change", () => {
    if (presetSel.value !== "(custom)") ask({ cmd: "preset", name: presetSel.value, mode });
  });
  kernelSel.addEventListener("change", () => ask({ cmd: "kernel", name: kernelSel.value, thread: p, mode }));
  speed.addEventListener("input", () => { speedOut.textContent = speed.value; });
  function tick() {
    if (!playing) return;
    if (g >= steps().total - 1) return stop();
    goTo(g + 1);
    playing = setTimeout(tick, Number(speed.value));
  }
  function stop() {
    clearTimeout(playing);
    playing = null;
    bPlay.textContent = tr("▶ Play");
    bPlay.classList.remove("on");
  }
  bPlay.addEventListener("click", () => {
    if (playing) return stop();
    if (g >= steps().total - 1) goTo(0);
    bPlay.textContent = tr("❚❚ Pause");
    bPlay.classList.add("on");
    playing = setTimeout(tick, Number(speed.value));
  });
  const unkey = arrowKeys((d) => goTo(g + d), root);

  // a new payload means the last input succeeded (Python clears its error with it): clear the line too
  model.on("change:rev", () => { load(); setError(model.get("error")); });
  model.on("msg:custom", (msg) => {
    if (msg && msg.error != null) {
      setError(msg.error);
      giveUp();
      if (meta) { syncControls(); labelStep.textContent = stepText(); }
    }
    if (msg && msg.go != null) goTo(msg.go);
    if (msg && msg.pin != null) pin(msg.pin);
    // a student's kernel as the simulator ran it (explainer.views.stepper.TiledStepper.show_student):
    // its copies into As / Bs for this block, red where they are not the kernel's (null: none)
    if (msg && msg.mine !== undefined) { mine = msg.mine; draw(); }
  });
  load();
  setError(model.get("error"));
  pres.fromUrl();

  function grids() {
    return { A: built.gA, B: built.gB, C: built.gC, As: built.sAs, Bs: built.sBs, threads: built.sTh };
  }

  // For tests and the benchmark: what is drawn, read back from the view itself.
  root.explainerView = {
    colours: (name) => {
      const grid = built && grids()[name];
      if (!grid) return null;
      return Array.from({ length: grid.rows }, (_, r) => Array.from(grid.colour.slice(r * grid.cols, (r + 1) * grid.cols)));
    },
    hover: (name, r, c) => hoverText(name, r, c),
    centre: (name, r, c) => grids()[name].centre(r, c),
    state: () => ({ step: g, mode, thread: p, block: meta && meta.block, kernel: meta && meta.kernel }),
    present: pres,
    token: () => fly.active(),
    show: (target, done = () => {}) => { goal = { ...target, done }; reach(); },
  };
  return () => { stop(); unkey(); fly.cancel(); pres.leave(); };
}

export default { render: createTiledView };
