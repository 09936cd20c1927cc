// Predict, then reveal (explainer/views/quiz.py sends the questions; explainer.model.questions
// computed their answers and the model's reasons).
//
// A question's answer is checked here, against the answer Python sent: what is typed is read the
// way explainer.model.questions.parse reads it (a browser test holds the two together), and a
// wrong answer gets the model's reason for each wrong part, ending in what was typed. "Show the
// step" moves the page's stepper (its explainerView.show) to the block, thread and step that show
// the answer; a question no stepper shows has "Show the working" instead. "Another one": live,
// Python sends the next question set; a static page steps through the sets it embeds.

class QuizAnswerError extends Error {}

const QUIZ_NUMBER = /[0-9]+(?:\.[0-9]+)?/g;
const QUIZ_GROUPED = /([0-9])[,_](?=[0-9]{3}(?![0-9]))/g;
const QUIZ_CELL = /(?:\b(as|bs|a|b|c)\s*)?(?:\[\s*([0-9]+)\s*\]\s*\[\s*([0-9]+)\s*\]|\[\s*([0-9]+)\s*,\s*([0-9]+)\s*\]|\(\s*([0-9]+)\s*,\s*([0-9]+)\s*\))/gi;
const QUIZ_EMPTY_WORDS = {
  pad: /0\s*\(\s*pad(?:ding)?\s*\)|\bpadding\s+zeros?\b|\bpad(?:ding)?\b|\bzero\b|填充零|填充/gi,
  none: /\bnone\b|\bnothing\b|\bno element\b|没有|无/gi,
};
const QUIZ_EMPTY_TEXT = { pad: () => tr("a padding zero"), none: () => tr("none") };
const QUIZ_NAMES = { as: "As", bs: "Bs", a: "A", b: "B", c: "C" };

const quizEscape = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
const quizAll = (re, text) => [...text.matchAll(new RegExp(re.source, re.flags.includes("g") ? re.flags : re.flags + "g"))];
const quizNumbers = (text) => quizAll(QUIZ_NUMBER, text).map((m) => m[0]);
// How a choice option's word is found (explainer.model.questions._word): an ASCII word as a whole
// word, case-insensitively; a word with other characters (Chinese) anywhere.
const quizAscii = (w) => /^[\x00-\x7f]*$/.test(w);
const quizWord = (w) => (quizAscii(w) ? new RegExp(`\\b${quizEscape(w)}\\b`, "gi") : new RegExp(quizEscape(w), "gi"));
// A number labelled with a word (explainer.model.questions._labelled): an ASCII word from a word
// boundary, a Chinese one anywhere.
const quizLabel = (w) => new RegExp(`${quizAscii(w) ? "\\b" : ""}${quizEscape(w)}[\\s\\u3000]*[=:\\uff1a]?[\\s\\u3000]*([0-9]+)`, "gi");
// Where a choice answer is split to find its head (explainer.model.questions.POSSESSIVE).
const QUIZ_POSSESSIVE = /\u7684(?![\s\u3000,.;:!?，。；：！？、）)]|$)|['\u2019]s\b/i;
const quizPairOrder = (a, b) => a[0] - b[0] || a[1] - b[1];

function quizOneNumber(text, whole = false) {
  const what = whole ? tr("whole number") : tr("number");
  const nums = quizNumbers(text.replace(QUIZ_GROUPED, "$1"));
  if (!nums.length) throw new QuizAnswerError(tr("Type one {what}.", { what }));
  if (nums.length > 1) throw new QuizAnswerError(tr("Type one {what}; this has {n}: {nums}.", { what, n: nums.length, nums: nums.join(", ") }));
  return nums[0];
}

const quizExample = (form) => form.names.map((n) => `${n}[row][col]`).join(tr(" and "));

function quizDescribe(form) {
  const n = form.names.length;
  let text = `${n === 1 ? tr("one element") : n === 2 ? tr("two elements") : tr("{n} elements", { n })}, ${quizExample(form)}`;
  if (form.empty === "pad") text += tr(" (pad for a padding zero)");
  else if (form.empty === "none") text += tr(", or none");
  return text;
}

const quizBlank = (text, start, end) => text.slice(0, start) + " ".repeat(end - start) + text.slice(end);

// [position, name or null, [row, col] or null] of every element typed, in order.
function quizCells(form, text) {
  const items = [];
  let rest = text;
  for (const m of quizAll(QUIZ_CELL, text)) {
    const i = [2, 4, 6].find((j) => m[j] !== undefined);
    items.push([m.index, m[1] ? QUIZ_NAMES[m[1].toLowerCase()] : null, [Number(m[i]), Number(m[i + 1])]]);
    rest = quizBlank(rest, m.index, m.index + m[0].length);
  }
  if (form.empty) {
    for (const m of quizAll(QUIZ_EMPTY_WORDS[form.empty], rest)) {
      items.push([m.index, null, null]);
      rest = quizBlank(rest, m.index, m.index + m[0].length);
    }
  }
  const loose = quizAll(QUIZ_NUMBER, rest);
  if (loose.some((m) => m[0].includes("."))) throw new QuizAnswerError(tr("Rows and columns are whole numbers."));
  if (loose.length % 2) {
    throw new QuizAnswerError(tr("Type each element as {example}: a row and a column; {n} number(s) here do not make whole pairs.",
      { example: quizExample(form), n: loose.length }));
  }
  for (let i = 0; i < loose.length; i += 2) items.push([loose[i].index, null, [Number(loose[i][0]), Number(loose[i + 1][0])]]);
  return items.sort((a, b) => a[0] - b[0]);
}

const quizCellOrder = (a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] - b[1] || a[2] - b[2]);

