// Waymark's settle recorder: runs at the start of every document in every
// frame (before the page's own scripts) and records what the page is doing,
// so the engine observes only once the effect of an action has landed.
//
// Activity (resets the quiet window): DOM mutations (also inside shadow
// roots), input/change/focus/blur/submit events, scroll and scrollend,
// CSS transition and animation events, history.pushState/replaceState,
// hashchange, popstate, load, a posted or received message, and the firing
// of a tracked callback.
//
// Pending (the page is busy until they are done): setTimeout with a delay
// of at most 1 s and requestAnimationFrame / requestIdleCallback callbacks,
// until they fire or are cleared; a scroll until its scrollend (or 250 ms
// without a scroll event); finite running animations ending within the cap
// (counted by probe), and then until their finish event is dispatched (at
// most 1 s); a message posted (to a frame, a worker, a shared worker or a
// MessagePort) until a message is received in this document after it, at
// most 1 s; an interval created after the action (the probe says when the
// action began) whose last tick changed the page, while it is young.
//
// Chains: a callback scheduled from inside a tracked callback belongs to the
// same chain. A chain's age is the time its callbacks took to come, each
// wait counted up to what the callback asked for (its delay, or a frame)
// plus a little: a renderer starved of CPU draws late frames, and its
// animations do not grow old for it. A chain older than 1 s that has
// scheduled more than one callback is a poller or a perpetual animation,
// not an action's effect: its callbacks no longer count as pending and
// their synchronous DOM changes are not activity.
//
// Intervals: each interval is a chain of its own from its creation, aged by
// the clock (not by its ticks). Its
// ticks' own DOM changes are never activity by themselves; the probe counts
// an interval as pending only when it was created after the action, is
// young, and its last tick changed the page (or it has not ticked yet): an
// animation driven by setInterval (jQuery 1.x/2.x) is waited for, a clock
// or poller the page started before the action never holds a step, and one
// the action started that ticks forever holds it for at most 1 s.
//
// It adds one non-enumerable symbol-keyed property to window and wraps the
// timer, message and network functions; pages see the same behaviour and
// return values.
(() => {
  const K = Symbol.for('waymark.settle');
  if (window[K]) return;
  const SHORT = 1000; // timers longer than this never count
  const CHAIN = 1000; // a chain older than this is perpetual
  const dnow = Date.now.bind(Date);
  const st = {
    last: 0, timers: new Map(), rafs: new Map(), idles: new Map(), scrollAt: 0, scrolling: false,
    late: document.readyState !== 'loading', // injected after the page's scripts started
    bg: new Map(), // address -> {at: when a background callback (a poller) requested it, t0: its chain's start}
    since: 0, // when the latest action the engine asked about began
    anims: new Map(), // animation seen running -> when it was first seen finished (0: not yet)
    reqs: new Map(), // fetch or XMLHttpRequest of the page's own code still unanswered -> when it was made
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
  // to a frame; a worker) is activity, and pending until this document
  // receives a message after it (the handler ran or the worker answered)
  // or 1 s passed. Receiving a message is activity.
  st.sent = 0; st.recv = 0;
  const got = () => { st.recv = dnow(); bump(); };
  const heard = new WeakSet();
  const listen = o => {
    if (!o || heard.has(o)) return;
    heard.add(o);
    // addEventListener does not start a MessagePort: the page's own
    // onmessage or start() still decides when its messages flow.
    try { EventTarget.prototype.addEventListener.call(o, 'message', got, {capture: true, passive: true}); } catch (e) {}
  };
  addEventListener('message', got, {capture: true, passive: true});
  const wrapPost = (P, target) => {
    if (!P || !P.postMessage) return;
    const pm = P.postMessage;
    P.postMessage = function postMessage() {
      if (cur !== PERP) { st.sent = dnow(); bump(); }
      listen(target(this));
      return pm.apply(this, arguments);
    };
  };
  // A window's postMessage is its own property (Window is the global
  // object's interface), not Window.prototype's. A same-origin frame
  // posting to this window calls this one; a cross-origin caller gets the
  // browser's own function and is not seen until the message arrives.
  try { wrapPost(window, () => null); } catch (e) {}
  try { wrapPost(MessagePort.prototype, p => p); } catch (e) {}
  try { wrapPost(window.Worker && Worker.prototype, w => w); } catch (e) {}
  try {
    const MC = window.MessageChannel;
    if (MC) {
      window.MessageChannel = function MessageChannel() {
        const c = new MC();
        listen(c.port1); listen(c.port2);
        return c;
      };
      window.MessageChannel.prototype = MC.prototype;
    }
  } catch (e) {}
  // cur is the chain whose callback runs now ({t0: start, links: callbacks
  // scheduled in it, age, seen: when its last callback ran}): undefined
  // outside tracked callbacks, PERP inside a perpetual one. A chain is
  // perpetual once it is older than CHAIN and has scheduled a second
  // callback: a single callback that is late (a busy machine draws no frame
  // for a while) is still waited for.
  const PERP = {t0: -1, links: Infinity, age: Infinity};
  const FRAME = 17; // what a requestAnimationFrame asks for: a frame at 60 Hz
  const SLACK = 16; // what a callback may be late by and still age its chain
  const FAST = 100; // an interval this fast may be an animation before its first tick
  let cur;
  const chain = () => { const t = dnow(); return {t0: t, links: 1, age: 0, seen: t}; };
  const origin = () => {
    if (cur === undefined) return chain();
    cur.links++;
    return cur;
  };
  const perpetual = c => c === PERP || (c.links >= 2 && c.age > CHAIN);
  // grow ages chain o by the wait for a callback that asked for want ms.
  const grow = (o, want) => {
    if (o === PERP) return;
    const t = dnow();
    o.age += Math.min(Math.max(t - o.seen, 0), want + SLACK);
    o.seen = t;
  };
  // background: a chain whose callbacks are not the action's effect (a
  // perpetual one, or an interval's from before the action began).
  const background = c => perpetual(c) || (c.iv === true && c.t0 < st.since);
  const run = (o, want, fn, self, args) => {
    grow(o, want);
    const old = background(o);
    if (old) { if (mo.takeRecords().length) bump(); } else bump();
    const prev = cur;
    cur = old ? PERP : o;
    try { return fn.apply(self, args); } finally {
      cur = prev;
      if (old) mo.takeRecords(); // a background callback's own DOM changes
    }
  };
  const sT = window.setTimeout, cT = window.clearTimeout, sI = window.setInterval, cI = window.clearInterval;
  const rAF = window.requestAnimationFrame, cAF = window.cancelAnimationFrame;
  const rIC = window.requestIdleCallback, cIC = window.cancelIdleCallback;
  window.setTimeout = function setTimeout(fn, delay, ...args) {
    if (typeof fn !== 'function') return sT(fn, delay, ...args);
    const o = origin();
    const want = Math.max(+delay || 0, 0);
    let id;
    id = sT(function () { st.timers.delete(id); return run(o, want, fn, this, args); }, delay);
    if (want <= SHORT && o !== PERP) st.timers.set(id, o);
    return id;
  };
  window.clearTimeout = function clearTimeout(id) { st.timers.delete(id); return cT(id); };
  // intervals: id -> {c: its chain, ticks, changed: the last tick changed
  // the page, at: when a tick last changed it, done: cleared}
  st.ivs = new Map();
  window.setInterval = function setInterval(fn, delay, ...args) {
    if (typeof fn !== 'function') return sI(fn, delay, ...args);
    const want = Math.max(+delay || 0, 0);
    const iv = {c: cur === PERP ? PERP : chain(), want, ticks: 0, changed: false, at: 0, done: false};
    if (iv.c !== PERP) { iv.c.links = 2; iv.c.iv = true; } // it schedules itself again
    const id = sI(function () {
      grow(iv.c, Infinity); // an interval ages by the clock: one that ticks forever lets go at 1 s however starved
      if (mo.takeRecords().length) bump(); // changes before the tick are someone else's
      const prev = cur;
      cur = perpetual(iv.c) ? PERP : iv.c;
      try { return fn.apply(this, args); } finally {
        cur = prev;
        iv.ticks++;
        iv.changed = mo.takeRecords().length > 0;
        if (iv.changed) iv.at = dnow();
      }
    }, delay);
    if (iv.c !== PERP && want <= SHORT) st.ivs.set(id, iv);
    return id;
  };
  window.clearInterval = function clearInterval(id) {
    st.timers.delete(id);
    const iv = st.ivs.get(id);
    if (iv) iv.done = true;
    return cI(id);
  };
  window.requestAnimationFrame = function requestAnimationFrame(fn) {
    if (typeof fn !== 'function') return rAF(fn);
    const o = origin();
    let id;
    id = rAF(function (ts) { st.rafs.delete(id); return run(o, FRAME, fn, this, [ts]); });
    if (o !== PERP) st.rafs.set(id, o);
    return id;
  };
  window.cancelAnimationFrame = function cancelAnimationFrame(id) { st.rafs.delete(id); return cAF(id); };
  if (rIC) {
    window.requestIdleCallback = function requestIdleCallback(fn, o2) {
      if (typeof fn !== 'function') return rIC(fn, o2);
      const o = origin();
      let id;
      id = rIC(function (dl) { st.idles.delete(id); return run(o, FRAME, fn, this, [dl]); }, o2);
      if (o !== PERP) st.idles.set(id, o);
      return id;
    };
    window.cancelIdleCallback = function cancelIdleCallback(id) { st.idles.delete(id); return cIC(id); };
  }

  // A poller's requests (fetch or XMLHttpRequest from a perpetual callback)
  // are reported by address, so the engine leaves them out of the network
  // activity.
  // The others are pending from the call until their answer (a fetch's
  // response, an XMLHttpRequest's loadend): the engine also follows them on
  // the network, but the browser reports a request some time after the
  // call, and on a loaded machine that gap outlasted the quiet window (a
  // cross-site frame's fetch, made on a message, was observed missing).
  const bgURL = u => {
    if (cur !== PERP && !(cur && cur.iv)) return false;
    try { st.bg.set(new URL(u, location.href).href.replace(/#.*$/, ''), {at: dnow(), t0: cur.t0}); } catch (e) {}
    return true;
  };
  let reqN = 0;
  const reqStart = () => { const id = ++reqN; st.reqs.set(id, dnow()); return () => st.reqs.delete(id); };
  try {
    const f = window.fetch;
    if (f) window.fetch = function fetch(input) {
      let bg = false;
      try { bg = bgURL(input instanceof Request ? input.url : String(input)); } catch (e) {}
      const p = f.apply(this, arguments);
      if (bg) return p;
      // The page gets a promise settled like its own, so a failure it does
      // not handle is still reported as unhandled.
      const done = reqStart();
      return p.then(r => { done(); return r; }, e => { done(); throw e; });
    };
    // (The originals must not share the wrappers' names: inside a named
    // function expression its name is the function itself.)
    const X = XMLHttpRequest.prototype, xOpen = X.open, xSend = X.send, U = Symbol();
    X.open = function open(m, u) { try { this[U] = String(u); } catch (e) {} return xOpen.apply(this, arguments); };
    X.send = function send() {
      if (this[U] !== undefined && !bgURL(this[U])) this.addEventListener('loadend', reqStart(), {once: true});
      return xSend.apply(this, arguments);
    };
  } catch (e) {}

  // local adds this frame's state to agg; since is when the action began.
  st.local = (animMax, agg, since) => {
    const now = dnow();
    // A document loaded after the action began started its intervals on
    // its own: none of them is the action's.
    let origin0 = 0;
    try { origin0 = performance.timeOrigin; } catch (e) {}
    st.since = origin0 > since ? Infinity : since;
    const young = o => !background(o);
    for (const o of st.timers.values()) if (young(o)) agg[2]++;
    for (const o of st.rafs.values()) if (young(o)) agg[3]++;
    for (const o of st.idles.values()) if (young(o)) agg[4]++;
    for (const [id, iv] of st.ivs) {
      if (perpetual(iv.c) || (iv.done && now - iv.at > CHAIN)) { st.ivs.delete(id); continue; }
      if (background(iv.c)) continue; // the page's own, from before the action
      if (iv.at > agg[1]) agg[1] = iv.at;
      // Pending: it changed the page at its last tick (or, animation-fast,
      // has not ticked yet) and its next tick comes while it is young.
      const next = iv.c.age + iv.want;
      if (!iv.done && (iv.changed || (iv.ticks === 0 && iv.want <= FAST)) && next <= CHAIN) agg[2]++;
    }
    // A request the page's code made since the action began and that has
    // no answer yet (the browser may not have reported it yet).
    for (const at of st.reqs.values()) if (at >= since) agg[2]++;
    agg[10] = Math.max(agg[10], st.sent);
    agg[11] = Math.max(agg[11], st.recv);
    if (st.scrolling && now - st.scrollAt < 250) agg[5]++;
    try {
      for (const a of document.getAnimations()) {
        if (a.playState !== 'running' || !a.effect) continue;
        const t = a.effect.getComputedTiming();
        if (t.endTime === Infinity) continue;
        if (t.endTime - (t.localTime || 0) > animMax) continue;
        agg[6]++;
        if (!st.anims.has(a)) {
          // Its finish event (and a CSS transition's transitionend) comes
          // in a later frame: until then the page's handlers have not run.
          st.anims.set(a, 0);
          a.addEventListener('finish', () => { st.anims.delete(a); bump(); }, {once: true});
          a.addEventListener('cancel', () => { st.anims.delete(a); bump(); }, {once: true});
        }
      }
      for (const [a, at] of st.anims) {
        if (a.playState === 'finished') {
          if (!at) st.anims.set(a, now);
          if (!at || now - at <= CHAIN) agg[6]++; // finished, its finish event not yet dispatched
          else st.anims.delete(a);
        } else if (a.playState !== 'running') st.anims.delete(a);
      }
    } catch (e) {}
    agg[1] = Math.max(agg[1], st.last);
    for (const [u, b] of st.bg) { if (now - b.at > 5000) st.bg.delete(u); else if (b.t0 < since) agg[9].push(u); }
    if (st.late) {
      let end = 0;
      try { const n = performance.getEntriesByType('navigation')[0]; if (n && n.loadEventEnd) end = performance.timeOrigin + n.loadEventEnd; } catch (e) {}
      agg[8] = Math.max(agg[8], end || now);
    }
  };
  // probe answers the engine for this frame and the same-origin frames in
  // it: [readyState, last activity, timers, rAFs, idle callbacks,
  // scrolling, animations, now, load end of a late-injected document,
  // addresses pollers fetched in the last 5 s, latest message posted,
  // latest message received, whether the frames waited for were drawn]
  // (times in ms since the epoch). With frames true it first waits for two
  // animation frames (at most 100 ms), so a frame was drawn after the action;
  // with frames 'task' it first lets the tasks already queued run (a timer
  // task comes after the ones posted before it, such as the delivery of an
  // IntersectionObserver's entries from the last frame).
  st.probe = async (animMax, frames, since) => {
    let drew = true;
    if (frames === 'task') {
      await new Promise(r => sT(r, 0));
    } else if (frames) {
      await new Promise(r => {
        let done = false;
        const f = v => { if (!done) { done = true; drew = v; r(); } };
        rAF(() => rAF(() => f(true)));
        sT(() => f(false), 100);
      });
    }
    const agg = [document.readyState, 0, 0, 0, 0, 0, 0, 0, 0, [], 0, 0];
    const visit = (w, depth) => {
      let s;
      try { s = w[K]; } catch (e) { return; }
      if (s) s.local(animMax, agg, since || 0);
      let n = 0;
      try { n = w.frames.length; } catch (e) {}
      for (let i = 0; i < n && depth < 8; i++) {
        try { visit(w.frames[i], depth + 1); } catch (e) {}
      }
    };
    visit(window, 0);
    agg[7] = dnow();
    agg.push(drew);
    return agg;
  };
  // ticks resolves after n animation frames of this frame, or after max
  // ms: an out-of-process frame's animation frames wait while its
  // compositor has not activated and drawn what the page committed, so
  // they say when its picture has been handed over.
  st.ticks = (n, max) => new Promise(r => {
    let done = false, io = null;
    const f = v => { if (!done) { done = true; if (io) io.disconnect(); r(v); } };
    if (!innerWidth || !innerHeight) return f('unrendered');
    try {
      io = new IntersectionObserver(es => { if (es.length && !es[es.length - 1].isIntersecting) f('outside'); });
      io.observe(document.documentElement);
    } catch (e) {}
    const step = () => { if (--n <= 0) f('drawn'); else rAF(step); };
    rAF(step);
    sT(() => f('max'), max);
  });
  Object.defineProperty(window, K, {value: st});
})()
