// Waymark's personal-data finder: given a redaction policy (POLICY), returns
// the boxes (viewport pixels of this frame) of what it selects — form fields
// by type and autocomplete token, elements by CSS selector, and runs of text
// that match its patterns, text split across inline elements included —
// inside same-origin frames too, clipped by the viewport and by every
// scrolling or clipping ancestor; the values found (for the text the engine
// stores); and the boxes of the frames whose documents it cannot read, for
// the engine to look into itself. It changes nothing in the page. It is a
// function of the policy; the engine installs it in every document of an
// episode under a policy (window[Symbol.for('waymark.redact')]), so each
// observation's call is short.
((P) => {
  const out = {boxes: [], values: [], frames: []};
  const seen = new Set();
  const value = (v) => {
    v = String(v || '').trim();
    if (v.length >= 3 && v.length <= 400 && !seen.has(v)) { seen.add(v); out.values.push(v); }
  };
  const digits = (s) => s.replace(/\D/g, '');
  const luhn = (s) => {
    const d = digits(s);
    if (d.length < 13 || d.length > 19) return false;
    let sum = 0;
    for (let i = d.length - 1, k = 0; i >= 0; i--, k++) {
      let n = d.charCodeAt(i) - 48;
      if (k % 2 === 1) { n *= 2; if (n > 9) n -= 9; }
      sum += n;
    }
    return sum % 10 === 0;
  };
  const iban = (s) => {
    s = s.replace(/ /g, '');
    if (s.length < 15 || s.length > 34) return false;
    const r = s.slice(4) + s.slice(0, 4);
    let rem = 0;
    for (const c of r) {
      const code = c.charCodeAt(0);
      if (code >= 48 && code <= 57) rem = (rem * 10 + code - 48) % 97;
      else if (code >= 65 && code <= 90) rem = (rem * 100 + code - 55) % 97;
      else return false;
    }
    return rem === 1;
  };
  const phone = (s) => { const n = digits(s).length; return n >= 9 && n <= 15; };
  const word = /[0-9A-Za-z_]/;
  const builtin = {
    email: [/[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}/g, null, false],
    phone: [/(?:\+\d{1,3}[\s.-]?)?(?:\(\d{1,4}\)[\s.-]?|\d{2,4}[\s.-])\d{2,4}(?:[\s.-]\d{2,4}){1,3}/g, phone, true],
    card: [/\d(?:[ -]?\d){12,18}/g, luhn, true],
    iban: [/[A-Z]{2}\d{2}(?: ?[A-Z0-9]){11,30}/g, iban, true],
  };
  const pats = [];
  for (const n of P.patterns || []) if (builtin[n]) pats.push([n].concat(builtin[n]));
  (P.regexps || []).forEach((r, i) => { try { pats.push(['regexp ' + (i + 1), new RegExp(r, 'g'), null, false]); } catch (e) {} });
  const find = (s) => {
    const ms = [];
    for (const [why, re, ok, bounded] of pats) {
      re.lastIndex = 0;
      let m;
      while ((m = re.exec(s)) !== null) {
        if (m[0] === '') { re.lastIndex++; continue; }
        const a = m.index, b = a + m[0].length;
        if (ok && !ok(m[0])) continue;
        if (bounded && ((a > 0 && word.test(s[a - 1])) || (b < s.length && word.test(s[b])))) continue;
        ms.push([a, b, why]);
      }
    }
    ms.sort((x, y) => x[0] - y[0]);
    const merged = [];
    for (const m of ms) {
      const last = merged[merged.length - 1];
      if (last && m[0] < last[1]) { if (m[1] > last[1]) last[1] = m[1]; continue; }
      merged.push(m);
    }
    return merged;
  };
  const inter = (a, b) => {
    const x = Math.max(a.x, b.x), y = Math.max(a.y, b.y);
    const r = Math.min(a.x + a.w, b.x + b.w), bt = Math.min(a.y + a.h, b.y + b.h);
    return r > x && bt > y ? {x, y, w: r - x, h: bt - y} : null;
  };
  // The region of the frame that shows el: the viewport, cut by every
  // ancestor that clips what overflows it.
  const clipOf = (el, view) => {
    let c = view;
    for (let a = el.parentElement; a && c; a = a.parentElement) {
      const st = getComputedStyle(a);
      if (st.overflowX !== 'visible' || st.overflowY !== 'visible' || st.contain.includes('paint')) {
        const r = a.getBoundingClientRect();
        c = inter(c, {x: r.left + a.clientLeft, y: r.top + a.clientTop, w: a.clientWidth, h: a.clientHeight});
      }
    }
    return c;
  };
  const add = (r, why, el, f) => {
    if (!r || r.width < 1 || r.height < 1) return;
    const c = clipOf(el, f.view);
    if (!c) return;
    const b = inter({x: r.left, y: r.top, w: r.width, h: r.height}, c);
    if (!b) return;
    out.boxes.push({x: Math.floor(b.x + f.ox), y: Math.floor(b.y + f.oy), w: Math.ceil(b.w + (b.x - Math.floor(b.x))), h: Math.ceil(b.h + (b.y - Math.floor(b.y))), why});
  };
  const tokenMatch = (ac) => {
    const toks = String(ac || '').toLowerCase().split(/\s+/).filter(Boolean);
    for (const t of toks) {
      for (const want of P.autocomplete || []) {
        const w = want.toLowerCase();
        if (w.endsWith('*') || w.endsWith('-') ? t.startsWith(w.replace(/\*$/, '')) : t === w) return t;
      }
    }
    return '';
  };
  const inline = new Set(['A', 'ABBR', 'B', 'BDI', 'BDO', 'CITE', 'CODE', 'DATA', 'DFN', 'EM', 'I', 'KBD', 'MARK', 'Q', 'S', 'SAMP',
    'SMALL', 'SPAN', 'STRONG', 'SUB', 'SUP', 'TIME', 'U', 'VAR', 'LABEL', 'FONT', 'WBR']);
  const skip = new Set(['SCRIPT', 'STYLE', 'NOSCRIPT', 'TEMPLATE', 'TEXTAREA', 'OPTION']);
  const blockOf = (n) => { let e = n.parentElement; while (e && inline.has(e.tagName)) e = e.parentElement; return e; };

  const walk = (doc, f) => {
    if (!doc || !doc.documentElement) return;
    for (const sel of P.selectors || []) {
      let els = [];
      try { els = doc.querySelectorAll(sel); } catch (e) { continue; }
      for (const el of els) {
        add(el.getBoundingClientRect(), 'selector ' + sel, el, f);
        value(el.value !== undefined && el.tagName !== 'BUTTON' ? el.value : el.innerText);
      }
    }
    for (const el of doc.querySelectorAll('input, textarea, select')) {
      const type = (el.getAttribute('type') || '').toLowerCase();
      let why = '';
      if (el.tagName === 'INPUT' && (P.input_types || []).includes(type)) why = 'input type=' + type;
      const tok = tokenMatch(el.getAttribute('autocomplete'));
      if (!why && tok) why = 'autocomplete ' + tok;
      const v = el.tagName === 'SELECT' ? (el.selectedOptions[0] ? el.selectedOptions[0].text : '') : el.value;
      if (!why && v) { const m = find(String(v)); if (m.length) why = 'pattern ' + m[0][2] + ' in a field'; }
      if (why) { add(el.getBoundingClientRect(), why, el, f); value(v); }
    }
    // Text: the text nodes of one block run together, so a value split
    // across inline elements is found whole.
    const body = doc.body || doc.documentElement;
    const tw = doc.createTreeWalker(body, NodeFilter.SHOW_TEXT, {acceptNode: (n) => {
      for (let e = n.parentElement; e; e = e.parentElement) if (skip.has(e.tagName)) return NodeFilter.FILTER_REJECT;
      return NodeFilter.FILTER_ACCEPT;
    }});
    const runs = [];
    let cur = null;
    for (let n = tw.nextNode(); n; n = tw.nextNode()) {
      const b = blockOf(n);
      if (!cur || cur.block !== b) { cur = {block: b, nodes: [], text: ''}; runs.push(cur); }
      cur.nodes.push([n, cur.text.length]);
      cur.text += n.nodeValue;
    }
    for (const run of runs) {
      if (!/\S/.test(run.text)) continue;
      for (const [a, b, why] of find(run.text)) {
        const at = (pos, end) => {
          let i = run.nodes.length - 1;
          while (i > 0 && (run.nodes[i][1] > pos || (end && run.nodes[i][1] === pos))) i--;
          return [run.nodes[i][0], pos - run.nodes[i][1]];
        };
        const [sn, so] = at(a, false), [en, eo] = at(b, true);
        const range = doc.createRange();
        try { range.setStart(sn, so); range.setEnd(en, eo); } catch (e) { continue; }
        for (const r of range.getClientRects()) add(r, 'pattern ' + why, sn.parentElement, f);
        value(run.text.slice(a, b));
        // A value split across elements is also stored in pieces (the DOM
        // snapshot and the tree keep each element's text apart).
        if (sn !== en) {
          for (const [n, off] of run.nodes) {
            const x = Math.max(a, off), y = Math.min(b, off + n.nodeValue.length);
            if (y > x) value(run.text.slice(x, y));
          }
        }
      }
    }
    for (const fr of doc.querySelectorAll('iframe, frame')) {
      const r = fr.getBoundingClientRect();
      const inner = {x: r.left + fr.clientLeft, y: r.top + fr.clientTop, w: fr.clientWidth, h: fr.clientHeight};
      const shown = inter(inner, clipOf(fr, f.view) || {x: 0, y: 0, w: 0, h: 0});
      if (!shown) continue;
      let d = null;
      try { d = fr.contentDocument; } catch (e) {}
      if (d && d.documentElement) {
        const view = {x: shown.x - inner.x, y: shown.y - inner.y, w: shown.w, h: shown.h};
        walk(d, {ox: f.ox + inner.x, oy: f.oy + inner.y, view});
      } else {
        out.frames.push({x: Math.floor(f.ox + shown.x), y: Math.floor(f.oy + shown.y), w: Math.ceil(shown.w), h: Math.ceil(shown.h)});
      }
    }
  };
  walk(document, {ox: 0, oy: 0, view: {x: 0, y: 0, w: innerWidth, h: innerHeight}});
  return out;
})
