// Waymark's reference clock: runs at the start of every document in every
// frame, after the settle recorder (which keeps the real clock) and before
// the page's own scripts. The page's Date shows the real time shifted by
// OFFSET milliseconds, so the clock starts at the task's reference instant
// at reset and advances in real time across navigations and tabs. Timers,
// performance.now() and the event loop are untouched.
(() => {
  const K = Symbol.for('waymark.clock');
  if (window[K]) return;
  const OFFSET = __OFFSET__;
  const D = Date;
  const realNow = D.now.bind(D);
  const now = () => realNow() + OFFSET;
  const construct = Reflect.construct;
  const Shifted = function Date(...args) {
    if (!new.target) return new D(now()).toString();
    return construct(D, args.length === 0 ? [now()] : args, new.target);
  };
  Object.defineProperty(Shifted, 'prototype', {value: D.prototype, writable: false});
  Object.defineProperty(Shifted, 'length', {value: 7});
  for (const k of ['parse', 'UTC']) {
    Object.defineProperty(Shifted, k, {value: D[k], writable: true, configurable: true});
  }
  Object.defineProperty(Shifted, 'now', {value: function now() { return realNow() + OFFSET; }, writable: true, configurable: true});
  const fnToString = Function.prototype.toString;
  const natives = new Map([[Shifted, fnToString.call(D)], [Shifted.now, fnToString.call(D.now)]]);
  Function.prototype.toString = new Proxy(fnToString, {
    apply(target, self, args) { return natives.has(self) ? natives.get(self) : Reflect.apply(target, self, args); },
  });
  Object.defineProperty(D.prototype, 'constructor', {value: Shifted, writable: true, configurable: true});
  Object.defineProperty(window, 'Date', {value: Shifted, writable: true, configurable: true});

  // Intl formats "now" when given no date.
  try {
    const P = Intl.DateTimeFormat.prototype;
    const fmt = Object.getOwnPropertyDescriptor(P, 'format');
    Object.defineProperty(P, 'format', {configurable: true, get() {
      const f = fmt.get.call(this);
      return (d) => f(d === undefined ? now() : d);
    }});
    const parts = P.formatToParts;
    Object.defineProperty(P, 'formatToParts', {configurable: true, writable: true,
      value: function formatToParts(d) { return parts.call(this, d === undefined ? now() : d); }});
  } catch (e) {}

  // Temporal.Now, where the browser has it.
  try {
    const T = globalThis.Temporal;
    if (T && T.Now) {
      const N = T.Now;
      const tz = N.timeZoneId.bind(N);
      const instant = () => T.Instant.fromEpochMilliseconds(now());
      const zoned = (z) => instant().toZonedDateTimeISO(z === undefined ? tz() : z);
      const set = (k, f) => Object.defineProperty(N, k, {value: f, writable: true, configurable: true});
      set('instant', function instant_() { return instant(); });
      set('zonedDateTimeISO', function zonedDateTimeISO(z) { return zoned(z); });
      set('plainDateTimeISO', function plainDateTimeISO(z) { return zoned(z).toPlainDateTime(); });
      set('plainDateISO', function plainDateISO(z) { return zoned(z).toPlainDate(); });
      set('plainTimeISO', function plainTimeISO(z) { return zoned(z).toPlainTime(); });
    }
  } catch (e) {}
  // A tab the page opens with window.open(url) would run its first
  // document before the engine could give it the clock. It opens at
  // about:blank (with this clock, its opener being of the same origin)
  // and the engine loads url once the tab has the clock
  // (openPendingKey). Named targets and noopener tabs open as before.
  const open = window.open;
  const pending = '__waymarkOpenURL';
  Object.defineProperty(window, 'open', {writable: true, configurable: true, value: function open_(url, name, features) {
    const n = name === undefined ? '' : String(name);
    let abs = '';
    try { abs = url === undefined || url === '' ? '' : new URL(String(url), document.baseURI).href; } catch (e) {}
    if (!/^https?:/.test(abs) || (n !== '' && n !== '_blank') || /noopener|noreferrer/i.test(String(features || ''))) {
      return Reflect.apply(open, this, arguments);
    }
    const w = Reflect.apply(open, this, ['about:blank', n, features]);
    if (!w) return w;
    try {
      Object.defineProperty(w, pending, {value: abs, configurable: true});
    } catch (e) {
      w.location.href = abs;
    }
    return w;
  }});
  Object.defineProperty(window, K, {value: OFFSET});
})();
