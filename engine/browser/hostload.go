package browser

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Starting Xvfb and Chromium takes a few seconds on an idle machine and
// many times that when several browsers start at once on two cores, so
// their start timeouts grow with the load of the host: a start may take
// its base time multiplied by the busiest the machine was while it waited
// (runnable tasks per CPU), between 1 and maxBusyFactor.

// maxBusyFactor caps how much longer than on an idle machine a start may
// take: a start still not done then is stuck, not slow.
const maxBusyFactor = 4

// hostLoad is the machine's load: the 1-minute load average and the tasks
// runnable now, per CPU.
type hostLoad struct {
	load1    float64
	running  int
	cpus     int
	readable bool
}

// readHostLoad reads /proc/loadavg ("0.52 0.58 0.59 3/467 12345").
func readHostLoad() hostLoad {
	raw, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return hostLoad{cpus: runtime.NumCPU()}
	}
	return parseLoadavg(string(raw), runtime.NumCPU())
}

func parseLoadavg(s string, cpus int) hostLoad {
	h := hostLoad{cpus: max(cpus, 1)}
	f := strings.Fields(s)
	if len(f) < 4 {
		return h
	}
	l, err := strconv.ParseFloat(f[0], 64)
	if err != nil || l < 0 {
		return h
	}
	run, _, ok := strings.Cut(f[3], "/")
	n, err := strconv.Atoi(run)
	if !ok || err != nil || n < 0 {
		return h
	}
	// The reader itself is one of the running tasks.
	h.load1, h.running, h.readable = l, max(n-1, 0), true
	return h
}

// factor is how many times its idle time a start may take under this load.
func (h hostLoad) factor() float64 {
	if !h.readable {
		return 1
	}
	return min(max(max(h.load1, float64(h.running))/float64(h.cpus), 1), maxBusyFactor)
}

// String says how busy the machine is, for an error message.
func (h hostLoad) String() string {
	if !h.readable {
		return "the machine's load could not be read"
	}
	cpus := fmt.Sprintf("%d CPUs", h.cpus)
	if h.cpus == 1 {
		cpus = "1 CPU"
	}
	return fmt.Sprintf("load average %.1f on %s", h.load1, cpus)
}

// patientStart is a start's deadline that grows with the host's load.
type patientStart struct {
	base  time.Duration
	begin time.Time
	load  func() hostLoad

	mu      sync.Mutex
	busiest hostLoad
}

// newPatientStart returns a context that ends when the start has taken
// base times the highest load factor seen since it began (checked every
// 250 ms), and the start's record of that.
func newPatientStart(parent context.Context, base time.Duration, load func() hostLoad) (context.Context, context.CancelFunc, *patientStart) {
	p := &patientStart{base: base, begin: time.Now(), load: load}
	p.busiest = load()
	ctx, cancel := context.WithCancel(parent)
	go func() {
		t := time.NewTicker(250 * time.Millisecond)
		defer t.Stop()
		for {
			if time.Since(p.begin) >= p.allowed() {
				cancel()
				return
			}
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
			if h := p.load(); h.factor() > p.factorSeen() {
				p.mu.Lock()
				p.busiest = h
				p.mu.Unlock()
			}
		}
	}()
	return ctx, cancel, p
}

func (p *patientStart) factorSeen() float64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.busiest.factor()
}

// allowed is how long the start may take, given the load seen so far.
func (p *patientStart) allowed() time.Duration {
	return time.Duration(float64(p.base) * p.factorSeen())
}

// timedOut says how long a start that ran out of time waited and why it
// was given that long, e.g. "within 30s" or "within 1m12s (the machine
// is busy: load average 4.8 on 2 CPUs)".
func (p *patientStart) timedOut() string {
	p.mu.Lock()
	h := p.busiest
	p.mu.Unlock()
	s := "within " + p.allowed().Round(time.Second).String()
	if h.factor() > 1 {
		s += " (the machine is busy: " + h.String() + ")"
	}
	return s
}