// What `text` says in the question's form (explainer.model.questions.parse), or QuizAnswerError.
function quizParse(form, text) {
  const kind = form.kind;
  if (!text || !text.trim()) throw new QuizAnswerError(tr("Type an answer first."));
  if (kind === "int") {
    const num = quizOneNumber(text, true);
    if (num.includes(".")) throw new QuizAnswerError(tr("Type a whole number, not {num}.", { num }));
    return Number(num);
  }
  if (kind === "number") return Number(quizOneNumber(text));
  if (kind === "percent") {
    const num = quizOneNumber(text), value = Number(num);
    return !text.includes("%") && num.includes(".") && value <= 1 ? value * 100 : value;
  }
  if (kind === "ints") {
    const names = form.names, n = names.length, labelled = {};
    const words = form.words || names.map((name) => [name]);
    names.forEach((name, i) => {
      const hits = words[i].flatMap((w) => quizAll(quizLabel(w), text));
      if (hits.length === 1) labelled[name] = Number(hits[0][1]);
    });
    if (Object.keys(labelled).length === n) return names.map((name) => labelled[name]);
    const nums = quizNumbers(text);
    if (nums.some((x) => x.includes("."))) throw new QuizAnswerError(tr("Type whole numbers."));
    if (nums.length !== n) throw new QuizAnswerError(tr("Type {n} whole numbers ({names}); this has {count}.", { n, names: (form.shown || names).join(", "), count: nums.length }));
    return nums.map(Number);
  }
  if (kind === "cells") {
    const items = quizCells(form, text), names = form.names;
    if (items.length !== names.length) throw new QuizAnswerError(tr("Type {what}; this has {n}.", { what: quizDescribe(form), n: items.length }));
    const slots = names.map(() => null), filled = names.map(() => false);
    for (const [, name, rc] of items) {
      if (name === null) continue;
      if (!names.includes(name)) throw new QuizAnswerError(tr("The question asks for {names}, not {name}.", { names: names.join(tr(" and ")), name }));
      const i = names.indexOf(name);
      if (filled[i]) throw new QuizAnswerError(tr("{name} is typed twice.", { name }));
      slots[i] = rc;
      filled[i] = true;
    }
    for (const [, name, rc] of items) {
      if (name !== null) continue;
      const i = filled.indexOf(false);
      slots[i] = rc;
      filled[i] = true;
    }
    return slots;
  }
  if (kind === "cellset") {
    const items = quizCells(form, text), each = form.names.map((n) => `${n}[row][col]`).join(tr(" or "));
    if (!items.length) throw new QuizAnswerError(tr("Type the cells, each as {each}.", { each }));
    const out = new Map();
    for (const [, name, rc] of items) {
      if (name === null) throw new QuizAnswerError(tr("Name each cell: {each}.", { each }));
      if (!form.names.includes(name)) throw new QuizAnswerError(tr("The cells are in {names}, not {name}.", { names: form.names.join(tr(" and ")), name }));
      out.set(`${name}|${rc[0]}|${rc[1]}`, [name, rc[0], rc[1]]);
    }
    return [...out.values()].sort(quizCellOrder);
  }
  if (kind === "choice") {
    // the last part after a possessive (Chinese \u7684, English 's) that names an option; in it the option named
    // first; at the same place the longer word, then the key
    for (const part of text.split(QUIZ_POSSESSIVE).reverse()) {
      const found = [];
      for (const [key, , words] of form.options) {
        const at = words.flatMap((w) => quizAll(quizWord(w), part).map((m) => [m.index, -w.length]));
        if (at.length) found.push([...at.sort(quizPairOrder)[0], key]);
      }
      if (!found.length) continue;
      found.sort((a, b) => quizPairOrder(a, b) || (a[2] < b[2] ? -1 : a[2] > b[2] ? 1 : 0));
      return found[0][2];
    }
    throw new QuizAnswerError(tr("Type one of: {options}.", { options: form.options.map((o) => o[1]).join(", ") }));
  }
  throw new Error(`unknown answer form ${kind}`);
}

