// "Your turn": the student writes the kernel's index expressions (pages 01-02) and the stepper
// checks them against the model, thread by thread, phase by phase, in the browser (live and in a
// static page alike).
//
// parseIndex(text, names) reads one C integer expression over the names a kernel line may use
// (blockIdx.x, threadIdx.y, TILE, t, k, row, ...): numbers, + - * / %, comparisons, && || !, ?:,
// parentheses. It is a small recursive-descent parser that builds a tree; nothing the student
// types is ever run as JavaScript (no eval, no Function). / and % are C's: truncated towards zero.
// A bad expression throws an Error whose message is one line naming what is wrong and where.

const INDEX_MAX_CHARS = 200;

function parseIndex(text, names) {
  const src = String(text);
  if (!src.trim()) throw new Error(tr("empty: type an expression"));
  if (src.length > INDEX_MAX_CHARS) throw new Error(tr("too long ({n} characters; at most {max})", { n: src.length, max: INDEX_MAX_CHARS }));
  const toks = [];
  const re = /\s*(?:(\d+)|([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)?)|(<=|>=|==|!=|&&|\|\||[-+*/%()<>?:!]))/y;
  let at = 0;
  while (at < src.length) {
    if (/^\s*$/.test(src.slice(at))) break;
    re.lastIndex = at;
    const m = re.exec(src);
    if (!m) throw new Error(tr("cannot read \"{text}\" at character {at}", { text: src.slice(at).trim().slice(0, 12), at: at + 1 }));
    if (m[1] !== undefined) toks.push({ k: "num", v: Number(m[1]), at });
    else if (m[2] !== undefined) {
      if (!names.includes(m[2])) throw new Error(tr("unknown name \"{name}\": use {names}", { name: m[2], names: names.join(", ") }));
      toks.push({ k: "name", v: m[2], at });
    } else toks.push({ k: "op", v: m[3], at });
    at = re.lastIndex;
  }
  let i = 0;
  const peek = () => toks[i];
  const take = (v) => {
    const t = toks[i];
    if (!t || t.k !== "op" || t.v !== v) {
      throw new Error(t ? tr("expected \"{v}\" at character {at}", { v, at: t.at + 1 }) : tr("expected \"{v}\" at the end", { v }));
    }
    i++;
  };
  const LEVELS = [["||"], ["&&"], ["==", "!="], ["<", "<=", ">", ">="], ["+", "-"], ["*", "/", "%"]];
  function ternary() {
    const c = binary(0);
    const t = peek();
    if (t && t.k === "op" && t.v === "?") {
      i++;
      const a = ternary();
      take(":");
      return { op: "?:", c, a, b: ternary() };
    }
    return c;
  }
  function binary(level) {
    if (level === LEVELS.length) return unary();
    let left = binary(level + 1);
    for (;;) {
      const t = peek();
      if (!t || t.k !== "op" || !LEVELS[level].includes(t.v)) return left;
      i++;
      left = { op: t.v, a: left, b: binary(level + 1) };
    }
  }
  function unary() {
    const t = peek();
    if (!t) throw new Error(tr("the expression ends too early"));
    if (t.k === "op" && (t.v === "-" || t.v === "+" || t.v === "!")) { i++; return { op: `u${t.v}`, a: unary() }; }
    if (t.k === "op" && t.v === "(") { i++; const e = ternary(); take(")"); return e; }
    if (t.k === "num") { i++; return { num: t.v }; }
    if (t.k === "name") { i++; return { name: t.v }; }
    throw new Error(tr("unexpected \"{v}\" at character {at}", { v: t.v, at: t.at + 1 }));
  }
  const tree = ternary();
  if (i < toks.length) throw new Error(tr("unexpected \"{v}\" at character {at}", { v: toks[i].v, at: toks[i].at + 1 }));
  return tree;
}

// The value of a parsed expression for one thread: `env` maps each name to an integer.
function evalIndex(e, env) {
  if (e.num !== undefined) return e.num;
  if (e.name !== undefined) return env[e.name];
  const a = () => evalIndex(e.a, env), b = () => evalIndex(e.b, env);
  switch (e.op) {
    case "u-": return -a();
    case "u+": return a();
    case "u!": return a() ? 0 : 1;
    case "?:": return evalIndex(e.c, env) ? a() : b();
    case "+": return a() + b();
    case "-": return a() - b();
    case "*": return a() * b();
    case "/": case "%": {
      const x = a(), y = b();
      if (y === 0) throw new Error(tr("division by zero"));
      const q = Math.trunc(x / y);
      return e.op === "/" ? q : x - y * q;
    }
    case "<": return a() < b() ? 1 : 0;
    case "<=": return a() <= b() ? 1 : 0;
    case ">": return a() > b() ? 1 : 0;
    case ">=": return a() >= b() ? 1 : 0;
    case "==": return a() === b() ? 1 : 0;
    case "!=": return a() !== b() ? 1 : 0;
    case "&&": return a() && b() ? 1 : 0;
    case "||": return a() || b() ? 1 : 0;
  }
  throw new Error(`unknown operator ${e.op}`);
}

