// For each point [x, y] of the viewport: the box of the element painted
// there, widened to its nearest ancestor that clips what it holds (a
// carousel's strip), or null where nothing is painted (the page's root)
// or on an editable field, whose text must stay compared.
((pts) => {
  const vw = innerWidth, vh = innerHeight;
  const name = (el) => {
    let s = el.localName;
    if (el.id) s += '#' + el.id;
    else if (typeof el.className === 'string' && el.className.trim()) s += '.' + el.className.trim().split(/\s+/).slice(0, 2).join('.');
    return s;
  };
  const root = (el) => el === document.documentElement || el === document.body;
  return pts.map(([x, y]) => {
    const el = document.elementFromPoint(x + 0.5, y + 0.5);
    if (!el || root(el)) return null;
    if (el.isContentEditable || /^(input|textarea|select)$/.test(el.localName)) return null;
    let box = el, why = name(el);
    for (let p = el; p && !root(p); p = p.parentElement) {
      const cs = getComputedStyle(p);
      if (cs.overflowX !== 'visible' || cs.overflowY !== 'visible') {
        if (p !== el) why += ' inside ' + name(p);
        box = p;
        break;
      }
    }
    const r = box.getBoundingClientRect();
    const x0 = Math.max(0, Math.floor(r.left)), y0 = Math.max(0, Math.floor(r.top));
    const x1 = Math.min(vw, Math.ceil(r.right)), y1 = Math.min(vh, Math.ceil(r.bottom));
    if (x1 <= x0 || y1 <= y0) return null;
    return { x: x0, y: y0, w: x1 - x0, h: y1 - y0, why: why };
  });
})
