// Element marking as BrowserGym's frame_mark_elements.js does it, run by the
// engine (never by the page) in the main world of the top document, and
// from there in every same-origin frame. Called as (marks)(opts, isSecret),
// isSecret telling a password or payment field (secretfield.go); opts.op:
//   "mark"    give every standard HTML element a bid (attribute "bid"); with
//             opts.full also browsergym_visibility_ratio,
//             browsergym_set_of_marks and the element properties; with
//             opts.aria the "browsergym_id_<bid> " prefix of
//             aria-roledescription / aria-description (for the AXTree); with
//             opts.live the value and checked attributes (for DOMSnapshot),
//             except the value of a secret field; with opts.full the bids
//             of the secret fields too (their values are masked after);
//             and the focused element's bid as BrowserGym gives it (the
//             body's when nothing has the focus).
//   "unaria"  remove the aria prefixes again.
//   "find"    mark (bids only), then the element with bid opts.bid: its
//             target description; with opts.scroll it is scrolled into view
//             when off-screen; with opts.focus it is focused.
//   "point"   the element under the viewport point (opts.x, opts.y), through
//             frames and open shadow roots (read only: nothing is marked).
//   "focused" the focused element (read only).
// Bids: a per-frame counter ("0", "1", ...) for elements, letters ("a".."z",
// "aA", "aB", ...) for iframe/frame elements, prefixed by the frame's bid in
// a child frame; an element keeps its bid while its document lives, so the
// same page state gives the same bids. The counters live on each window
// under a symbol the page's scripts do not enumerate.
(opts, isSecret) => {
  const K = Symbol.for('waymark.marks');
  const TAGS = new Set(['a', 'abbr', 'acronym', 'address', 'applet', 'area', 'article', 'aside', 'audio',
    'b', 'base', 'basefont', 'bdi', 'bdo', 'big', 'blink', 'blockquote', 'body', 'br',
    'button', 'canvas', 'caption', 'center', 'cite', 'code', 'col', 'colgroup', 'content',
    'data', 'datalist', 'dd', 'del', 'details', 'dfn', 'dialog', 'dir', 'div', 'dl', 'dt',
    'em', 'embed', 'fieldset', 'figcaption', 'figure', 'font', 'footer', 'form', 'frame',
    'frameset', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'head', 'header', 'hgroup', 'hr',
    'html', 'i', 'iframe', 'image', 'img', 'input', 'ins', 'kbd', 'keygen', 'label',
    'legend', 'li', 'link', 'main', 'map', 'mark', 'marquee', 'menu', 'menuitem', 'meta',
    'meter', 'nav', 'nobr', 'noembed', 'noframes', 'noscript', 'object', 'ol', 'optgroup',
    'option', 'output', 'p', 'param', 'picture', 'plaintext', 'portal', 'pre', 'progress',
    'q', 'rb', 'rp', 'rt', 'rtc', 'ruby', 's', 'samp', 'script', 'search', 'section',
    'select', 'shadow', 'slot', 'small', 'source', 'spacer', 'span', 'strike', 'strong',
    'style', 'sub', 'summary', 'sup', 'svg', 'table', 'tbody', 'td', 'template', 'textarea',
    'tfoot', 'th', 'thead', 'time', 'title', 'tr', 'track', 'tt', 'u', 'ul', 'var', 'video',
    'wbr', 'xmp']);
  const SOM_TAGS = new Set(['input', 'textarea', 'select', 'button', 'a', 'iframe', 'video', 'li', 'td', 'option']);
  const BUTTONS = 'button, a, input[type="button"], div[role="button"]';
  const CLICK_ROLES = new Set(['button', 'link', 'checkbox', 'radio', 'menuitem', 'menuitemcheckbox',
    'menuitemradio', 'option', 'tab', 'switch', 'combobox', 'treeitem', 'slider', 'spinbutton', 'searchbox', 'textbox']);
  const ARIA = ['aria-roledescription', 'aria-description'];
  const PREFIX = /^browsergym_id[^\s]*\s/;
  const r2 = (v) => Math.round(v * 100) / 100;
  const tag = (el) => (el.tagName || '').toLowerCase();
  const isFrame = (el) => { const t = tag(el); return t === 'iframe' || t === 'frame'; };

  // frameLetters: 0 → "a", 25 → "z", 26 → "aA", 27 → "aB", ...
  const frameLetters = (n) => {
    let s = '';
    n += 1;
    while (n > 0) { n -= 1; s = String.fromCharCode(97 + (n % 26)) + s; n = Math.floor(n / 26); }
    return s[0] + s.slice(1).toUpperCase();
  };
  const state = (win) => {
    let st = win[K];
    if (!st) {
      st = { n: 0, f: 0 };
      Object.defineProperty(win, K, { value: st, configurable: true, enumerable: false, writable: true });
    }
    return st;
  };
  // elementsOf lists a document's elements in document order, each open
  // shadow root's elements right after its host (nested roots too).
  const elementsOf = (root) => {
    const out = [];
    const walk = (r) => {
      for (const el of r.querySelectorAll('*')) {
        out.push(el);
        if (el.shadowRoot) walk(el.shadowRoot);
      }
    };
    walk(root);
    return out;
  };
  // childDoc is a frame element's document when this script may reach it.
  const childDoc = (el) => { try { return el.contentDocument && el.contentWindow ? el.contentDocument : null; } catch (e) { return null; } };
  // frameOrigin is where a frame element's content starts in its parent's
  // viewport (the border and padding are outside the content).
  const frameOrigin = (el, win) => {
    const r = el.getBoundingClientRect();
    const cs = win.getComputedStyle(el);
    return [r.left + el.clientLeft + (parseFloat(cs.paddingLeft) || 0), r.top + el.clientTop + (parseFloat(cs.paddingTop) || 0)];
  };
  // deepHit follows elementFromPoint into open shadow roots.
  const deepHit = (doc, x, y) => {
    let el = doc.elementFromPoint(x, y);
    while (el && el.shadowRoot) {
      const inner = el.shadowRoot.elementFromPoint(x, y);
      if (!inner || inner === el) break;
      el = inner;
    }
    return el;
  };
  const composedContains = (a, b) => {
    for (let n = b; n; n = n.parentNode || n.host) { if (n === a) return true; }
    return false;
  };
  const composedParent = (el) => el.parentElement || (el.parentNode && el.parentNode.host) || null;

  const warnings = [];
  const props = {};
  const prefixed = [];
  const secrets = [];
  const full = !!opts.full;

  // markFrame marks one document; prefix is its frame element's bid; ox, oy
  // its content origin in the top viewport; clip the visible part of the
  // frame there [x0, y0, x1, y1].
  const markFrame = (doc, win, prefix, ox, oy, clip) => {
    const st = state(win);
    const firstVisit = !st.visited;
    st.visited = true;
    const seen = new Set();
    const buttons = [];
    const els = elementsOf(doc);
    for (const el of els) {
      const t = tag(el);
      if (!TAGS.has(t)) continue;
      let bid = el.getAttribute('bid');
      if (bid !== null && (firstVisit || seen.has(bid))) {
        if (firstVisit && !seen.has(bid)) warnings.push('the page set its own bid attribute ' + JSON.stringify(bid) + ' on a ' + t + '; replaced');
        bid = null;
      }
      if (bid === null) {
        const local = isFrame(el) ? frameLetters(st.f++) : String(st.n++);
        bid = prefix + local;
        el.setAttribute('bid', bid);
      }
      seen.add(bid);
      const secret = (t === 'input' || t === 'textarea') && isSecret(el);
      if (secret && full) secrets.push(bid);
      if (opts.live) {
        // (a secret field's typed text never goes into the DOM)
        if (!secret && typeof el.value !== 'undefined' && typeof el.value !== 'object') el.setAttribute('value', el.value);
        if (typeof el.checked !== 'undefined') { if (el.checked === true) el.setAttribute('checked', ''); else el.removeAttribute('checked'); }
      }
      if (opts.aria) {
        for (const a of ARIA) {
          const old = el.hasAttribute(a) ? el.getAttribute(a) : '';
          el.setAttribute(a, 'browsergym_id_' + bid + ' ' + old);
        }
        prefixed.push(el);
      }
      if (!full) continue;
      const rects = el.getClientRects();
      const r = el.getBoundingClientRect();
      const x = r.left + ox, y = r.top + oy, w = r.width, h = r.height;
      let vis = 0;
      if (rects.length > 0) {
        const ix = Math.max(0, Math.min(x + w, clip[2]) - Math.max(x, clip[0]));
        const iy = Math.max(0, Math.min(y + h, clip[3]) - Math.max(y, clip[1]));
        if (w * h > 0) vis = (ix * iy) / (w * h);
        else vis = (x >= clip[0] && x <= clip[2] && y >= clip[1] && y <= clip[3]) ? 1 : 0;
      }
      vis = r2(vis);
      el.setAttribute('browsergym_visibility_ratio', String(vis));
      // set of marks (He et al. 2024, as BrowserGym)
      let som = false;
      const cx = r.left + w / 2, cy = r.top + h / 2;
      let cs = null;
      const style = () => cs || (cs = win.getComputedStyle(el));
      // (BrowserGym's conditions, the hit test last: it costs the most)
      if (rects.length > 0 && w * h >= 20 && (SOM_TAGS.has(t) || el.onclick != null || style().cursor === 'pointer')) {
        const hit = deepHit(doc, cx, cy);
        if (hit && composedContains(el, hit) &&
          !buttons.some((b) => b !== el && composedContains(b, el))) {
          const p = composedParent(el);
          const onlyChildOfRoleSpan = p && tag(p) === 'span' && p.hasAttribute('role') && p.children.length === 1 &&
            p.getAttribute('browsergym_set_of_marks') === '1';
          if (!onlyChildOfRoleSpan) {
            som = true;
            if (el.matches(BUTTONS)) buttons.push(el);
            for (let a = composedParent(el); a; a = composedParent(a)) {
              if (a.getAttribute('browsergym_set_of_marks') === '1') {
                a.setAttribute('browsergym_set_of_marks', '0');
                if (props[a.getAttribute('bid')]) props[a.getAttribute('bid')].s = false;
              }
            }
          }
        }
      }
      el.setAttribute('browsergym_set_of_marks', som ? '1' : '0');
      const role = el.getAttribute('role');
      const clickable = (t === 'a' && el.hasAttribute('href')) || t === 'button' || t === 'select' || t === 'textarea' ||
        t === 'option' || t === 'summary' || (t === 'input' && el.type !== 'hidden') || el.onclick != null ||
        (role !== null && CLICK_ROLES.has(role)) || (rects.length > 0 && style().cursor === 'pointer');
      props[bid] = { v: vis, b: rects.length > 0 ? [x, y, w, h] : null, c: clickable, s: som };
    }
    for (const el of els) {
      if (!isFrame(el)) continue;
      const d = childDoc(el);
      const bid = el.getAttribute('bid');
      if (!d || !d.documentElement) {
        if (bid !== null) warnings.push('frame ' + bid + ' is not reachable from the page (cross-origin); its elements have no bids');
        continue;
      }
      if (bid === null) continue;
      const [fx, fy] = frameOrigin(el, win);
      const cw = el.clientWidth, ch = el.clientHeight;
      const c = [Math.max(clip[0], ox + fx), Math.max(clip[1], oy + fy), Math.min(clip[2], ox + fx + cw), Math.min(clip[3], oy + fy + ch)];
      markFrame(d, el.contentWindow, bid, ox + fx, oy + fy, c);
    }
  };

  // unaria removes the prefixes from the elements the last marking gave
  // them to (kept in the top window's state).
  const unaria = (els) => {
    for (const el of els) {
      for (const a of ARIA) {
        const v = el.getAttribute(a);
        if (v === null || !PREFIX.test(v)) continue;
        const rest = v.replace(PREFIX, '');
        if (rest) el.setAttribute(a, rest); else el.removeAttribute(a);
      }
    }
  };

  // --- description of one element (targets and lookups) ---
  const IMPLICIT = { a: (el) => el.hasAttribute('href') ? 'link' : '', article: 'article', aside: 'complementary', button: 'button',
    datalist: 'listbox', dd: 'definition', details: 'group', dialog: 'dialog', dt: 'term', fieldset: 'group', figure: 'figure',
    footer: 'contentinfo', form: 'form', h1: 'heading', h2: 'heading', h3: 'heading', h4: 'heading', h5: 'heading', h6: 'heading',
    header: 'banner', hr: 'separator', img: (el) => el.getAttribute('alt') === '' ? 'presentation' : 'img', li: 'listitem',
    main: 'main', menu: 'list', meter: 'meter', nav: 'navigation', ol: 'list', optgroup: 'group', option: 'option', output: 'status',
    p: 'paragraph', progress: 'progressbar', section: 'region', select: (el) => (el.multiple || el.size > 1) ? 'listbox' : 'combobox',
    summary: 'DisclosureTriangle', table: 'table', tbody: 'rowgroup', td: 'cell', textarea: 'textbox', tfoot: 'rowgroup', th: 'columnheader',
    thead: 'rowgroup', tr: 'row', ul: 'list',
    input: (el) => ({ button: 'button', submit: 'button', reset: 'button', image: 'button', checkbox: 'checkbox', radio: 'radio',
      range: 'slider', number: 'spinbutton', search: 'searchbox', email: 'textbox', tel: 'textbox', text: 'textbox', url: 'textbox',
      password: 'textbox' })[el.type] || (el.type === 'hidden' ? '' : 'textbox') };
  const roleOf = (el) => {
    const r = el.getAttribute('role');
    if (r) return r.trim().split(/\s+/)[0];
    const f = IMPLICIT[tag(el)];
    return typeof f === 'function' ? f(el) : (f || '');
  };
  const squash = (s) => (s || '').replace(/\s+/g, ' ').trim().slice(0, 200);
  const NAME_FROM_CONTENT = new Set(['button', 'link', 'heading', 'option', 'cell', 'columnheader', 'rowheader', 'tab', 'menuitem',
    'checkbox', 'radio', 'listitem', 'treeitem', 'switch', 'DisclosureTriangle', 'menuitemcheckbox', 'menuitemradio', 'tooltip']);
  const nameOf = (el, role) => {
    const doc = el.ownerDocument;
    const lb = el.getAttribute('aria-labelledby');
    if (lb) {
      const s = squash(lb.split(/\s+/).map((id) => { const n = doc.getElementById(id); return n ? n.textContent : ''; }).join(' '));
      if (s) return s;
    }
    const al = squash(el.getAttribute('aria-label'));
    if (al) return al;
    const t = tag(el);
    if (t === 'input' && ['button', 'submit', 'reset'].includes(el.type)) return squash(el.value) || (el.type === 'submit' ? 'Submit' : el.type === 'reset' ? 'Reset' : '');
    if (t === 'input' && el.type === 'image') return squash(el.alt);
    if (el.labels && el.labels.length) { const s = squash(Array.from(el.labels).map((l) => l.textContent).join(' ')); if (s) return s; }
    if (t === 'img' || t === 'area') { const s = squash(el.getAttribute('alt')); if (s) return s; }
    if (NAME_FROM_CONTENT.has(role)) { const s = squash(el.innerText !== undefined ? el.innerText : el.textContent); if (s) return s; }
    return squash(el.getAttribute('title')) || squash(el.getAttribute('placeholder'));
  };
  const cssEsc = (s) => (typeof CSS !== 'undefined' && CSS.escape) ? CSS.escape(s) : s.replace(/[^\w-]/g, (c) => '\\' + c);
  // selectorIn is a CSS selector for el within its root (document or shadow root).
  const selectorIn = (el) => {
    const root = el.getRootNode();
    const parts = [];
    for (let n = el; n && n.nodeType === 1; n = n.parentElement) {
      if (n.id) {
        const s = '#' + cssEsc(n.id);
        let unique = false;
        try { unique = root.querySelectorAll(s).length === 1; } catch (e) {}
        if (unique) { parts.unshift(s); break; }
      }
      const t = tag(n);
      const p = n.parentElement;
      if (!p) { parts.unshift(t); break; }
      const same = Array.from(p.children).filter((c) => c.tagName === n.tagName);
      parts.unshift(same.length > 1 ? t + ':nth-of-type(' + (same.indexOf(n) + 1) + ')' : t);
    }
    return parts.join(' > ');
  };
  // describe gives an element's target fields; offsets and selector prefix
  // come from the frames it sits in.
  const describe = (el, ox, oy, outer) => {
    const r = el.getBoundingClientRect();
    const role = roleOf(el);
    const chain = [];
    for (let n = el; n;) {
      chain.unshift(selectorIn(n));
      const root = n.getRootNode();
      n = root && root.host ? root.host : null;
    }
    return { bid: el.getAttribute('bid') || '', tag: tag(el), role, name: nameOf(el, role),
      bbox: [r.left + ox, r.top + oy, r.width, r.height], selector: outer.concat(chain).join(' >>> '),
      input_type: tag(el) === 'input' ? (el.type || 'text').toLowerCase() : '' };
  };
  // marked is the nearest element with a bid, el itself or a composed ancestor.
  const marked = (el) => { for (let n = el; n; n = composedParent(n)) { if (n.hasAttribute && n.hasAttribute('bid')) return n; } return el; };

  const pointAt = (doc, win, x, y, ox, oy, outer) => {
    const hit = deepHit(doc, x, y);
    if (!hit) return null;
    if (isFrame(hit)) {
      const d = childDoc(hit);
      if (d) {
        const [fx, fy] = frameOrigin(hit, win);
        const inner = pointAt(d, hit.contentWindow, x - fx, y - fy, ox + fx, oy + fy, outer.concat([describe(hit, 0, 0, []).selector]));
        if (inner) return inner;
      }
    }
    return describe(marked(hit), ox, oy, outer);
  };
  const focusedIn = (doc, win, ox, oy, outer) => {
    let el = doc.activeElement;
    while (el && el.shadowRoot && el.shadowRoot.activeElement) el = el.shadowRoot.activeElement;
    if (!el || el === doc.body || el === doc.documentElement) return null;
    if (isFrame(el)) {
      const d = childDoc(el);
      if (d) {
        const [fx, fy] = frameOrigin(el, win);
        const inner = focusedIn(d, el.contentWindow, ox + fx, oy + fy, outer.concat([describe(el, 0, 0, []).selector]));
        if (inner) return inner;
      }
    }
    return describe(el, ox, oy, outer);
  };
  // focusedBid is BrowserGym's focused_element_bid: the bid of the
  // document's active element, followed into open shadow roots and
  // same-origin frames. With nothing focused the active element is the
  // body (the document element without one), so its bid is given; a frame
  // that has the focus with nothing focused inside gives its body's.
  const focusedBid = () => {
    let doc = document, bid = '';
    for (;;) {
      let el = doc.activeElement;
      while (el && el.shadowRoot && el.shadowRoot.activeElement) el = el.shadowRoot.activeElement;
      if (!el) return bid;
      bid = el.getAttribute('bid') || '';
      const d = isFrame(el) ? childDoc(el) : null;
      if (!d) return bid;
      doc = d;
    }
  };
  // findIn looks for the element with bid in a document and its frames.
  const findIn = (doc, win, bid, ox, oy, outer) => {
    let el = null;
    for (const e of elementsOf(doc)) { if (e.getAttribute('bid') === bid) { el = e; break; } }
    if (el) return { el, win, ox, oy, outer };
    for (const f of elementsOf(doc)) {
      if (!isFrame(f)) continue;
      const fb = f.getAttribute('bid');
      if (fb === null || !bid.startsWith(fb)) continue;
      const d = childDoc(f);
      if (!d) continue;
      const [fx, fy] = frameOrigin(f, win);
      const got = findIn(d, f.contentWindow, bid, ox + fx, oy + fy, outer.concat([describe(f, 0, 0, []).selector]));
      if (got) return got;
    }
    return null;
  };
  const top = [0, 0, window.innerWidth, window.innerHeight];
  // elementAt is the element under a viewport point, through open shadow
  // roots and same-origin frames.
  const elementAt = (doc, win, x, y) => {
    const hit = deepHit(doc, x, y);
    if (hit && isFrame(hit)) {
      const d = childDoc(hit);
      if (d) {
        const [fx, fy] = frameOrigin(hit, win);
        const inner = elementAt(d, hit.contentWindow, x - fx, y - fy);
        if (inner) return inner;
      }
    }
    return hit;
  };
  // control is the form control a label stands for, the <select> of an
  // option (a list box shows its options at the point), else el.
  const control = (el) => {
    if (el && tag(el) === 'label' && el.control) return el.control;
    if (el && (tag(el) === 'option' || tag(el) === 'optgroup') && el.closest('select')) return el.closest('select');
    return el;
  };
  const SET_VALUE = new Set(['color', 'date', 'time', 'datetime-local', 'month', 'range', 'week']);

  switch (opts.op) {
    case 'mark': {
      const st = state(window);
      if (st.prefixed) unaria(st.prefixed); // a marking whose tree was never read
      // (kept before marking, so a marking that fails half-way is undone too)
      st.prefixed = opts.aria ? prefixed : null;
      markFrame(document, window, '', 0, 0, top);
      return { props: full ? props : null, secrets, focused: focusedBid(), warnings };
    }
    case 'unaria': {
      const st = state(window);
      if (st.prefixed) unaria(st.prefixed);
      st.prefixed = null;
      return { warnings };
    }
    case 'point':
      return { target: pointAt(document, window, opts.x, opts.y, 0, 0, []), warnings };
    case 'focused':
      return { target: focusedIn(document, window, 0, 0, []), warnings };
    case 'setvalue': {
      // Playwright's fill for the inputs whose value is set, not typed.
      const el = control(elementAt(document, window, opts.x, opts.y));
      if (!el || tag(el) !== 'input' || !SET_VALUE.has((el.type || '').toLowerCase())) {
        return { error: 'Error: the element at (' + opts.x + ', ' + opts.y + ') is ' + (el ? 'a <' + tag(el) + (tag(el) === 'input' ? ' type=' + el.type : '') + '>' : 'nothing') + ', not an input of type ' + [...SET_VALUE].join(', '), warnings };
      }
      const value = opts.value.trim();
      el.focus();
      el.value = value;
      if (el.value !== value) return { error: 'Error: Malformed value', warnings };
      el.dispatchEvent(new Event('input', { bubbles: true, composed: true }));
      el.dispatchEvent(new Event('change', { bubbles: true }));
      return { values: [el.value], warnings };
    }
    case 'select': {
      // Playwright's selectOption: each option by value or label.
      const el = control(elementAt(document, window, opts.x, opts.y));
      if (!el || tag(el) !== 'select') return { error: 'Error: Element is not a <select> element', warnings };
      let want = opts.values.slice();
      const picked = [];
      for (const o of el.options) {
        const match = (v) => v === o.value || v === o.label;
        if (!want.some(match)) continue;
        picked.push(o);
        if (el.multiple) want = want.filter((v) => !match(v));
        else { want = []; break; }
      }
      if (want.length) return { error: 'Error: no option of the <select> has the value or label ' + want.map((v) => JSON.stringify(v)).join(', '), warnings };
      el.value = undefined;
      for (const o of picked) o.selected = true;
      el.dispatchEvent(new Event('input', { bubbles: true, composed: true }));
      el.dispatchEvent(new Event('change', { bubbles: true }));
      return { values: picked.map((o) => o.value), warnings };
    }
    case 'find': {
      markFrame(document, window, '', 0, 0, top);
      let got = findIn(document, window, opts.bid, 0, 0, []);
      if (!got) return { target: null, warnings };
      if (opts.scroll) {
        const r = got.el.getBoundingClientRect();
        const cx = r.left + got.ox + r.width / 2, cy = r.top + got.oy + r.height / 2;
        if (cx < 0 || cy < 0 || cx >= window.innerWidth || cy >= window.innerHeight) {
          got.el.scrollIntoView({ block: 'center', inline: 'center', behavior: 'instant' });
          got = findIn(document, window, opts.bid, 0, 0, []) || got;
        }
      }
      if (opts.focus && typeof got.el.focus === 'function') got.el.focus({ preventScroll: true });
      return { target: describe(got.el, got.ox, got.oy, got.outer), shown: got.el.getClientRects().length > 0, warnings };
    }
  }
  throw new Error('marks: unknown op ' + opts.op);
}
