package chromium

import (
	"context"
	"fmt"
	"math"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Starting Xvfb and Chromium takes a few seconds on an idle machine and
// many times that when several browsers start at once on two cores, so
// their start timeouts grow with the host's load: a start may take its
// base time multiplied by the tasks that were runnable per CPU, on
// average, while it waited (between 1 and MaxBusyFactor). The load
// average is not used: it trails the machine by minutes and counts tasks
// waiting on the disk, so it stays high long after the CPUs went idle.

// MaxBusyFactor caps how much longer than on an idle machine a start (or
// a page operation, Patient) may take: one still not done then is stuck,
// not slow.
const MaxBusyFactor = 4

// hostLoad is a reading of the machine's load: the tasks runnable now
// (other than the reader) and the CPUs.
type hostLoad struct {
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
	run, _, ok := strings.Cut(f[3], "/")
	n, err := strconv.Atoi(run)
	if !ok || err != nil || n < 0 {
		return h
	}
	// The reader itself is one of the running tasks.
	h.running, h.readable = max(n-1, 0), true
	return h
}

// patientStart is a start's deadline that grows with the host's load.
type patientStart struct {
	base  time.Duration
	begin time.Time
	load  func() hostLoad

	mu     sync.Mutex
	cpus   int
	sum, n int // runnable tasks summed over n readings
}

// newPatientStart returns a context that ends when the start has taken
// base times the load factor of the readings so far (one every 250 ms),
// and the start's record of that.
func newPatientStart(parent context.Context, base time.Duration, load func() hostLoad) (context.Context, context.CancelFunc, *patientStart) {
	p := &patientStart{base: base, begin: time.Now(), load: load, cpus: 1}
	p.read()
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
			p.read()
		}
	}()
	return ctx, cancel, p
}

func (p *patientStart) read() {
	h := p.load()
	p.mu.Lock()
	defer p.mu.Unlock()
	if !h.readable {
		return // an unreadable load gives no more time
	}
	p.cpus = h.cpus
	p.sum += h.running
	p.n++
}

// mean is the runnable tasks per reading (0 before any).
func (p *patientStart) mean() float64 {
	if p.n == 0 {
		return 0
	}
	return float64(p.sum) / float64(p.n)
}

// factor is how many times its idle time the start may take.
func (p *patientStart) factor() float64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return min(max(p.mean()/float64(p.cpus), 1), MaxBusyFactor)
}

// allowed is how long the start may take, given the load seen so far.
func (p *patientStart) allowed() time.Duration {
	return time.Duration(float64(p.base) * p.factor())
}

// timedOut says how long a start that ran out of time waited and why it
// was given that long, e.g. "within 30s" or "within 1m12s (the machine
// is busy: 4.8 tasks wanted its 2 CPUs on average)".
func (p *patientStart) timedOut() string {
	s := "within " + p.allowed().Round(time.Second).String()
	if p.factor() > 1 {
		p.mu.Lock()
		s += fmt.Sprintf(" (the machine is busy: %.1f tasks wanted its %s on average)", p.mean(), cpuWord(p.cpus))
		p.mu.Unlock()
	}
	return s
}

func cpuWord(n int) string {
	if n == 1 {
		return "1 CPU"
	}
	return fmt.Sprintf("%d CPUs", n)
}

// Operations on a page (a click, a screenshot, opening a tab) get the same
// patience: their time limit is multiplied by how busy the machine has
// been lately, so a renderer that is only starved of CPU on a loaded host
// is not taken for a hung one. One sampler per process reads the runnable
// tasks every 250 ms and keeps a moving average.
var hostBusy struct {
	once   sync.Once
	factor atomic.Uint64 // math.Float64bits of the factor, 1 to MaxBusyFactor
	fixed  atomic.Uint64 // math.Float64bits of a factor a test holds (0: none)
}

// busyFactor is how many times its idle-machine time a page operation may
// take now (1 when the machine is idle or its load cannot be read).
func busyFactor() float64 {
	hostBusy.once.Do(func() {
		hostBusy.factor.Store(math.Float64bits(1))
		go sampleHostBusy(&hostBusy.factor, readHostLoad, 250*time.Millisecond, nil)
	})
	if f := hostBusy.fixed.Load(); f != 0 {
		return math.Float64frombits(f)
	}
	return math.Float64frombits(hostBusy.factor.Load())
}

// sampleHostBusy stores the factor (as math.Float64bits) in dst from load
// every interval, until stop (nil: for ever).
func sampleHostBusy(dst *atomic.Uint64, load func() hostLoad, every time.Duration, stop <-chan struct{}) {
	t := time.NewTicker(every)
	defer t.Stop()
	avg := 0.0
	for {
		if h := load(); h.readable {
			avg = 0.75*avg + 0.25*float64(h.running)/float64(max(h.cpus, 1))
			dst.Store(math.Float64bits(min(max(avg, 1), MaxBusyFactor)))
		}
		select {
		case <-stop:
			return
		case <-t.C:
		}
	}
}

// HoldBusyFactor makes Patient stretch by f, as on a machine that busy,
// until the returned func is called (tests use it).
func HoldBusyFactor(f float64) (release func()) {
	busyFactor() // the sampler runs on; the held factor is read first
	hostBusy.fixed.Store(math.Float64bits(f))
	return func() { hostBusy.fixed.Store(0) }
}

// Patient is d stretched by the machine's recent load.
func Patient(d time.Duration) time.Duration {
	return time.Duration(float64(d) * busyFactor())
}