const quizSame = (a, b) => JSON.stringify(a) === JSON.stringify(b);
const quizCellText = (form, name, rc) => (rc === null ? QUIZ_EMPTY_TEXT[form.empty || "none"]() : `${name}[${rc[0]}][${rc[1]}]`);
const quizWrong = (why, typed) => tr("{why}, not {typed}", { why, typed });
const quizAllWrong = (parts) => parts.join(tr("; ")) + tr(".");

// {status: "right" | "wrong" | "unreadable", message} (explainer.model.questions.check).
function quizCheck(q, text) {
  let got;
  try {
    got = quizParse(q.form, text);
  } catch (e) {
    if (e instanceof QuizAnswerError) return { status: "unreadable", message: e.message };
    throw e;
  }
  const form = q.form, kind = form.kind, right = { status: "right", message: tr("Right: {answer}.", { answer: q.answer_text }) };
  if (kind === "int" || kind === "choice") {
    if (got === q.answer) return right;
    const typed = kind === "int" ? String(got) : form.options.find((o) => o[0] === got)[1];
    return { status: "wrong", message: quizAllWrong([quizWrong(q.why[0], typed)]) };
  }
  if (kind === "number" || kind === "percent") {
    if (Math.abs(got - q.answer) <= form.tol) return right;
    return { status: "wrong", message: quizAllWrong([quizWrong(q.why[0], text.trim())]) };
  }
  if (kind === "ints" || kind === "cells") {
    const wrong = [];
    got.forEach((g, i) => {
      if (quizSame(g, q.answer[i])) return;
      wrong.push(quizWrong(q.why[i], kind === "ints" ? g : quizCellText(form, form.names[i], g)));
    });
    return wrong.length ? { status: "wrong", message: quizAllWrong(wrong) } : right;
  }
  if (kind === "cellset") {
    const key = (c) => c.join("|");
    const want = new Set(q.answer.map(key)), have = new Set(got.map(key));
    const missing = q.answer.filter((c) => !have.has(key(c))).sort(quizCellOrder);
    const extra = got.filter((c) => !want.has(key(c))).sort(quizCellOrder);
    if (!missing.length && !extra.length) return right;
    const parts = [q.why[0]];
    const cells = (list) => list.map(([n, r, c]) => `${n}[${r}][${c}]`).join(", ");
    if (missing.length) parts.push(tr("missing: {cells}", { cells: cells(missing) }));
    if (extra.length) parts.push(tr("not in the answer: {cells}", { cells: cells(extra) }));
    return { status: "wrong", message: quizAllWrong(parts) };
  }
  throw new Error(`unknown answer form ${kind}`);
}

const QUIZ_COLOURS = { right: "#047857", wrong: "#b91c1c", unreadable: "#b91c1c" };

