package chromium

import (
	"context"
	"math"
	"sync/atomic"
	"testing"
	"time"
)

func TestParseLoadavg(t *testing.T) {
	for _, c := range []struct {
		in      string
		cpus    int
		running int
		ok      bool
	}{
		{"0.52 0.58 0.59 1/467 12345\n", 2, 0, true},
		{"37.3 20.1 9.0 12/900 1", 2, 11, true},
		{"1 1 1 0/10 1", 0, 0, true},
		{"", 2, 0, false},
		{"1.0 1 1 12 3", 2, 0, false},
		{"1.0 1 1 a/2 3", 2, 0, false},
		{"1.0 1 1 -3/2 3", 2, 0, false},
	} {
		h := parseLoadavg(c.in, c.cpus)
		if h.running != c.running || h.readable != c.ok || h.cpus != max(c.cpus, 1) {
			t.Errorf("%q on %d CPUs: %+v, want %d running, readable %v", c.in, c.cpus, h, c.running, c.ok)
		}
	}
	if h := readHostLoad(); !h.readable || h.cpus < 1 {
		t.Errorf("this machine's /proc/loadavg: %+v", h)
	}
}

// A start's deadline is its base on an idle machine and grows with the
// tasks runnable per CPU on average while it waits, up to 4 times.
func TestPatientStart(t *testing.T) {
	load := func(running ...int) func() hostLoad {
		var n atomic.Int32
		return func() hostLoad {
			i := int(n.Add(1)) - 1
			return hostLoad{running: running[min(i, len(running)-1)], cpus: 2, readable: true}
		}
	}
	for _, c := range []struct {
		name    string
		base    time.Duration
		load    func() hostLoad
		allowed time.Duration
		says    string
	}{
		{"idle", 500 * time.Millisecond, load(0, 1, 2), 500 * time.Millisecond, "within 1s"},
		// 6 runnable on 2 CPUs: 3 times the base.
		{"busy", time.Second, load(6), 3 * time.Second,
			"within 3s (the machine is busy: 6.0 tasks wanted its 2 CPUs on average)"},
		// 20 per CPU: the cap, 4 times.
		{"very busy", 500 * time.Millisecond, load(40), 2 * time.Second,
			"within 2s (the machine is busy: 40.0 tasks wanted its 2 CPUs on average)"},
		{"unreadable", 500 * time.Millisecond, func() hostLoad { return hostLoad{cpus: 2} }, 500 * time.Millisecond, "within 1s"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			begin := time.Now()
			ctx, cancel, p := newPatientStart(context.Background(), c.base, c.load)
			defer cancel()
			// The deadline is checked exactly (allowed); the wall time only
			// from below: how late after it the watcher's 250 ms tick runs
			// is the scheduler's business (1.65 s late beside another make
			// test), and a start that never ended fails the hang guard.
			select {
			case <-ctx.Done():
			case <-time.After(c.allowed + time.Minute):
				t.Fatalf("the start had not ended a minute after its %v", c.allowed)
			}
			if d := time.Since(begin); d < c.allowed {
				t.Errorf("ended after %v, before its %v", d, c.allowed)
			}
			if got := p.allowed(); got != c.allowed {
				t.Errorf("allowed %v, want %v", got, c.allowed)
			}
			if got := p.timedOut(); got != c.says {
				t.Errorf("says %q, want %q", got, c.says)
			}
		})
	}
	t.Run("parent", func(t *testing.T) {
		parent, stop := context.WithCancel(context.Background())
		ctx, cancel, _ := newPatientStart(parent, time.Hour, load(0))
		defer cancel()
		stop()
		select {
		case <-ctx.Done():
		case <-time.After(time.Second):
			t.Error("the parent's cancel did not end the start")
		}
	})
}

// The page operations' patience follows the runnable tasks per CPU: it
// rises to the cap under a sustained load of 4 tasks per CPU and more, and
// falls back to 1 when the machine is idle; an unreadable load changes
// nothing.
func TestBusyFactorFollowsTheLoad(t *testing.T) {
	var factor atomic.Uint64
	factor.Store(math.Float64bits(1))
	var running atomic.Int64
	readable := atomic.Bool{}
	readable.Store(true)
	load := func() hostLoad { return hostLoad{running: int(running.Load()), cpus: 2, readable: readable.Load()} }
	stop := make(chan struct{})
	defer close(stop)
	go sampleHostBusy(&factor, load, time.Millisecond, stop)
	waitFactor := func(want func(float64) bool, what string) {
		t.Helper()
		for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
			if want(math.Float64frombits(factor.Load())) {
				return
			}
		}
		t.Fatalf("the factor never became %s (it is %v)", what, math.Float64frombits(factor.Load()))
	}
	running.Store(20) // 10 tasks per CPU
	waitFactor(func(f float64) bool { return f == MaxBusyFactor }, "the cap")
	readable.Store(false)
	time.Sleep(20 * time.Millisecond)
	if f := math.Float64frombits(factor.Load()); f != MaxBusyFactor {
		t.Errorf("an unreadable load moved the factor to %v", f)
	}
	readable.Store(true)
	running.Store(0)
	waitFactor(func(f float64) bool { return f == 1 }, "1")
	running.Store(5) // 2.5 per CPU
	waitFactor(func(f float64) bool { return f > 2.4 && f < 2.6 }, "about 2.5")
}
