// Waymark's settle recorder: runs at the start of every document in every
// frame (before the page's own scripts) and records what the page is doing,
// so the engine observes only once the effect of an action has landed.
//
// Activity (resets the quiet window): DOM mutations (also inside shadow
// roots), input/change/focus/blur/submit events, scroll and scrollend,
// CSS transition and animation events, history.pushState/replaceState,
// hashchange, popstate, load, and the firing of a tracked callback.
//
// Pending (the page is busy until they are done): setTimeout with a delay
// of at most 1 s and requestAnimationFrame / requestIdleCallback callbacks,
// until they fire or are cleared; a scroll until its scrollend (or 250 ms
// without a scroll event); finite running animations ending within the cap
// (counted by probe).
//
// Chains: a callback scheduled from inside a tracked callback belongs to the
// same chain and keeps the chain's start time. A chain older than 1 s that
// has scheduled more than one callback is a poller or a perpetual
// animation, not an action's effect: its callbacks no longer count as
// pending and their synchronous DOM changes are not activity. setInterval callbacks are treated the same way from the first
// tick, so a poller, a clock or a countdown never keeps a step waiting.
//
// It adds one non-enumerable symbol-keyed property to window and wraps the
// timer functions; pages see the same behaviour and return values.
(() => {
  const K = Symbol.for('waymark.settle');
  if (window[K]) return;
  const SHORT = 1000; // timers longer than this never count
  const CHAIN = 1000; // a chain older than this is perpetual
  const dnow = Date.now.bind(Date);
  const st = {
    last: 0, timers: new Map(), rafs: new Map(), idles: new Map(), scrollAt: 0, scrolling: false,
    late: document.readyState !== 'loading', // injected after the page's scripts started
    bg: new Map(), // address -> when a perpetual callback (a poller) requested it
  };
  const bump = () => { st.last = dnow(); };
  const opts = {subtree: true, childList: true, attributes: true, characterData: true};
  const mo = new MutationObserver(bump);
  try { mo.observe(document, opts); } catch (e) {}
  try {
    const attach = Element.prototype.attachShadow;
    Element.prototype.attachShadow = function attachShadow() {
      const root = attach.apply(this, arguments);
      try { mo.observe(root, opts); } catch (e) {}
      return root;
    };
  } catch (e) {}
  for (const t of ['input', 'change', 'focus', 'blur', 'submit', 'reset', 'toggle', 'transitionrun', 'transitionstart',
    'transitionend', 'transitioncancel', 'animationstart', 'animationend', 'animationcancel', 'hashchange',
    'popstate', 'load', 'pageshow'])
    addEventListener(t, bump, {capture: true, passive: true});
  addEventListener('scroll', () => { st.scrollAt = dnow(); st.scrolling = true; bump(); }, {capture: true, passive: true});
  addEventListener('scrollend', () => { st.scrolling = false; bump(); }, {capture: true, passive: true});
  try {
    for (const m of ['pushState', 'replaceState']) {
      const f = history[m];
      history[m] = function () { const r = f.apply(this, arguments); bump(); return r; };
    }
  } catch (e) {}

  // Posting a message (MessageChannel, as schedulers do; window.postMessage
  // to a frame) is activity: its handler runs in a task soon after.
  try {
    for (const P of [MessagePort.prototype, Window.prototype]) {
      const pm = P.postMessage;
      P.postMessage = function postMessage() { bump(); return pm.apply(this, arguments); };
    }
  } catch (e) {}

  // cur is the chain whose callback runs now ({t0: start, links: callbacks
  // scheduled in it}): undefined outside tracked callbacks, PERP inside a
  // perpetual one. A chain is perpetual once it is older than CHAIN and
  // has scheduled a second callback: a single callback that is late (a
  // busy machine draws no frame for a while) is still waited for.
  const PERP = {t0: -1, links: Infinity};
  let cur;
  const origin = () => {
    if (cur === undefined) return {t0: dnow(), links: 1};
    cur.links++;
    return cur;
  };
  const perpetual = c => c === PERP || (c.links >= 2 && dnow() - c.t0 > CHAIN);
  const run = (o, fn, self, args) => {
    const old = perpetual(o);
    if (old) { if (mo.takeRecords().length) bump(); } else bump();
    const prev = cur;
    cur = old ? PERP : o;
    try { return fn.apply(self, args); } finally {
      cur = prev;
      if (old) mo.takeRecords(); // a perpetual callback's own DOM changes
    }
  };
  const sT = window.setTimeout, cT = window.clearTimeout, sI = window.setInterval, cI = window.clearInterval;
  const rAF = window.requestAnimationFrame, cAF = window.cancelAnimationFrame;
  const rIC = window.requestIdleCallback, cIC = window.cancelIdleCallback;
  window.setTimeout = function setTimeout(fn, delay, ...args) {
    if (typeof fn !== 'function') return sT(fn, delay, ...args);
    const o = origin();
    let id;
    id = sT(function () { st.timers.delete(id); return run(o, fn, this, args); }, delay);
    if ((+delay || 0) <= SHORT && o !== PERP) st.timers.set(id, o);
    return id;
  };
  window.clearTimeout = function clearTimeout(id) { st.timers.delete(id); return cT(id); };
  window.setInterval = function setInterval(fn, delay, ...args) {
    if (typeof fn !== 'function') return sI(fn, delay, ...args);
    return sI(function () { return run(PERP, fn, this, args); }, delay);
  };
  window.clearInterval = function clearInterval(id) { st.timers.delete(id); return cI(id); };
  window.requestAnimationFrame = function requestAnimationFrame(fn) {
    if (typeof fn !== 'function') return rAF(fn);
    const o = origin();
    let id;
    id = rAF(function (ts) { st.rafs.delete(id); return run(o, fn, this, [ts]); });
    if (o !== PERP) st.rafs.set(id, o);
    return id;
  };
  window.cancelAnimationFrame = function cancelAnimationFrame(id) { st.rafs.delete(id); return cAF(id); };
  if (rIC) {
    window.requestIdleCallback = function requestIdleCallback(fn, o2) {
      if (typeof fn !== 'function') return rIC(fn, o2);
      const o = origin();
      let id;
      id = rIC(function (dl) { st.idles.delete(id); return run(o, fn, this, [dl]); }, o2);
      if (o !== PERP) st.idles.set(id, o);
      return id;
    };
    window.cancelIdleCallback = function cancelIdleCallback(id) { st.idles.delete(id); return cIC(id); };
  }

  // A poller's requests (fetch or XMLHttpRequest from a perpetual callback)
  // are reported by address, so the engine leaves them out of the network
  // activity.
  const bgURL = u => { if (cur !== PERP) return; try { st.bg.set(new URL(u, location.href).href.replace(/#.*$/, ''), dnow()); } catch (e) {} };
  try {
    const f = window.fetch;
    if (f) window.fetch = function fetch(input) { try { bgURL(input instanceof Request ? input.url : String(input)); } catch (e) {} return f.apply(this, arguments); };
    // (The originals must not share the wrappers' names: inside a named
    // function expression its name is the function itself.)
    const X = XMLHttpRequest.prototype, xOpen = X.open, xSend = X.send, U = Symbol();
    X.open = function open(m, u) { try { this[U] = String(u); } catch (e) {} return xOpen.apply(this, arguments); };
    X.send = function send() { if (this[U] !== undefined) bgURL(this[U]); return xSend.apply(this, arguments); };
  } catch (e) {}

  // local adds this frame's state to agg.
  st.local = (animMax, agg) => {
    const now = dnow();
    const young = o => !perpetual(o);
    for (const o of st.timers.values()) if (young(o)) agg[2]++;
    for (const o of st.rafs.values()) if (young(o)) agg[3]++;
    for (const o of st.idles.values()) if (young(o)) agg[4]++;
    if (st.scrolling && now - st.scrollAt < 250) agg[5]++;
    try {
      for (const a of document.getAnimations()) {
        if (a.playState !== 'running' || !a.effect) continue;
        const t = a.effect.getComputedTiming();
        if (t.endTime === Infinity) continue;
        if (t.endTime - (t.localTime || 0) <= animMax) agg[6]++;
      }
    } catch (e) {}
    agg[1] = Math.max(agg[1], st.last);
    for (const [u, at] of st.bg) { if (now - at > 5000) st.bg.delete(u); else agg[9].push(u); }
    if (st.late) {
      let end = 0;
      try { const n = performance.getEntriesByType('navigation')[0]; if (n && n.loadEventEnd) end = performance.timeOrigin + n.loadEventEnd; } catch (e) {}
      agg[8] = Math.max(agg[8], end || now);
    }
  };
  // probe answers the engine for this frame and the same-origin frames in
  // it: [readyState, last activity, timers, rAFs, idle callbacks,
  // scrolling, animations, now, load end of a late-injected document,
  // addresses pollers fetched in the last 5 s]
  // (times in ms since the epoch). With frames set it first waits for two
  // animation frames (at most 100 ms), so a frame was drawn after the action.
  st.probe = async (animMax, frames) => {
    if (frames) {
      await new Promise(r => {
        let done = false;
        const f = () => { if (!done) { done = true; r(); } };
        rAF(() => rAF(f));
        sT(f, 100);
      });
    }
    const agg = [document.readyState, 0, 0, 0, 0, 0, 0, 0, 0, []];
    const visit = (w, depth) => {
      let s;
      try { s = w[K]; } catch (e) { return; }
      if (s) s.local(animMax, agg);
      let n = 0;
      try { n = w.frames.length; } catch (e) {}
      for (let i = 0; i < n && depth < 8; i++) {
        try { visit(w.frames[i], depth + 1); } catch (e) {}
      }
    };
    visit(window, 0);
    agg[7] = dnow();
    return agg;
  };
  Object.defineProperty(window, K, {value: st});
})()