function createQuizView({ model, el: host }) {
  injectCss();
  learnStrings(model);
  const root = el("div", { class: "explainer-quiz explainer-view" }, host);
  const head = el("div", { class: "ex-row" }, root);
  const setLabel = el("span", { class: "explainer-quiz-set", style: "font-size:13px;color:#374151" }, head);
  const another = el("button", { type: "button", class: "explainer-quiz-another", title: tr("new numbers for every question") }, head, tr("Another one"));
  const note = el("span", { class: "ex-note explainer-quiz-note" }, head, "");
  const errorLine = el("div", { class: "ex-error explainer-error", role: "status" }, root);
  const list = el("ol", { class: "explainer-quiz-list", style: "padding-left:1.4em;margin:4px 0" }, root);
  let meta = null, index = 0;

  function load() {
    const m = model.get("meta");
    if (!m || !m.sets) return;
    meta = m;
    index = 0;
    render();
  }

  function render() {
    const set = meta.sets[index];
    setLabel.textContent = model.get("live") ? tr("Question set {n}", { n: set.seed })
      : tr("Question set {n} of {total}", { n: index + 1, total: meta.sets.length });
    list.textContent = "";
    set.questions.forEach((q, i) => question(q, i));
  }

  function question(q, i) {
    const li = el("li", { class: "explainer-quiz-q", "data-key": q.key, style: "margin:10px 0" }, list);
    el("div", { class: "explainer-quiz-prompt", style: "font-size:14px;line-height:1.5" }, li, q.prompt);
    const row = el("div", { class: "ex-row" }, li);
    const input = el("input", { type: "text", class: "explainer-quiz-input", "aria-label": tr("your answer to question {n}", { n: i + 1 }),
      placeholder: q.hint, autocomplete: "off", spellcheck: "false", style: "width:300px;max-width:100%;padding:2px 4px;font-size:13px" }, row);
    const bCheck = el("button", { type: "button", class: "explainer-quiz-check", title: tr("check your answer (Enter)") }, row, tr("Check"));
    const stepper = q.show ? () => findView(q.show.view) : () => null;
    const bShow = q.show
      ? el("button", { type: "button", class: "explainer-quiz-show", title: tr("move the stepper above to the step that shows the answer") }, row, tr("Show the step"))
      : null;
    const bReveal = el("button", { type: "button", class: "explainer-quiz-reveal", title: tr("the answer and how the model gets it") }, row,
      q.show ? tr("Reveal") : tr("Show the working"));
    const error = el("div", { class: "ex-error explainer-quiz-error", role: "status", style: "min-height:0" }, li);
    const verdict = el("div", { class: "explainer-quiz-verdict", role: "status", style: "font-size:13px" }, li);
    const shown = el("div", { class: "explainer-quiz-answer", style: "font-size:13px;color:#374151" }, li);

    function check() {
      const v = quizCheck(q, input.value);
      error.textContent = v.status === "unreadable" ? `⚠ ${v.message}` : "";
      verdict.textContent = v.status === "right" ? `✓ ${v.message}` : v.status === "wrong" ? `✗ ${v.message}` : "";
      verdict.dataset.status = v.status;
      verdict.style.color = QUIZ_COLOURS[v.status];
    }
    function reveal() { shown.textContent = tr("Answer: {answer}. How: {working}", { answer: q.answer_text, working: q.working }); }
    bCheck.addEventListener("click", check);
    input.addEventListener("keydown", (e) => { if (e.key === "Enter") { e.preventDefault(); check(); } });
    input.addEventListener("input", () => { error.textContent = ""; verdict.textContent = ""; delete verdict.dataset.status; });
    bReveal.addEventListener("click", reveal);
    if (bShow) {
      bShow.addEventListener("click", () => {
        const view = stepper();
        if (!view) {  // (no stepper on this page: the worked answer instead)
          reveal();
          return;
        }
        shown.textContent = tr("Moving the stepper above…");
        view.explainerView.show(q.show, (ok) => {
          if (!ok) {
            shown.textContent = tr("The stepper above could not go there; its own line says why.");
            return;
          }
          shown.textContent = tr("The stepper above now shows {where}.", { where: q.show.where });
          const target = view.querySelector(".explainer-step-label") || view;
          const reduced = window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)").matches;
          target.scrollIntoView({ block: "center", behavior: reduced ? "auto" : "smooth" });
        });
      });
    }
  }

  // The view a question's `show` names (quiz.py's selectors): the last one above this quiz, else the first.
  function findView(name) {
    const sel = (meta.selectors || {})[name];
    if (!sel) return null;
    const scope = root.closest(".jp-Notebook") || document;
    const all = [...scope.querySelectorAll(sel)].filter((v) => v.explainerView && typeof v.explainerView.show === "function");
    const above = all.filter((v) => v.compareDocumentPosition(root) & Node.DOCUMENT_POSITION_FOLLOWING);
    return above.length ? above[above.length - 1] : all[0] || null;
  }

  another.addEventListener("click", () => {
    errorLine.textContent = "";
    if (model.get("live")) {
      note.textContent = tr("computing…");
      model.send({ cmd: "another" });
      return;
    }
    const last = index + 1 >= meta.sets.length;
    index = last ? 0 : index + 1;
    note.textContent = last ? meta.exhausted : "";
    render();
  });

  model.on("change:rev", () => { note.textContent = ""; errorLine.textContent = ""; load(); });
  model.on("msg:custom", (msg) => {
    if (msg && msg.error != null) {
      note.textContent = "";
      errorLine.textContent = `⚠ ${msg.error}`;
    }
  });
  load();

  // For tests: the current set, and the checker itself.
  root.explainerView = {
    state: () => ({ set: index, seed: meta && meta.sets[index].seed, keys: meta ? meta.sets[index].questions.map((q) => q.key) : [] }),
    check: (i, text) => quizCheck(meta.sets[index].questions[i], text),
    checkQuestion: (q, text) => quizCheck(q, text),
    parse: (form, text) => {
      try { return { value: quizParse(form, text) }; } catch (e) { return { error: e.message }; }
    },
  };
  return () => {};
}

export default { render: createQuizView };
