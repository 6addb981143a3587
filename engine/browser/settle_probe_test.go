package browser

import (
	"math"
	"testing"
	"time"
)

// A message posted by the action's code keeps the page busy until a
// message is received after it, for at most postWait (1 s) — exactly 1 s
// after it is still busy, a nanosecond later not. A message received at
// the same millisecond as the post does not answer it (it may be the
// post's own echo); one received before it never does.
func TestProbePostedBound(t *testing.T) {
	sent := time.UnixMilli(1_700_000_000_000)
	for _, c := range []struct {
		name       string
		sent, recv time.Time
		now        time.Time
		want       bool
	}{
		{"nothing posted", time.Time{}, time.Time{}, sent, false},
		{"posted, nothing received, just now", sent, time.Time{}, sent, true},
		{"posted, nothing received, 1 s ago", sent, time.Time{}, sent.Add(time.Second), true},
		{"posted, nothing received, 1 s + 1 ns ago", sent, time.Time{}, sent.Add(time.Second + time.Nanosecond), false},
		{"received 1 ms before the post", sent, sent.Add(-time.Millisecond), sent.Add(500 * time.Millisecond), true},
		{"received the same millisecond", sent, sent, sent.Add(500 * time.Millisecond), false},
		{"received 1 ms after", sent, sent.Add(time.Millisecond), sent.Add(500 * time.Millisecond), false},
	} {
		p := probe{sent: c.sent, recv: c.recv}
		if got := p.posted(c.now); got != c.want {
			t.Errorf("%s: posted = %v, want %v", c.name, got, c.want)
		}
	}
	if postWait != time.Second {
		t.Errorf("postWait = %v, want the young-timer rule's 1 s", postWait)
	}
}

// parseProbe reads each slot of the recorder's answer into its own field:
// the pending counts (timers, frames, idle callbacks, scrolls, animations)
// add up, times are milliseconds since the epoch (0, negative and NaN are
// none), the pollers' addresses become a set.
func TestParseProbeEachField(t *testing.T) {
	raw := []any{"interactive", 1_700_000_000_123.0, 1.0, 2.0, 4.0, 8.0, 16.0, 1_700_000_000_999.0,
		1_700_000_000_050.0, []any{"http://a.test/poll", "http://b.test/x", 7.0}, 1_700_000_000_200.0, 1_700_000_000_300.0}
	p := parseProbe(raw)
	if !p.ok || p.ready != "interactive" {
		t.Errorf("ok, ready = %v, %q", p.ok, p.ready)
	}
	if p.pending != 31 {
		t.Errorf("pending = %d, want 31 (1+2+4+8+16; slot 7, the page's clock, is no count)", p.pending)
	}
	if want := time.UnixMilli(1_700_000_000_123); !p.last.Equal(want) {
		t.Errorf("last = %v, want %v", p.last, want)
	}
	if want := time.UnixMilli(1_700_000_000_050); !p.lateLoad.Equal(want) {
		t.Errorf("lateLoad = %v, want %v", p.lateLoad, want)
	}
	if want := time.UnixMilli(1_700_000_000_200); !p.sent.Equal(want) {
		t.Errorf("sent = %v, want %v", p.sent, want)
	}
	if want := time.UnixMilli(1_700_000_000_300); !p.recv.Equal(want) {
		t.Errorf("recv = %v, want %v", p.recv, want)
	}
	if len(p.bg) != 2 || !p.bg["http://a.test/poll"] || !p.bg["http://b.test/x"] {
		t.Errorf("bg = %v, want the two addresses", p.bg)
	}

	// During a navigation the recorder is not there: only readyState.
	if p := parseProbe([]any{"loading"}); !p.ok || p.ready != "loading" || p.pending != 0 || !p.last.IsZero() || p.bg != nil {
		t.Errorf("a page without the recorder = %+v", p)
	}
	if p := parseProbe(nil); p.ok {
		t.Errorf("no answer = %+v, want not ok", p)
	}
	// No pollers: no set.
	raw[9] = []any{}
	if p := parseProbe(raw); p.bg != nil {
		t.Errorf("bg = %v, want nil", p.bg)
	}
	for _, v := range []any{0.0, -5.0, math.NaN(), "x", nil} {
		if got := msTime(v); !got.IsZero() {
			t.Errorf("msTime(%v) = %v, want zero", v, got)
		}
	}
	if got := msTime(1.0); !got.Equal(time.UnixMilli(1)) {
		t.Errorf("msTime(1) = %v", got)
	}
}

// A page counts as untouched (observed at once, settleShot) only when every
// condition holds; each case breaks exactly one.
func TestUntouchedEachCondition(t *testing.T) {
	since := time.UnixMilli(1_700_000_000_000).Add(400 * time.Microsecond)
	now := since.Add(15 * time.Millisecond)
	base := probe{ok: true, ready: "complete", last: since.Add(-time.Second)}
	if !untouched(base, since, now, false, time.Minute) {
		t.Fatal("a loaded page with no activity since the action is not untouched")
	}
	for _, c := range []struct {
		name     string
		p        func(p probe) probe
		busy     bool
		sinceNet time.Duration
	}{
		{"no answer", func(p probe) probe { p.ok = false; return p }, false, time.Minute},
		{"loading", func(p probe) probe { p.ready = "interactive"; return p }, false, time.Minute},
		{"pending", func(p probe) probe { p.pending = 1; return p }, false, time.Minute},
		{"frames not drawn", func(p probe) probe { p.undrawn = true; return p }, false, time.Minute},
		{"activity in the action's millisecond", func(p probe) probe { p.last = since.Truncate(time.Millisecond); return p }, false, time.Minute},
		{"activity after the action", func(p probe) probe { p.last = now; return p }, false, time.Minute},
		{"network busy", func(p probe) probe { return p }, true, time.Minute},
		{"network event lately", func(p probe) probe { return p }, false, netQuiet - time.Millisecond},
		{"late document young", func(p probe) probe { p.lateLoad = now.Add(-lateQuiet + time.Millisecond); return p }, false, time.Minute},
	} {
		if untouched(c.p(base), since, now, c.busy, c.sinceNet) {
			t.Errorf("%s: counted as untouched", c.name)
		}
	}
	old := base
	old.lateLoad = now.Add(-lateQuiet)
	old.last = since.Truncate(time.Millisecond).Add(-time.Millisecond)
	if !untouched(old, since, now, false, netQuiet) {
		t.Error("activity the millisecond before the action, a late document lateQuiet old and the network quiet for netQuiet: not untouched")
	}
}
