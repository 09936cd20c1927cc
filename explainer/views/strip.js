// V1 against V2 stepped side by side (page 02; explainer/views/strip.py sends what is shown, from
// explainer.model.strip_steps). Left: V1's whole strips (T x K of A, K x T of B), each cell filled
// from the step the model says writes it; right: V2's T x T windows, the window of the step's
// phase. The same cell size on both sides, so the sizes compare at a glance. Stepping is a lookup
// here; another launch or block is asked of Python ({cmd: "kernel", name: "M,N,K,T,bx,by"}; a
// static page's keyed store answers for the presets' blocks).

function createStripView({ model, el: host }) {
  injectCss();
  learnStrings(model);
  const root = el("div", { class: "explainer-strip explainer-view" }, host);
  const tip = tooltip(root);
  let meta = null;

  const pickRow = el("div", { class: "ex-row" }, root);
  const presetLab = el("label", { class: "ex-field" }, pickRow);
  el("span", {}, presetLab, tr("launch"));
  const presetSel = el("select", { class: "explainer-strip-preset", "aria-label": tr("launch") }, presetLab);
  const blockLab = el("label", { class: "ex-field" }, pickRow);
  el("span", {}, blockLab, tr("block"));
  const blockSel = el("select", { class: "explainer-strip-block", "aria-label": tr("block") }, blockLab);
  const typeRow = el("div", { class: "ex-row" }, root);
  const fields = ["M", "N", "K", "T"].map((name) => {
    const lab = el("label", { class: "ex-field" }, typeRow);
    el("span", {}, lab, name);
    return el("input", { type: "number", min: "1", class: "ex-num", "data-field": name, style: "width:60px" }, lab);
  });
  const apply = applyControl(typeRow, fields, {
    changed: () => meta && fields.some((f, i) => Number(f.value) !== meta.launch[i]),
    apply: () => ask(fields.map((f) => f.value.trim()).join(",") + ",0,0"),
  });
  const errorLine = el("div", { class: "ex-error explainer-error", role: "status" }, root);
  const ctl = stepControls(root, "explainer-strip", draw);
  const title = el("div", { class: "explainer-strip-title", style: "font-size:16px;font-weight:600;padding:4px 0" }, root);
  const panels = el("div", { style: "display:flex;gap:28px;align-items:flex-start;flex-wrap:wrap" }, root);
  const countsRow = el("div", { class: "explainer-strip-countsrow", style: "display:flex;gap:28px;flex-wrap:wrap" }, root);
  const sides = ["v1", "v2"].map((k) => {
    const box = el("div", { class: `explainer-strip-${k}`, style: "max-width:600px" }, panels);
    const name = el("div", { style: "font-weight:600;font-size:14px" }, box);
    const text = el("div", { class: "explainer-strip-text", style: "font-size:13px;min-height:36px;color:#374151" }, box);
    const fig = svg("svg", { class: "explainer-strip-fig", style: "display:block" },
      el("div", { class: "ex-fig explainer-strip-figbox" }, el("div", {}, box)));
    const countBox = el("div", { style: "min-width:300px" }, countsRow);
    const countName = el("div", { style: "font-weight:600;font-size:13px" }, countBox);
    const counts = el("table", { class: "explainer-strip-counts", style: "font-size:13px" }, countBox);
    return { key: k, box, name, text, fig, counts, countName, cells: [] };
  });
  const legend = el("div", { class: "ex-legend-line", style: "font-size:12px;margin:6px 0" }, root);
  const caption = el("div", { class: "ex-note explainer-strip-caption" }, root);

  const pres = presenter({
    root, where: pickRow, head: [pickRow, ctl.label.parentNode], label: [title], figs: sides.map((s) => s.fig.parentNode.parentNode),
    foot: [countsRow, legend, errorLine],
    keys: { next: () => ctl.go(ctl.step + 1), prev: () => ctl.go(ctl.step - 1), first: () => ctl.go(0),
            last: () => ctl.go(meta.steps.length - 1) },
  });

  presetSel.addEventListener("change", () => ask(presetSel.value));
  blockSel.addEventListener("change", () => ask(blockSel.value));

  function setError(msg) { errorLine.textContent = msg || ""; }

  function ask(key) {
    askPython(model, { cmd: "kernel", name: key }, {
      busy: () => setError(tr("computing…")),
      loaded: () => load(),
      missing: (note) => { setError(note); if (meta) { presetSel.value = presetKey(); blockSel.value = meta.key; } },
    });
  }

  function presetKey() {
    const hit = meta.presets.find(([k]) => k.split(",").slice(0, 4).join(",") === meta.launch.join(","));
    return hit ? hit[0] : "";
  }

  function load() {
    const m = model.get("meta");
    if (!m || !m.steps) return;
    meta = m;
    setError(model.get("error"));
    presetSel.textContent = "";
    if (!presetKey()) el("option", { value: "" }, presetSel, meta.launch.map((v, i) => `${"MNKT"[i]}=${v}`).join(" "));
    for (const [key, label] of meta.presets) el("option", { value: key }, presetSel, label);
    presetSel.value = presetKey();
    blockSel.textContent = "";
    const [gx, gy] = meta.grid;
    const base = meta.launch.join(",");
    for (let by = 0; by < gy; by++) {
      for (let bx = 0; bx < gx; bx++) {
        el("option", { value: `${base},${bx},${by}` }, blockSel, tr("block (x={bx}, y={by})", { bx, by }));
      }
    }
    blockSel.value = meta.key;
    fields.forEach((f, i) => { f.value = String(meta.launch[i]); });
    apply.refresh();
    legend.innerHTML = ["empty", "pad", "a", "b"].map((k, i) => swatch(meta.palette[k], meta.states[i])).join("") +
      ` <span style="outline:2px solid #111;padding:0 4px">${escapeHtml(meta.states[4])}</span>`;
    caption.textContent = meta.caption;
    for (const s of sides) { s.name.textContent = meta.names[s.key]; s.countName.textContent = meta.names[s.key]; }
    build();
    ctl.reset(meta.steps.length);
    pres.refit();
    requestAnimationFrame(() => pres.refit());  // (sizes are known once the view is on the page)
  }

  // One SVG per kernel: its A tile above, its B tile below, at the same cell size on both sides.
  function build() {
    const [, , K, T] = meta.launch;
    const size = Math.max(5, Math.min(22, Math.floor(520 / Math.max(K, T))));
    const pad = 16;
    for (const s of sides) {
      const [aw, ah] = s.key === "v1" ? [K, T] : [T, T];
      const [bw, bh] = s.key === "v1" ? [T, K] : [T, T];
      // both figures as tall as V1's (T + K rows), so that a presenter's scaling keeps one cell size
      const W = Math.max(aw, bw) * size + 2, H = (T + K) * size + 2 * pad + 8;
      s.fig.setAttribute("width", W);
      s.fig.setAttribute("height", H);
      s.fig.parentNode.style.width = `${W}px`;  // the .ex-fig box the presenter scales
      s.fig.parentNode.style.height = `${H}px`;
      s.fig.textContent = "";
      s.cells = [];
      const grids = [["As", aw, ah, pad], ["Bs", bw, bh, pad + ah * size + pad + 8]];
      for (const [name, w, h, top] of grids) {
        svg("text", { x: 1, y: top - 4, class: "ex-axis", "font-size": "12" }, s.fig,
          `${name} (${h}×${w}, ${(h * w * 4).toLocaleString("en-US")} B)`);
        for (let r = 0; r < h; r++) {
          for (let c = 0; c < w; c++) {
            const rect = svg("rect", { x: 1 + c * size, y: top + r * size, width: size - 1, height: size - 1,
              stroke: "#9ca3af", "stroke-width": "0.5" }, s.fig);
            const cell = { rect, name, r, c };
            rect.addEventListener("mousemove", (e) => tip.show(cellText(s.key, cell), e));
            rect.addEventListener("mouseleave", () => tip.hide());
            s.cells.push(cell);
          }
        }
      }
    }
  }

  // The global element a cell holds at step `step` (-2: not written yet), and whether it was written in it.
  function cellState(side, cell, step) {
    if (side === "v1") {
      const src = cell.name === "As" ? meta.v1.a : meta.v1.b;
      const at = cell.name === "As" ? meta.v1.a_at : meta.v1.b_at;
      const when = at[cell.r][cell.c];
      return when > step ? [-2, false] : [src[cell.r][cell.c], when === step];
    }
    const p = meta.v2.phase_of_step[step];
    if (p < 0) return [-2, false];
    const src = cell.name === "As" ? meta.v2.a : meta.v2.b;
    return [src[p][cell.r][cell.c], meta.steps[step].kind === "loop"];
  }

  function cellText(side, cell) {
    const [id] = cellState(side, cell, ctl.step);
    const where = `${cell.name}[${cell.r}][${cell.c}]`;
    if (id === -2) return `${where}: ${meta.states[0]}`;
    if (id === meta.pad) return `${where}: ${meta.states[1]}`;
    return `${where} = ${(cell.name === "As" ? meta.labels_a : meta.labels_b)[String(id)]}`;
  }

  function draw(step) {
    if (!meta) return;
    const st = meta.steps[step];
    title.textContent = st.title;
    for (const s of sides) {
      s.text.textContent = st[`${s.key}_text`];
      for (const cell of s.cells) {
        const [id, fresh] = cellState(s.key, cell, step);
        const colour = id === -2 ? meta.palette.empty : id === meta.pad ? meta.palette.pad
          : cell.name === "As" ? meta.palette.a : meta.palette.b;
        cell.rect.setAttribute("fill", colour);
        cell.rect.setAttribute("stroke", fresh ? "#111" : "#9ca3af");
        cell.rect.setAttribute("stroke-width", fresh ? "1.5" : "0.5");
        cell.rect.dataset.state = id === -2 ? "empty" : id === meta.pad ? "pad" : "element";
      }
      const bytes = meta[s.key].bytes;
      const rows = [[meta.counts.loads, st.loads.toLocaleString("en-US")],
        [meta.counts.barriers, String(st[`${s.key}_barriers`])],
        [meta.counts.fma, String(st[`${s.key}_fma`])],
        [meta.counts.shared, `${bytes.toLocaleString("en-US")} B` + (s.key === "v1"
          ? ` (${meta.counts.filled}: ${st.v1_filled.toLocaleString("en-US")} B)` : "")]];
      s.counts.innerHTML = rows.map(([k, v]) => `<tr><td style="padding-right:10px">${escapeHtml(k)}</td>` +
        `<td class="explainer-strip-${s.key}-count"><b>${escapeHtml(v)}</b></td></tr>`).join("");
    }
    ctl.label.textContent = countText(tr("step"), step, meta.steps.length);
    pres.drew();
  }

  model.on("change:rev", () => load());
  model.on("msg:custom", (msg) => {
    if (msg && msg.error != null) {
      setError(msg.error);
      if (meta) { presetSel.value = presetKey(); blockSel.value = meta.key; }
    }
  });
  load();
  setError(model.get("error"));
  pres.fromUrl();

  root.explainerView = {
    state: () => ({ step: ctl.step, steps: meta && meta.steps.length, key: meta && meta.key }),
    filled: (side, name) => sides.find((s) => s.key === side).cells
      .filter((c) => c.name === name && c.rect.dataset.state !== "empty").length,
    go: (s) => ctl.go(s),
  };
  return () => { tip.hide(); pres.leave(); };
}

export default { render: createStripView };
