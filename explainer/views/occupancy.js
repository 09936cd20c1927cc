// The occupancy calculator of an exported static page (explainer/views/perf.py computes what it shows).
//
// Python ran explainer.model.hardware.occupancy for every architecture preset and every value the
// menus offer, and sent the answers as tables (occupancy_table): for each combination an outcome
// (blocks per SM and the limiting resource, or the model's one-line refusal), and the rest of the
// answer by what it depends on (resident warps / threads / occupancy per threads and blocks, the
// blocks each resource alone allows). This module looks the answer up and writes it as the live
// calculator does (perf.occupancy_html); it computes nothing.

function createOccupancyView({ model, el: host }) {
  learnStrings(model);
  injectCss();
  const root = el("div", { class: "explainer-occupancy explainer-view" }, host);
  const meta = model.get("meta");
  const A = unpack(meta.arrays, model.get("buf"));
  const first = meta.initial || {};

  function menu(parent, title, cls, options, value) {
    const lab = el("label", { class: "ex-field" }, parent);
    el("span", {}, lab, title);
    const sel = el("select", { class: cls, "aria-label": title }, lab);
    for (const [v, text] of options) el("option", { value: String(v) }, sel, text);
    sel.value = String(value);
    sel.addEventListener("change", update);
    return sel;
  }

  const row1 = el("div", { class: "ex-row" }, root);
  const fArch = menu(row1, tr("architecture"), "explainer-occ-arch", meta.arches, first.arch);
  const row2 = el("div", { class: "ex-row" }, root);
  const fields = {
    threads: menu(row2, tr("threads / block"), "explainer-occ-threads", meta.threads.map((v) => [v, String(v)]), first.threads),
    smem: menu(row2, tr("shared bytes / block"), "explainer-occ-smem", meta.smem.map((v) => [v, String(v)]), first.smem),
    regs: menu(row2, tr("registers / thread (0: ignore)"), "explainer-occ-regs",
               meta.regs.map((v) => [v, v === 0 ? tr("0 (ignore)") : String(v)]), first.regs),
  };
  const TITLES = { threads: tr("threads / block"), smem: tr("shared bytes / block"), regs: tr("registers / thread") };
  el("div", { class: "ex-note explainer-occupancy-offer" }, root, meta.offer);
  const errorLine = el("div", { class: "ex-error explainer-error", role: "status" }, root);
  const out = el("div", { class: "explainer-occupancy-out" }, root);
  let shown = false;

  // The position of `value` (a menu's text) in the offered values, or -1.
  const position = (values, value) => values.map(String).indexOf(String(value).trim());

  function refuse(text) {
    errorLine.textContent = `⚠ ${text}${shown ? meta.kept : ""}`;
  }

  function update() {
    const a = meta.arches.findIndex(([k]) => k === fArch.value);
    const ix = {};
    for (const [k, sel] of Object.entries(fields)) {
      ix[k] = position(meta[k], sel.value);
      if (ix[k] < 0) {
        const values = meta[k].join(", ");
        return refuse(meta.refuse.replace("{field}", TITLES[k]).replace("{value}", sel.value || tr("(none)")).replace("{values}", values));
      }
    }
    if (a < 0) return refuse(meta.refuse.replace("{field}", tr("architecture")).replace("{value}", fArch.value)
      .replace("{values}", meta.arches.map(([k]) => k).join(", ")));
    const outcome = meta.outcomes[a][at(A.cell, a, ix.threads, ix.smem, ix.regs)];
    if (typeof outcome === "string") return refuse(outcome);
    const [blocks, limiter] = outcome;
    errorLine.textContent = "";
    const limits = {
      threads: at(A.lim_threads, a, ix.threads),
      blocks: at(A.lim_blocks, a),
      shared: at(A.lim_shared, a, ix.smem),
      registers: at(A.lim_regs, a, ix.threads, ix.regs),
    };
    const { td, th } = meta.styles;
    const rows = meta.resources.filter((r) => limits[r] >= 0).map((r) =>
      "<tr>" + [meta.names[r], limits[r], r === limiter ? tr("◀ limiter") : ""]
        .map((c) => `<td style='${td}'>${escapeHtml(c)}</td>`).join("") + "</tr>");
    const head = [tr("resource"), tr("blocks it allows"), ""].map((c) => `<th style='${th}'>${escapeHtml(c)}</th>`).join("");
    // the same msgid as views/perf.py's RESULT_LINE
    out.innerHTML =
      "<div style='font-size:15px;margin:4px 0'>" +
      tr("<b>{blocks} block(s) per SM</b> = {warps} warps = {threads} threads; occupancy <b>{percent}</b>; limited by <b>{resource}</b>.", {
        blocks, warps: at(A.warps, a, ix.threads, blocks), threads: at(A.active, a, ix.threads, blocks),
        percent: `${at(A.percent, a, ix.threads, blocks)}%`, resource: escapeHtml(meta.names[limiter]) }) + "</div>" +
      `<table class='' style='font-size:13px;border-collapse:collapse;margin:4px 0'><tr>${head}</tr>${rows.join("")}` +
      `<caption style='caption-side:bottom;font-size:12px;color:#4b5563;text-align:left'>${escapeHtml(meta.caption)}</caption></table>`;
    shown = true;
  }

  update();
  root.explainerView = {
    // The menus' values (tests set them through the menus).
    state: () => ({ arch: fArch.value, ...Object.fromEntries(Object.entries(fields).map(([k, s]) => [k, s.value])) }),
  };
  return () => {};
}

export default { render: createOccupancyView };
