// Kernel 17's hand-over of stages (page 09; explainer/views/handover.py computes every step from
// explainer.model.hopper.schedule). Each step: which role acted (producer, the TMA's copy engine,
// consumer 1 or 2) and on which line, every stage's phase and state, both mbarriers of every stage
// (phase bit, arrivals, bytes still to land), what each role is doing, and what the step
// guarantees. Stepping is a lookup here (buttons, the slider); nothing is asked of Python.

function createHandoverView({ model, el: host }) {
  learnStrings(model);
  injectCss();
  const root = el("div", { class: "explainer-handover explainer-view" }, host);
  let meta = null, step = 0;

  const ctl = stepControls(root, "explainer-handover", (s) => { step = s; draw(); });
  const label = ctl.label;
  const actors = el("div", { class: "explainer-handover-actors", style: "display:flex;gap:8px;margin:8px 0;flex-wrap:wrap" }, root);
  const stages = el("div", { class: "explainer-handover-stages", style: "display:flex;gap:10px;margin:8px 0;flex-wrap:wrap" }, root);
  const text = el("div", { class: "explainer-handover-text", style: "font-size:14px;max-width:900px;margin:6px 0" }, root);
  const code = el("pre", { class: "explainer-code explainer-handover-code" }, root);
  const legend = el("div", { class: "ex-note" }, root);
  const caption = el("div", { class: "ex-note" }, root);

  const load = () => loadSteps(model, (m) => { meta = m; }, ctl, legend, caption);

  function draw() {
    const s = meta.steps[step];
    label.textContent = `${tr("step {i} / {n}", { i: step + 1, n: meta.steps.length })} · ${meta.actors[s.actor]}` +
      (s.phase >= 0 ? ` · ${countText("phase t", s.phase, meta.phases)}` : "") + (s.waits ? ` · ${tr("waits")}` : "");
    actors.textContent = "";
    meta.actors.forEach((name, a) => {
      const acting = a === s.actor, waiting = s.waiting[a];
      const box = el("div", { class: "explainer-handover-actor", "data-acting": String(acting),
        style: `min-width:150px;padding:4px 8px;border:${acting ? "2px solid #111827" : "1px solid #9ca3af"};` +
               `border-radius:4px;background:${waiting ? "#fef3c7" : "#ffffff"}` }, actors);
      el("div", { style: "font-weight:600" }, box, name);
      el("div", { style: "font-size:12px" }, box, s.doing[a]);
    });
    stages.textContent = "";
    s.holds.forEach((ph, b) => {
      const box = el("div", { class: "explainer-handover-stage", "data-state": String(s.state[b]),
        style: `min-width:170px;padding:6px 8px;border:${b === s.stage ? "2px solid #111827" : "1px solid #9ca3af"};` +
               `border-radius:4px;background:${meta.palette[s.state[b]]}` }, stages);
      el("div", { style: "font-weight:600" }, box, `${countText("stage", b, meta.stages)}: ` +
        (ph < 0 ? tr("(empty)") : countText("phase t", ph, meta.phases)));
      el("div", { style: "font-size:12px" }, box, meta.states[s.state[b]]);
      el("div", { class: "explainer-handover-full", style: "font-size:12px;margin-top:4px" }, box,
        tr("full[{b}]: phase bit {bit} · arrived {n}/{total} · {bytes} B to land", { b, bit: s.full_done[b] % 2,
          n: s.full_arrived[b], total: meta.full_arrivals, bytes: s.full_bytes[b].toLocaleString("en") }));
      el("div", { class: "explainer-handover-empty", style: "font-size:12px" }, box,
        tr("empty[{b}]: phase bit {bit} · arrived {n}/{total}", { b, bit: s.empty_done[b] % 2,
          n: s.empty_arrived[b], total: meta.empty_arrivals }));
    });
    text.textContent = s.text;
    code.innerHTML = listingHtml(meta.code, s.code) + (s.code.length || s.line !== "land" ? ""
      : "\n      " + escapeHtml(tr("(the copy engine: no thread runs a line for this step)")));
  }

  model.on("change:rev", load);
  load();
  root.explainerView = {
    state: () => ({ step, actor: meta && meta.steps[step].actor, line: meta && meta.steps[step].line,
                    phase: meta && meta.steps[step].phase }),
    stages: () => meta && meta.steps[step].state.slice(),
    barriers: () => meta && { full: meta.steps[step].full_done.map((d) => d % 2),
                              empty: meta.steps[step].empty_done.map((d) => d % 2) },
  };
  return () => {};
}

export default { render: createHandoverView };
