// Static pages (`tiled-explainer export`): the views' own modules run with no kernel.
//
// A view is written against anywidget's model (get / set / on / send). Here a small stand-in
// model holds the state Python exported into the page (a <script type="application/json">),
// and its "store" answers, from payloads Python computed and embedded, the requests a live view
// would send to Python: a preset, a kernel variant, another block, a typed launch that equals a
// stored one. Anything else finds nothing, and the view says in one line that it needs the live
// app. The keys are joined from the request's own fields and the current payload's meta: no
// index is computed here.

function bytesOf(b64) {
  const bin = atob(b64);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return new DataView(out.buffer);
}

const keyOf = (...fields) => fields.map((f) => String(f).trim()).join("|");

function staticStore(store, currentMeta) {
  const decoded = new Map();
  const payload = (i) => {
    if (!decoded.has(i)) decoded.set(i, bytesOf(store.payloads[i].b64));
    return decoded.get(i);
  };
  return {
    payload,
    find(msg) {
      const cur = currentMeta();
      if (cur.M === undefined) return findKeyed(msg);
      let key = null, start = null, preset = cur.preset;
      if (msg.cmd === "block") {
        key = keyOf(cur.kernel, cur.M, cur.N, cur.K, cur.T, msg.block[0], msg.block[1]);
        start = { index: Number(msg.step) || 0, mode: msg.mode, thread: msg.thread };
      } else if (msg.cmd === "kernel") {
        key = keyOf(msg.name, cur.M, cur.N, cur.K, cur.T, cur.block[0], cur.block[1]);
        start = { index: 0, mode: msg.mode, thread: msg.thread, pinned: msg.pinned };
      } else if (msg.cmd === "preset" || msg.cmd === "launch") {
        const entry = msg.cmd === "preset"
          ? store.presets[keyOf(cur.kernel, msg.name)]
          : store.launches[keyOf(cur.kernel, msg.M, msg.N, msg.K, msg.T)];
        if (!entry) return null;
        key = entry.key;
        start = { index: 0, mode: msg.mode, thread: entry.thread };
        preset = msg.cmd === "preset" ? msg.name : entry.preset;
        if (msg.cmd === "launch" && msg.block) {  // a typed block of a stored launch, when stored too
          const typed = keyOf(cur.kernel, msg.M, msg.N, msg.K, msg.T, msg.block[0], msg.block[1]);
          if (store.states[typed] === undefined) return null;
          key = typed;
        }
      }
      const i = key == null ? undefined : store.states[key];
      if (i === undefined) return null;
      return { meta: { ...store.payloads[i].meta, start, preset }, buf: payload(i) };
    },
    // The blocks this page holds for the current launch ([[bx, by, "corner" | ...]], in words
    // from Python's model) and how many the grid has; null for views with no launch.
    blocks() {
      const cur = currentMeta();
      return cur.M === undefined ? null : (store.blocks || {})[keyOf(cur.kernel, cur.M, cur.N, cur.K, cur.T)] || null;
    },
    // Whether block (bx, by) of the current launch is stored.
    hasBlock(bx, by) {
      const cur = currentMeta();
      return store.states[keyOf(cur.kernel, cur.M, cur.N, cur.K, cur.T, bx, by)] !== undefined;
    },
    // The launches stored for the current kernel, as "M×N×K, T=t".
    launches() {
      const cur = currentMeta();
      return Object.keys(store.launches || {}).map((k) => k.split("|")).filter((f) => f[0] === String(cur.kernel))
        .map(([, M, N, K, T]) => `${M}×${N}×${K}, T=${T}`);
    },
  };

  // A view with no launch (page 08's ladder view, explainer.views.store.keyed_store): its whole
  // state is one key, the kernel's name; the view's thread / step / mode travel as the start.
  function findKeyed(msg) {
    if (msg.cmd !== "kernel") return null;
    const i = store.states[keyOf(msg.name)];
    if (i === undefined) return null;
    return { meta: { ...store.payloads[i].meta, start: { thread: msg.thread, k: msg.k, mode: msg.mode } }, buf: payload(i) };
  }
}

// The stand-in for anywidget's model.
function staticModel(state) {
  const values = { ...state.traits };
  const handlers = new Map();
  const store = staticStore(state.store, () => values.meta);
  values.store = store;
  values.buf = store.payload(state.initial);
  return {
    get: (name) => values[name],
    set(name, value) {
      values[name] = value;
      for (const f of handlers.get(`change:${name}`) || []) f();
    },
    on(event, f) {
      if (!handlers.has(event)) handlers.set(event, []);
      handlers.get(event).push(f);
    },
    off(event, f) {
      const list = handlers.get(event) || [];
      if (list.includes(f)) list.splice(list.indexOf(f), 1);
    },
    send() {},  // no kernel: the views ask the store first when `live` is false
    save_changes() {},
  };
}

// Mount every exported view of the page: `views` maps a view's name to its module's default
// export ({ render }).
function mountStatic(views) {
  for (const node of document.querySelectorAll("[data-explainer-view]")) {
    const view = views[node.dataset.explainerView];
    const state = JSON.parse(document.getElementById(node.dataset.state).textContent);
    try {
      learnStrings({ get: (name) => state.traits[name] });  // the page's language, before anything is drawn
      view.render({ model: staticModel(state), el: node });
    } catch (e) {
      node.textContent = tr("This view failed to start: {error}", { error: String(e) });
      throw e;
    }
  }
}
