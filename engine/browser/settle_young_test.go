package browser

import (
	"encoding/json"
	"strings"
	"testing"

	"waymark/engine"
)

// youngHarness evaluates a copy of the settle recorder in the page on a
// clock and timers the test drives: Date.now is window.__t, and
// setTimeout/setInterval only keep their callbacks (window.__cbs, by id)
// until the test calls them. pend(since) is the copy's count of pending
// timers and intervals for an action that began at since.
const youngHarness = `(() => {
  window.__t = Date.now() + 1e7; // ahead of the document's time origin
  Date.now = () => window.__t;
  const cbs = window.__cbs = new Map(); let n = 0;
  window.setTimeout = window.setInterval = (fn) => { cbs.set(++n, fn); return n; };
  window.clearTimeout = window.clearInterval = (id) => { cbs.delete(id); };
  RECORDER;
  const st = window[Symbol.for('waymark.settle.test')];
  window.__pend = since => { const a = [document.readyState, 0, 0, 0, 0, 0, 0, 0, 0, [], 0, 0]; st.local(100, a, since); return a[2]; };
  window.__fire = (id, at) => { window.__t = at; cbs.get(id)(); };
  window.__touch = () => document.body.appendChild(document.createElement('i'));
  return true;
})()`

// The young-timer rule at its bounds, on a clock the test sets to the
// millisecond (so it says the same on any machine): a timeout of 1000 ms
// is the action's, 1001 ms is not; a chain of callbacks is young while
// its age is at most 1 s (1000 ms: its next callback counts; 1001 ms: it
// is a poller and does not), and a late callback ages its chain by what
// it asked for plus 16 ms at most; an interval the action started counts
// before its first tick when it ticks every 100 ms or faster (not 101),
// and after a tick that changed the page while its next tick comes by
// 1 s (a tick at 900 ms of a 100 ms interval: yes; at 901 ms: no), also
// one started in the action's very millisecond; one started a millisecond
// before the action, or whose last tick changed nothing, never.
func TestSettleYoungTimerBoundaries(t *testing.T) {
	site := newSite(t)
	e := newEngine(t, engine.DisplayHeadless, nil)
	reset(t, e, site.URL+"/page2")
	rec := strings.ReplaceAll(settleScript, "Symbol.for('waymark.settle')", "Symbol.for('waymark.settle.test')")
	if rec == settleScript {
		t.Fatal("the recorder's symbol was not found")
	}
	if !eval[bool](t, e, strings.Replace(youngHarness, "RECORDER", rec, 1)) {
		t.Fatal("the harness did not load")
	}
	got := eval[string](t, e, `(() => {
  const T0 = window.__t, out = {};
  const at = (ms) => { window.__t = T0 + ms; };
  const noop = () => {};
  // Timeouts: how long they ask for.
  at(0); let id = setTimeout(noop, 1000); out.timeout1000 = __pend(T0); clearTimeout(id);
  id = setTimeout(noop, 1001); out.timeout1001 = __pend(T0); clearTimeout(id);
  // Chains: 500 ms, then 500 (age 1000) or 501 (age 1001), then a third.
  for (const [name, second] of [['chain1000', 500], ['chain1001', 501]]) {
    at(0); let next;
    const a = setTimeout(() => { next = setTimeout(() => { setTimeout(noop, 10); }, 500); }, 500);
    __fire(a, T0 + 500);
    __fire(next, T0 + 500 + second);
    out[name] = __pend(T0);
    for (const k of [...__cbs.keys()]) clearTimeout(k);
  }
  // A late callback ages its chain by at most what it asked for + 16 ms.
  for (const [name, late] of [['late16', 16], ['late17', 17]]) {
    at(0); let next;
    const a = setTimeout(() => { next = setTimeout(() => { setTimeout(noop, 10); }, 84); }, 900);
    __fire(a, T0 + 900);
    __fire(next, T0 + 900 + 84 + late);
    out[name] = __pend(T0);
    for (const k of [...__cbs.keys()]) clearTimeout(k);
  }
  // Intervals the action started (it began 1 ms before them).
  at(0); id = setInterval(noop, 100); out.interval100untick = __pend(T0 - 1); clearInterval(id);
  at(0); id = setInterval(noop, 101); out.interval101untick = __pend(T0 - 1); clearInterval(id);
  for (const [name, tick] of [['tick900', 900], ['tick901', 901]]) {
    at(0); id = setInterval(__touch, 100);
    __fire(id, T0 + tick);
    out[name] = __pend(T0 - 1); clearInterval(id);
  }
  at(0); id = setInterval(noop, 100); __fire(id, T0 + 100); out.tickNoChange = __pend(T0 - 1); clearInterval(id);
  at(0); id = setInterval(__touch, 100); __fire(id, T0 + 100); out.startedBefore = __pend(T0 + 1); clearInterval(id);
  at(0); id = setInterval(__touch, 100); __fire(id, T0 + 100); out.startedWithTheAction = __pend(T0); clearInterval(id);
  return JSON.stringify(out);
})()`)
	var res map[string]int
	if err := json.Unmarshal([]byte(got), &res); err != nil {
		t.Fatalf("%v: %s", err, got)
	}
	want := map[string]int{
		"timeout1000": 1, "timeout1001": 0,
		"chain1000": 1, "chain1001": 0,
		"late16": 1, "late17": 1,
		"interval100untick": 1, "interval101untick": 0,
		"tick900": 1, "tick901": 0,
		"tickNoChange": 0, "startedBefore": 0, "startedWithTheAction": 1,
	}
	for k, w := range want {
		if g, ok := res[k]; !ok || g != w {
			t.Errorf("%s: %d pending, want %d", k, g, w)
		}
	}
}
