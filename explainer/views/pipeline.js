// Kernel 16's copy pipeline (page 09; explainer/views/pipeline.py computes every step from
// explainer.model.mma.pipeline). Each step: the kernel line it runs, the phase each shared buffer
// holds or is receiving and its state, the phases still in flight, and what the line guarantees.
// Stepping is a lookup here (buttons, the slider); nothing is asked of Python.

function createPipelineView({ model, el: host }) {
  learnStrings(model);
  injectCss();
  const root = el("div", { class: "explainer-pipeline explainer-view" }, host);
  let meta = null, step = 0;

  const ctl = stepControls(root, "explainer-pipeline", (s) => { step = s; draw(); });
  const label = ctl.label;
  const buffers = el("div", { class: "explainer-pipeline-buffers", style: "display:flex;gap:10px;margin:8px 0" }, root);
  const flight = el("div", { class: "explainer-pipeline-flight", style: "font-size:13px" }, root);
  const text = el("div", { class: "explainer-pipeline-text", style: "font-size:14px;max-width:900px;margin:6px 0" }, root);
  const code = el("pre", { class: "explainer-code explainer-pipeline-code" }, root);
  const legend = el("div", { class: "ex-note" }, root);
  const caption = el("div", { class: "ex-note" }, root);

  const load = () => loadSteps(model, (m) => { meta = m; }, ctl, legend, caption);

  function draw() {
    const s = meta.steps[step];
    label.textContent = tr("step {i} / {n}", { i: step + 1, n: meta.steps.length }) +
      (s.phase >= 0 ? ` · ${countText("phase t", s.phase, meta.phases)}` : ` · ${tr("prologue")}`);
    buffers.textContent = "";
    s.holds.forEach((ph, b) => {
      const box = el("div", { class: "explainer-pipeline-buffer", "data-state": String(s.state[b]),
        style: `min-width:150px;padding:6px 8px;border:1px solid #9ca3af;border-radius:4px;background:${meta.palette[s.state[b]]}` }, buffers);
      el("div", { style: "font-weight:600" }, box, countText("buffer", b, meta.stages));
      el("div", {}, box, ph < 0 ? tr("(empty)") : countText("phase t", ph, meta.phases));
      el("div", { style: "font-size:12px" }, box, meta.states[s.state[b]]);
    });
    flight.textContent = s.in_flight.length
      ? tr("this thread's copies not yet waited for: {list}", { list: s.in_flight.map((t) => countText("phase t", t, meta.phases)).join(", ") })
      : tr("no copy of this thread is waiting to be confirmed");
    text.textContent = s.text;
    code.innerHTML = listingHtml(meta.code, s.code);
  }

  model.on("change:rev", load);
  load();
  root.explainerView = {
    state: () => ({ step, line: meta && meta.steps[step].line, phase: meta && meta.steps[step].phase }),
    buffers: () => meta && meta.steps[step].state.slice(),
  };
  return () => {};
}

export default { render: createPipelineView };
