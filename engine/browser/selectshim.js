// Waymark's in-page popup for <select> drop-downs.
//
// Chromium draws a drop-down's popup as a separate native widget: on Xvfb it
// is missing from CDP screenshots and screencast frames, and a CDP click at
// an option's position lands on the page behind it (headless shows it, but
// clicks miss it too). This script replaces that popup, in every frame, with
// an in-page list that is part of the page's pixels and takes clicks:
//
//   - a primary press on an enabled single-choice drop-down (size <= 1)
//     prevents the native popup and shows the list below the select (above
//     when there is no room), inside a closed shadow root on a host element
//     with a unique name, in the top layer;
//   - a press and release on an enabled option chooses it: selectedIndex is
//     set and "input" then "change" are dispatched (bubbling), only when the
//     value changes, as a native choice does;
//   - a press outside, Escape, a scroll that moves the select, a resize or
//     the select losing focus closes it;
//   - while it is open, Up/Down/Home/End/PageUp/PageDown move the highlight,
//     Enter (or Tab) chooses, Escape closes, letters jump (type-ahead); the
//     page does not see these keys, as with the native popup;
//   - keys on a closed select stay native (Down changes the value), except
//     the keys that open the native popup on Linux (Space, Enter, F4,
//     Alt+Up/Down),
//     which open this list instead; select.showPicker() does too.
//
// It adds one non-enumerable symbol-keyed property to window (state() is
// what the engine's tests read) and its event listeners; pages without a
// select see no DOM change.
(() => {
  const K = Symbol.for('waymark.select');
  if (window[K]) return;
  const HOST = 'waymark-select-popup-4b1e';
  const api = {};
  try { Object.defineProperty(window, K, {value: api}); } catch (e) { return; }

  const HTML = 'http://www.w3.org/1999/xhtml';
  const isSelect = n => !!n && n.nodeType === 1 && n.localName === 'select' && n.namespaceURI === HTML;
  const isHost = n => !!n && n.nodeType === 1 && n.localName === HOST;

  // dropdown tells whether s shows a popup (rather than a list box, or the
  // in-page picker of appearance: base-select).
  const dropdown = s => {
    if (!isSelect(s) || s.multiple || s.size > 1 || !s.isConnected) return false;
    try {
      if (s.matches(':disabled')) return false;
      const cs = getComputedStyle(s);
      if (cs.display === 'none' || cs.appearance === 'base-select') return false;
    } catch (e) { return false; }
    return true;
  };

  const CSS = `
/* Inner-context !important beats any page rule on the host, inline ones too. */
:host { all: initial !important; position: fixed !important; left: 0 !important; top: 0 !important;
  width: 0 !important; height: 0 !important; overflow: visible !important; display: block !important;
  z-index: 2147483647 !important; }
.box { all: initial; position: fixed; box-sizing: border-box; display: block; overflow-x: hidden; overflow-y: auto;
  overscroll-behavior: contain; background: #efefef; color: #000; border: 1px solid #767676; border-radius: 0;
  font-family: system-ui, sans-serif; font-size: 13px; line-height: normal;
  white-space: pre; cursor: default; user-select: none; -webkit-user-select: none; text-align: left; direction: ltr;
  color-scheme: light; forced-color-adjust: none; visibility: visible; pointer-events: auto; z-index: 2147483647; }
.row { display: block; box-sizing: border-box; padding: 4px 4px; overflow: hidden; text-overflow: ellipsis; }
.ing { padding-left: 24px; }
.grp { padding-left: 6px; font-weight: bold; color: #000; }
.dis { color: #a0a0a0; }
.grp.dis { color: #a0a0a0; }
.hi { background: #1967d2; color: #fff; }
.sep { display: block; height: 1px; margin: 3px 0; background: #c8c8c8; }
`;

  let cur = null;       // the open popup
  let pending = null;   // a press on a select, waiting for the page's handlers
  const swallowKeys = new Set(); // keys whose keyup the page must not see
  let typed = '', typedAt = 0;

  const viewport = () => {
    const vv = window.visualViewport;
    const de = document.documentElement;
    const w = (de && de.clientWidth) || (vv && vv.width) || innerWidth;
    const h = (de && document.compatMode === 'CSS1Compat' && de.clientHeight) || (vv && vv.height) || innerHeight;
    return [w, h];
  };

  // build makes the rows: group labels, options (indented inside a group),
  // separators for <hr>.
  function build(sel, box) {
    const rows = [];
    let group = null;
    const add = (cls, text, index, disabled, opt) => {
      const el = document.createElement('div');
      el.className = 'row ' + cls + (disabled ? ' dis' : '');
      el.textContent = text === '' ? '\u00a0' : text;
      box.appendChild(el);
      rows.push({el, index, disabled, opt, kind: cls.split(' ')[0]});
    };
    for (const opt of sel.options) {
      let hidden = false;
      try { hidden = opt.hidden || getComputedStyle(opt).display === 'none'; } catch (e) {}
      const g = opt.parentElement && opt.parentElement.localName === 'optgroup' ? opt.parentElement : null;
      if (g !== group) {
        group = g;
        if (g && !g.hidden) add('grp', g.label || '', -1, g.disabled, null);
      }
      if (hidden) continue;
      const prev = opt.previousElementSibling;
      if (prev && prev.localName === 'hr') {
        const s = document.createElement('div');
        s.className = 'sep';
        box.appendChild(s);
      }
      let disabled = opt.disabled;
      try { disabled = opt.matches(':disabled'); } catch (e) {}
      add(g ? 'opt ing' : 'opt', (opt.label || '').replace(/\s+/g, ' ').trim(), opt.index, disabled, opt);
    }
    return rows;
  }

  function open(sel) {
    if (cur) close();
    if (!dropdown(sel) || sel.options.length === 0) return;
    try { if (document.activeElement !== sel && sel.getRootNode().activeElement !== sel) sel.focus({preventScroll: true, focusVisible: false}); } catch (e) {}
    const host = document.createElement(HOST);
    host.setAttribute('style', 'all: initial !important; position: fixed !important; left: 0 !important; top: 0 !important; ' +
      'width: 0 !important; height: 0 !important; margin: 0 !important; padding: 0 !important; border: 0 !important; ' +
      'overflow: visible !important; display: block !important; visibility: visible !important; opacity: 1 !important; ' +
      'transform: none !important; filter: none !important; contain: none !important; pointer-events: auto !important; ' +
      'z-index: 2147483647 !important; background: transparent !important; inset: 0 auto auto 0 !important;');
    const root = host.attachShadow({mode: 'closed'});
    const style = document.createElement('style');
    style.textContent = CSS;
    root.appendChild(style);
    const box = document.createElement('div');
    box.className = 'box';
    box.setAttribute('role', 'listbox');
    let font = {family: '', size: ''};
    try { const cs = getComputedStyle(sel); font = {family: cs.fontFamily, size: cs.fontSize}; } catch (e) {}
    if (font.family) box.style.fontFamily = font.family;
    if (font.size) box.style.fontSize = font.size;
    box.style.visibility = 'hidden';
    box.style.left = '0px';
    box.style.top = '0px';
    root.appendChild(box);
    box.addEventListener('wheel', wheelOnList, {passive: false});
    const rows = build(sel, box);
    // Inside an open modal dialog the rest of the page is inert: put the
    // popup in the dialog.
    let parent = document.documentElement || document.body;
    try {
      const dlg = sel.closest('dialog');
      if (dlg && dlg.matches(':modal')) parent = dlg;
    } catch (e) {}
    if (!parent) return;
    parent.appendChild(host);
    try { host.popover = 'manual'; host.showPopover(); } catch (e) {}
    cur = {sel, host, root, box, rows, hi: -1, openedAt: performance.now()};
    place();
    const si = sel.selectedIndex;
    const r = rows.find(r => r.index === si && si >= 0);
    setHi(r && !r.disabled ? rows.indexOf(r) : -1, 'center');
    box.style.visibility = 'visible';
  }

  // place puts the list below the select, or above when it does not fit
  // below; at most 20 rows tall, scrollable.
  function place() {
    const {sel, box, rows} = cur;
    const r = sel.getBoundingClientRect();
    const [vw, vh] = viewport();
    box.style.maxHeight = 'none';
    box.style.height = 'auto';
    box.style.width = 'auto';
    box.style.minWidth = Math.max(0, Math.round(r.width)) + 'px';
    box.style.maxWidth = vw + 'px';
    const full = box.offsetHeight;
    const rowH = (rows.find(x => x.kind === 'opt') || rows[0] || {el: {offsetHeight: 18}}).el.offsetHeight || 18;
    let h = Math.min(full, rowH * 20 + 2);
    const below = vh - r.bottom, above = r.top;
    let top;
    if (h <= below) top = r.bottom;
    else if (h <= above) top = r.top - h;
    else if (below >= above) { h = Math.max(rowH + 2, below); top = r.bottom; }
    else { h = Math.max(rowH + 2, above); top = r.top - h; }
    box.style.height = h + 'px';
    // Measured with the height set, so a scroll bar's width is counted.
    let w = Math.max(box.offsetWidth, r.width);
    if (w > vw) w = vw;
    let left = r.left;
    if (left + w > vw) left = vw - w;
    if (left < 0) left = 0;
    box.style.width = w + 'px';
    box.style.left = Math.round(left) + 'px';
    box.style.top = Math.round(top) + 'px';
  }

  function setHi(i, scroll) {
    if (!cur) return;
    const {rows, box} = cur;
    if (cur.hi >= 0 && rows[cur.hi]) rows[cur.hi].el.classList.remove('hi');
    cur.hi = i;
    if (i < 0 || !rows[i]) return;
    const el = rows[i].el;
    el.classList.add('hi');
    if (!scroll) return;
    const top = el.offsetTop, bot = top + el.offsetHeight, ch = box.clientHeight;
    if (scroll === 'center') {
      if (bot > ch) box.scrollTop = Math.max(0, top - Math.round((ch - el.offsetHeight) / 2));
    } else if (top < box.scrollTop) box.scrollTop = top;
    else if (bot > box.scrollTop + ch) box.scrollTop = bot - ch;
  }

  function close() {
    if (!cur) return;
    const {host, box} = cur;
    cur = null;
    typed = '';
    // Hide now; remove after the current input event, so that the click
    // that follows a release on the list still lands on the host and is
    // kept from the page.
    box.style.display = 'none';
    try { host.hidePopover(); } catch (e) {}
    setTimeout(() => host.remove(), 0);
  }

  function choose(rowIdx) {
    if (!cur) return;
    const row = cur.rows[rowIdx];
    const sel = cur.sel;
    close();
    if (!row || row.kind !== 'opt' || row.disabled || !sel.isConnected) return;
    const opt = row.opt;
    if (!opt || opt.index < 0 || sel.options[opt.index] !== opt) return;
    if (sel.selectedIndex === opt.index) return;
    sel.selectedIndex = opt.index;
    sel.dispatchEvent(new Event('input', {bubbles: true, composed: true}));
    sel.dispatchEvent(new Event('change', {bubbles: true}));
  }

  const enabledRows = () => cur.rows.map((r, i) => (r.kind === 'opt' && !r.disabled ? i : -1)).filter(i => i >= 0);

  function rowAt(x, y) {
    if (!cur) return -1;
    let el = null;
    try { el = cur.root.elementFromPoint(x, y); } catch (e) {}
    if (el) {
      const i = cur.rows.findIndex(r => r.el === el || r.el.contains(el));
      if (i >= 0) return i;
    }
    for (let i = 0; i < cur.rows.length; i++) {
      const b = cur.rows[i].el.getBoundingClientRect();
      const bb = cur.box.getBoundingClientRect();
      if (x >= b.left && x < b.right && y >= b.top && y < b.bottom && y >= bb.top && y < bb.bottom) return i;
    }
    return -1;
  }

  // The pointer over the list: the page must not see it. These listeners
  // are passive where the browser would make them so (wheel, touch), so that
  // pages without an open list scroll as fast as before; the wheel over the
  // list is handled by the list itself (see wheelOnList).
  const pointerTypes = ['pointerdown', 'pointerup', 'pointermove', 'pointerover', 'pointerout', 'pointerenter',
    'pointerleave', 'pointercancel', 'mousemove', 'mouseover', 'mouseout', 'mouseenter', 'mouseleave', 'click',
    'dblclick', 'auxclick', 'contextmenu', 'touchstart', 'touchmove', 'touchend', 'dragstart', 'selectstart',
    'gotpointercapture', 'lostpointercapture'];
  const onHost = e => {
    const t = e.composedPath()[0];
    return isHost(t) ? t : null;
  };
  for (const type of pointerTypes) {
    const passive = type === 'touchstart' || type === 'touchmove';
    addEventListener(type, e => {
      if (!onHost(e)) return;
      e.stopImmediatePropagation();
      // No preventDefault on pointer events: it would suppress the mouse
      // events that follow (mousedown, mouseup).
      const cancel = !passive && e.cancelable && !type.startsWith('pointer') && !type.startsWith('touch') &&
        !type.endsWith('pointercapture');
      if (cur && (type === 'mousemove' || type === 'mouseover')) {
        const i = rowAt(e.clientX, e.clientY);
        if (i >= 0 && cur.rows[i].kind === 'opt' && !cur.rows[i].disabled && i !== cur.hi) setHi(i, false);
      }
      if (cancel) e.preventDefault();
    }, {capture: true, passive});
  }

  // wheelOnList scrolls the list and never the page behind it (a list that
  // cannot scroll further takes the wheel too, as the native popup).
  function wheelOnList(e) {
    e.stopPropagation();
    if (!cur) return;
    const b = cur.box, dy = e.deltaY;
    const canScroll = dy < 0 ? b.scrollTop > 0 : dy > 0 ? b.scrollTop + b.clientHeight < b.scrollHeight - 1 : false;
    if (!canScroll && e.cancelable) e.preventDefault();
  }

  addEventListener('mousedown', e => {
    const host = onHost(e);
    if (host) {
      // A press on the list keeps the focus on the select.
      e.stopImmediatePropagation();
      e.preventDefault();
      return;
    }
    const t = e.composedPath()[0];
    if (cur) {
      if (t === cur.sel) {
        // A press on the open select closes the list, as the native one.
        e.preventDefault();
        close();
        return;
      }
      close();
    }
    if (e.button !== 0 || !e.isTrusted || !isSelect(t) || !dropdown(t)) return;
    // No native popup, whatever the page's handlers do; open ours after
    // them unless one of them prevented the default itself.
    e.preventDefault();
    const p = {e, sel: t, pagePrevented: false};
    const orig = e.preventDefault;
    try {
      Object.defineProperty(e, 'preventDefault', {configurable: true, value: function preventDefault() { p.pagePrevented = true; return orig.call(this); }});
    } catch (err) {}
    pending = p;
    setTimeout(() => settlePending(p), 0);
  }, {capture: true});
  addEventListener('mousedown', e => {
    if (pending && pending.e === e) settlePending(pending);
  });
  function settlePending(p) {
    if (pending !== p) return;
    pending = null;
    if (!p.pagePrevented) open(p.sel);
  }

  addEventListener('mouseup', e => {
    if (!onHost(e)) return;
    e.stopImmediatePropagation();
    e.preventDefault();
    if (!cur || e.button !== 0) return;
    const i = rowAt(e.clientX, e.clientY);
    if (i >= 0 && cur.rows[i].kind === 'opt' && !cur.rows[i].disabled) choose(i);
  }, {capture: true});

  const step = (dir, n) => {
    const en = enabledRows();
    if (!en.length) return;
    let pos = en.indexOf(cur.hi);
    if (pos < 0) pos = dir > 0 ? -1 : en.length;
    if (n === Infinity) pos = dir > 0 ? en.length - 1 : 0;
    else pos = Math.max(0, Math.min(en.length - 1, pos + dir * n));
    setHi(en[pos], true);
  };
  const pageRows = () => {
    const r = cur.rows.find(r => r.kind === 'opt');
    const h = (r && r.el.offsetHeight) || 18;
    return Math.max(1, Math.floor(cur.box.clientHeight / h) - 1);
  };

  addEventListener('keydown', e => {
    if (cur) {
      if (!cur.sel.isConnected) { close(); return; }
      const k = e.key;
      if (k === 'Tab') {
        // Tab takes the highlighted option and moves on.
        if (cur.hi >= 0) choose(cur.hi); else close();
        return;
      }
      e.preventDefault();
      e.stopImmediatePropagation();
      swallowKeys.add(e.code || k);
      if (k === 'Escape') close();
      else if (k === 'Enter' || ((k === 'ArrowDown' || k === 'ArrowUp') && (e.altKey || e.metaKey))) {
        if (cur.hi >= 0) choose(cur.hi); else close();
      } else if (k === 'ArrowDown') step(1, 1);
      else if (k === 'ArrowUp') step(-1, 1);
      else if (k === 'PageDown') step(1, pageRows());
      else if (k === 'PageUp') step(-1, pageRows());
      else if (k === 'Home') step(-1, Infinity);
      else if (k === 'End') step(1, Infinity);
      else if (k.length === 1 && !e.ctrlKey && !e.altKey && !e.metaKey) {
        const now = performance.now();
        if (now - typedAt > 1000) typed = '';
        typedAt = now;
        if (k === ' ' && typed === '') return;
        typed += k.toLowerCase();
        // As Chromium's type-ahead: a first letter searches after the
        // highlight, a longer prefix from it, wrapping around.
        const en = enabledRows();
        let from = Math.max(0, en.indexOf(cur.hi) + (typed.length === 1 ? 1 : 0));
        for (let j = 0; j < en.length; j++) {
          const i = en[(from + j) % en.length];
          if (cur.rows[i].el.textContent.toLowerCase().startsWith(typed)) { setHi(i, true); break; }
        }
      }
      return;
    }
    const t = e.composedPath()[0];
    if (!isSelect(t) || !e.isTrusted || !dropdown(t)) return;
    const k = e.key;
    const opens = ((k === ' ' || k === 'Enter') && !e.ctrlKey && !e.altKey && !e.metaKey) || (k === 'F4' && !e.altKey && !e.ctrlKey) ||
      ((k === 'ArrowDown' || k === 'ArrowUp') && e.altKey);
    if (!opens) return;
    e.preventDefault();
    swallowKeys.add(e.code || k);
    open(t);
  }, {capture: true});
  for (const type of ['keypress', 'keyup']) {
    addEventListener(type, e => {
      const id = e.code || e.key;
      if (type === 'keyup' ? swallowKeys.delete(id) : (cur !== null)) {
        e.preventDefault();
        e.stopImmediatePropagation();
      }
    }, {capture: true});
  }

  addEventListener('focusout', e => {
    if (cur && e.composedPath()[0] === cur.sel) close();
  }, {capture: true});
  addEventListener('blur', e => { if (cur && e.target === window) close(); });
  addEventListener('scroll', e => {
    if (!cur) return;
    const t = e.target;
    if (isHost(t)) return;
    if (t === document || t === window || (t && t.nodeType === 1 && t.contains(cur.sel))) close();
  }, {capture: true, passive: true});
  addEventListener('resize', () => { if (cur) close(); });
  addEventListener('pagehide', () => { if (cur) close(); });

  // A page script asking for the picker gets this one too.
  try {
    const proto = HTMLSelectElement.prototype;
    const orig = proto.showPicker;
    if (typeof orig === 'function') {
      Object.defineProperty(proto, 'showPicker', {configurable: true, writable: true, value: function showPicker() {
        const ua = navigator.userActivation;
        if (dropdown(this) && (!ua || ua.isActive)) { open(this); return; }
        return orig.call(this);
      }});
    }
  } catch (e) {}

  // state describes the open list in this frame's viewport (for tests and
  // diagnostics).
  api.state = () => {
    if (!cur) return {open: false};
    const rect = el => { const b = el.getBoundingClientRect(); return {x: b.left, y: b.top, w: b.width, h: b.height}; };
    return {
      open: true,
      box: rect(cur.box),
      scrollTop: cur.box.scrollTop,
      highlighted: cur.hi >= 0 ? cur.rows[cur.hi].index : -1,
      rows: cur.rows.map(r => Object.assign({kind: r.kind, index: r.index, text: r.el.textContent, disabled: r.disabled,
        highlighted: r.el.classList.contains('hi')}, rect(r.el))),
    };
  };
  api.close = close;
})();
