// The regions of the viewport that endless CSS animations and Web
// Animations paint in. Each running animation that repeats forever is
// sampled at 16 moments of its current iteration (currentTime set and set
// back within this task, so no frame is drawn and no animation event
// fires) and the boxes of its target and the target's first descendants
// are joined; the first 50 such animations are read, so a page full of
// them stays quick (what is left shows between two captures). The page
// sees nothing of it.
(() => {
  const vw = innerWidth, vh = innerHeight, out = [];
  const name = (el) => {
    let s = el.localName;
    if (el.id) s += '#' + el.id;
    else if (typeof el.className === 'string' && el.className.trim()) s += '.' + el.className.trim().split(/\s+/).slice(0, 2).join('.');
    return s;
  };
  const boxOf = (el, acc) => {
    const add = (r) => {
      if (r.width <= 0 || r.height <= 0) return;
      acc.x0 = Math.min(acc.x0, r.left); acc.y0 = Math.min(acc.y0, r.top);
      acc.x1 = Math.max(acc.x1, r.right); acc.y1 = Math.max(acc.y1, r.bottom);
    };
    add(el.getBoundingClientRect());
    const all = el.querySelectorAll('*');
    for (let i = 0; i < all.length && i < 64; i++) add(all[i].getBoundingClientRect());
  };
  let anims = [];
  try { anims = document.getAnimations(); } catch (e) { return []; }
  let seen = 0;
  for (const a of anims) {
    try {
      const eff = a.effect;
      if (a.playState !== 'running' || !eff || !eff.target) continue;
      const tm = eff.getComputedTiming();
      if (tm.iterations !== Infinity || !(tm.duration > 0) || tm.currentIteration == null) continue;
      if (++seen > 50) break;
      const el = eff.target;
      if (el.checkVisibility && !el.checkVisibility({ visibilityProperty: true })) continue;
      const acc = { x0: Infinity, y0: Infinity, x1: -Infinity, y1: -Infinity };
      const ct = a.currentTime;
      if (typeof ct === 'number') {
        // The start of the current iteration, in the animation's time.
        const d = tm.duration, delay = tm.delay || 0;
        const into = (((ct - delay + (eff.getTiming().iterationStart || 0) * d) % d) + d) % d;
        const from = ct - into;
        for (let k = 0; k < 16; k++) {
          a.currentTime = from + (k === 15 ? d - 0.01 : (k * d) / 15);
          boxOf(el, acc);
        }
        a.currentTime = ct;
      }
      boxOf(el, acc);
      const m = 2; // antialiased edges, thin shadows
      const x0 = Math.max(0, Math.floor(acc.x0) - m), y0 = Math.max(0, Math.floor(acc.y0) - m);
      const x1 = Math.min(vw, Math.ceil(acc.x1) + m), y1 = Math.min(vh, Math.ceil(acc.y1) + m);
      if (x1 <= x0 || y1 <= y0) continue;
      let kind = 'Web Animation';
      if (typeof CSSAnimation !== 'undefined' && a instanceof CSSAnimation) kind = 'CSS animation "' + a.animationName + '"';
      else if (a.id) kind = 'Web Animation "' + a.id + '"';
      const on = name(el) + (eff.pseudoElement ? eff.pseudoElement : '');
      out.push({ x: x0, y: y0, w: x1 - x0, h: y1 - y0, why: kind + ' on ' + on + ', repeating forever' });
    } catch (e) { /* an animation that cannot be read is left in the comparison */ }
  }
  return out;
})()
