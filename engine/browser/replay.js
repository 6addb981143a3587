// Waymark's determinism script: runs at the start of every document in
// every frame of the tab, before the page's own scripts.
// While an episode records its archive (REPLAY false), only Math.random is
// seeded, from the episode's id, so that its replay draws the same numbers
// (crypto's are left alone: pages use them for keys). For a page replayed
// from its recording's archive (REPLAY true):
//  - Math.random, crypto.getRandomValues and crypto.randomUUID draw from a
//    generator seeded per episode (SEED), so a replay makes the same ids in
//    the same order every time.
//  - WebSocket is a stand-in that plays the recorded conversations
//    (SOCKETS: per socket its URL and its frames in order, s: sent by the
//    page): the n-th socket a page opens to a URL gets the n-th recorded
//    one; the server's frames are delivered in their recorded order
//    relative to the page's, and a frame the page sends that the
//    recording did not have at that point is reported (the step is not
//    hermetic) and ends the playing.
//  - RTCPeerConnection reports that WebRTC cannot be replayed.
// Reports go to the engine through the binding __waymarkNotHermetic.
(() => {
  const K = Symbol.for('waymark.replay');
  if (window[K]) return;
  window[K] = true;
  const report = (why) => {
    try { window.__waymarkNotHermetic(String(why)); } catch (e) {}
  };

  // mulberry32: small, fast, and the same on every machine.
  let state = (__SEED__) >>> 0;
  const next32 = () => {
    state = (state + 0x6D2B79F5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  };
  const random = function random() { return next32() / 4294967296; };
  Object.defineProperty(Math, 'random', {value: random, writable: true, configurable: true});
  if (!(__REPLAY__)) return;
  try {
    const C = globalThis.crypto;
    if (C) {
      const grv = function getRandomValues(arr) {
        if (!ArrayBuffer.isView(arr)) throw new TypeError("Failed to execute 'getRandomValues' on 'Crypto': parameter 1 is not of type 'ArrayBufferView'.");
        const bytes = new Uint8Array(arr.buffer, arr.byteOffset, arr.byteLength);
        for (let i = 0; i < bytes.length; i++) bytes[i] = next32() & 0xff;
        return arr;
      };
      Object.defineProperty(C, 'getRandomValues', {value: grv, writable: true, configurable: true});
      const uuid = function randomUUID() {
        const b = grv(new Uint8Array(16));
        b[6] = (b[6] & 0x0f) | 0x40;
        b[8] = (b[8] & 0x3f) | 0x80;
        const h = Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
        return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
      };
      Object.defineProperty(C, 'randomUUID', {value: uuid, writable: true, configurable: true});
    }
  } catch (e) {}

  const SOCKETS = __SOCKETS__;
  const opened = new Map(); // URL → sockets opened so far
  const toBinary = (b64, type) => {
    const s = atob(b64);
    const u = new Uint8Array(s.length);
    for (let i = 0; i < s.length; i++) u[i] = s.charCodeAt(i);
    return type === 'arraybuffer' ? u.buffer : new Blob([u]);
  };
  const sameFrame = (m, data) => {
    if (typeof data === 'string') return m.o === 1 && m.d === data;
    return m.o === 2; // binary frames: the order is compared, not the bytes
  };
  class WebSocket extends EventTarget {
    constructor(url, protocols) {
      super();
      const u = new URL(url, location.href);
      if (u.protocol === 'http:') u.protocol = 'ws:';
      if (u.protocol === 'https:') u.protocol = 'wss:';
      this.url = u.href;
      this.protocol = '';
      this.extensions = '';
      this.readyState = 0;
      this.bufferedAmount = 0;
      this.binaryType = 'blob';
      this.onopen = this.onmessage = this.onerror = this.onclose = null;
      const n = opened.get(this.url) || 0;
      opened.set(this.url, n + 1);
      const all = SOCKETS.filter((s) => s.url === this.url);
      this._msgs = all[n] ? all[n].msgs : null;
      this._at = 0;
      setTimeout(() => {
        if (this.readyState !== 0) return;
        if (!this._msgs) {
          report(`the page opened a WebSocket to ${this.url} that the recording did not have (socket ${n + 1} to it)`);
          this.readyState = 3;
          this._fire('error', new Event('error'));
          this._fire('close', new CloseEvent('close', {code: 1006, reason: '', wasClean: false}));
          return;
        }
        this.readyState = 1;
        this._fire('open', new Event('open'));
        this._deliver();
      }, 0);
    }
    _fire(type, ev) {
      const h = this['on' + type];
      if (typeof h === 'function') { try { h.call(this, ev); } catch (e) { setTimeout(() => { throw e; }); } }
      this.dispatchEvent(ev);
    }
    _deliver() {
      const m = this._msgs && this._msgs[this._at];
      if (!m || m.s || this.readyState !== 1) return;
      this._at++;
      setTimeout(() => {
        if (this.readyState !== 1) return;
        const data = m.o === 2 ? toBinary(m.d, this.binaryType) : m.d;
        this._fire('message', new MessageEvent('message', {data, origin: new URL(this.url).origin}));
        this._deliver();
      }, 0);
    }
    send(data) {
      if (this.readyState === 0) throw new DOMException("Failed to execute 'send' on 'WebSocket': Still in CONNECTING state.", 'InvalidStateError');
      if (this.readyState !== 1 || !this._msgs) return;
      const m = this._msgs[this._at];
      if (!m || !m.s || !sameFrame(m, data)) {
        const got = typeof data === 'string' ? data.slice(0, 200) : '(binary)';
        const want = m && m.s ? (m.o === 1 ? m.d.slice(0, 200) : '(binary)') : '(nothing: the server spoke next)';
        report(`the page sent ${JSON.stringify(got)} on the WebSocket to ${this.url} where the recording sent ${JSON.stringify(want)}`);
        this._msgs = null;
        return;
      }
      this._at++;
      this._deliver();
    }
    close(code, reason) {
      if (this.readyState >= 2) return;
      this.readyState = 3;
      setTimeout(() => this._fire('close', new CloseEvent('close', {code: code || 1000, reason: reason || '', wasClean: true})), 0);
    }
  }
  for (const [k, v] of [['CONNECTING', 0], ['OPEN', 1], ['CLOSING', 2], ['CLOSED', 3]]) {
    Object.defineProperty(WebSocket, k, {value: v});
    Object.defineProperty(WebSocket.prototype, k, {value: v});
  }
  Object.defineProperty(window, 'WebSocket', {value: WebSocket, writable: true, configurable: true});

  if (window.RTCPeerConnection) {
    const R = window.RTCPeerConnection;
    const Wrapped = function RTCPeerConnection(...args) {
      report('the page opened a WebRTC connection, which a replay cannot play');
      return new R(...args);
    };
    Wrapped.prototype = R.prototype;
    Object.defineProperty(window, 'RTCPeerConnection', {value: Wrapped, writable: true, configurable: true});
  }
})();
