package browser

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func TestParseLoadavg(t *testing.T) {
	for _, c := range []struct {
		in     string
		cpus   int
		factor float64
		text   string
	}{
		{"0.52 0.58 0.59 1/467 12345\n", 2, 1, "load average 0.5 on 2 CPUs"},
		{"3.00 1.00 0.50 2/467 12345", 2, 1.5, "load average 3.0 on 2 CPUs"},
		// Eight tasks runnable now count before the average catches up.
		{"1.00 0.50 0.20 9/500 1", 2, 4, "load average 1.0 on 2 CPUs"},
		{"6.50 3.00 1.00 3/500 1", 2, 3.25, "load average 6.5 on 2 CPUs"},
		{"37.3 20.1 9.0 12/900 1", 2, maxBusyFactor, "load average 37.3 on 2 CPUs"},
		{"37.3 20.1 9.0 12/900 1", 16, 37.3 / 16, "load average 37.3 on 16 CPUs"},
		{"5.0 1 1 1/1 1", 0, maxBusyFactor, "load average 5.0 on 1 CPU"},
		{"", 2, 1, "the machine's load could not be read"},
		{"x 1 1 1/2 3", 2, 1, "the machine's load could not be read"},
		{"-1 1 1 1/2 3", 2, 1, "the machine's load could not be read"},
		{"1.0 1 1 12 3", 2, 1, "the machine's load could not be read"},
		{"1.0 1 1 a/2 3", 2, 1, "the machine's load could not be read"},
	} {
		h := parseLoadavg(c.in, c.cpus)
		if got := h.factor(); got != c.factor {
			t.Errorf("%q on %d CPUs: factor %v, want %v", c.in, c.cpus, got, c.factor)
		}
		if got := h.String(); got != c.text {
			t.Errorf("%q on %d CPUs: %q, want %q", c.in, c.cpus, got, c.text)
		}
	}
	if h := readHostLoad(); !h.readable || h.cpus < 1 {
		t.Errorf("this machine's /proc/loadavg: %+v", h)
	}
}

// A start's deadline is its base on an idle machine and grows with the
// busiest load seen while it waits, never shrinking again.
func TestPatientStart(t *testing.T) {
	idle := parseLoadavg("0.1 0.1 0.1 1/100 1", 2)
	busy := parseLoadavg("6.0 2.0 1.0 3/100 1", 2) // factor 3

	begin := time.Now()
	ctx, cancel, p := newPatientStart(context.Background(), 200*time.Millisecond, func() hostLoad { return idle })
	defer cancel()
	<-ctx.Done()
	if d := time.Since(begin); d < 200*time.Millisecond || d > 2*time.Second {
		t.Errorf("idle start ended after %v, want 200 ms", d)
	}
	if got := p.timedOut(); got != "within 0s" {
		t.Errorf("idle timed out: %q", got)
	}

	// Busy from the third reading on, idle again after the sixth.
	var reads atomic.Int32
	load := func() hostLoad {
		switch n := reads.Add(1); {
		case n >= 3 && n <= 6:
			return busy
		default:
			return idle
		}
	}
	begin = time.Now()
	ctx, cancel, p = newPatientStart(context.Background(), time.Second, load)
	defer cancel()
	<-ctx.Done()
	if d := time.Since(begin); d < 3*time.Second || d > 6*time.Second {
		t.Errorf("a start that met a busy machine ended after %v, want 3 s (1 s × factor 3)", d)
	}
	if got := p.timedOut(); got != "within 3s (the machine is busy: load average 6.0 on 2 CPUs)" {
		t.Errorf("busy timed out: %q", got)
	}

	// The parent's end ends it at once.
	parent, stop := context.WithCancel(context.Background())
	ctx, cancel, _ = newPatientStart(parent, time.Hour, func() hostLoad { return idle })
	defer cancel()
	stop()
	select {
	case <-ctx.Done():
	case <-time.After(time.Second):
		t.Error("the parent's cancel did not end the start")
	}
	if !strings.Contains(context.Cause(ctx).Error(), "canceled") {
		t.Errorf("cause %v", context.Cause(ctx))
	}
}