// The exercise panel of the tiled stepper: the kernel's lines with blanks (meta.exercise, from
// Python), a Check button, one line per blank saying right for every thread, or how many threads
// are wrong and the first of them with the kernel's value beside the student's. `compare(fields)`
// (the view's) does the thread-by-thread comparison against the payload; `onResult(result)` lets
// the view draw the student's copies.
function indexExercise(parent, spec, { compare, onResult, answers = () => spec.answers, title = () => spec.title }) {
  const box = el("details", { class: "explainer-yourturn" }, parent);
  const head = el("summary", { style: "cursor:pointer;font-weight:600;font-size:14px;padding:4px 0" }, box, title());
  el("div", { class: "ex-note", style: "margin:2px 0 6px" }, box, spec.intro);
  const inputs = {};
  for (const line of spec.lines) {
    const row = el("div", { class: "explainer-yourturn-line", style: "font:13px/2 ui-monospace,monospace;white-space:pre-wrap" }, box);
    for (const part of line) {
      if (typeof part === "string") { row.appendChild(document.createTextNode(part)); continue; }
      const f = el("input", { type: "text", "data-blank": part.id, "aria-label": part.label, spellcheck: "false",
        autocomplete: "off", placeholder: part.label, style: `font:13px ui-monospace,monospace;width:${part.width || 16}ch` }, row);
      inputs[part.id] = f;
      f.addEventListener("keydown", (e) => { if (e.key === "Enter") { e.preventDefault(); check(); } });
    }
  }
  const buttons = el("div", { class: "ex-row" }, box);
  const bCheck = el("button", { type: "button", class: "explainer-yourturn-check" }, buttons, tr("Check"));
  const bShow = el("button", { type: "button", class: "explainer-yourturn-answer", title: tr("fill in the kernel's own expressions") }, buttons, tr("Show the kernel's"));
  const mineLab = el("label", { class: "ex-field", title: tr("label As and Bs with the elements your indices copy") }, buttons);
  const mineBox = el("input", { type: "checkbox", class: "explainer-yourturn-mine" }, mineLab);
  el("span", {}, mineLab, tr("draw my copies"));
  const out = el("div", { class: "explainer-yourturn-result", role: "status", style: "font-size:13px;line-height:1.6" }, box);
  let last = null;

  function check() {
    const parsed = {}, errors = [];
    for (const [id, f] of Object.entries(inputs)) {
      try { parsed[id] = parseIndex(f.value, spec.names[id]); f.style.outline = ""; }
      catch (e) { errors.push(`${spec.labels[id]}: ${e.message}`); f.style.outline = "2px solid #dc2626"; }
    }
    out.textContent = "";
    if (errors.length) {
      for (const line of errors) el("div", { class: "ex-error" }, out, `⚠ ${line}`);
      return;
    }
    let result;
    try { result = compare(parsed); }
    catch (e) { el("div", { class: "ex-error" }, out, `⚠ ${e.message}`); return; }
    for (const r of result.lines) {
      el("div", { "data-blank": r.id, class: r.ok ? "explainer-yourturn-ok" : "explainer-yourturn-wrong",
        style: `color:${r.ok ? "#15803d" : "#b91c1c"}` }, out, `${r.ok ? "✓" : "✗"} ${r.text}`);
      for (const id of [r.id, r.also].filter(Boolean)) inputs[id].style.outline = r.ok ? "2px solid #16a34a" : "2px solid #dc2626";
    }
    last = result;
    onResult(mineBox.checked ? last : null);
  }
  bCheck.addEventListener("click", check);
  bShow.addEventListener("click", () => {
    const given = answers();
    for (const [id, f] of Object.entries(inputs)) f.value = given[id];
    check();
  });
  mineBox.addEventListener("change", () => onResult(mineBox.checked ? last : null));
  // a new payload (another launch, block or mapping): the old verdicts no longer apply
  function reset() {
    head.textContent = title();
    out.textContent = "";
    last = null;
    for (const f of Object.values(inputs)) f.style.outline = "";
  }
  return { check, box, inputs, reset };
}
