package openenv

import (
	"fmt"
	"math"
	"net/http"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"waymark/engine/openenv/wire"
)

// Admission: past the machine's limit every session slows down together,
// so a session is admitted only while the machine can hold one more. The
// first reset of a WebSocket session (and every stateless HTTP POST
// /reset) is refused at once, before any browser work, while the CPUs are
// busier than Admission.MaxLoad or the memory available is below
// Admission.MinFreeMemory: the WebSocket gets an error frame with code
// CAPACITY_BUSY and data.retry_after (seconds; the socket stays open, the
// same reset may be sent again on it), HTTP a 503 with a Retry-After header
// and the same code and retry_after in its body. A session once admitted
// stays admitted: its later resets and its steps are never refused for
// load, so the sessions already running keep their pace and nothing of
// theirs is lost.

// DefaultRetryAfter is Admission.RetryAfter's default.
const DefaultRetryAfter = wire.DefaultRetryAfter

// Admission is when a server admits a new session. The zero value admits
// every session. Its limits may be changed while the server runs (Set).
type Admission struct {
	// MaxLoad is the CPU load above which new sessions are refused: tasks
	// runnable per CPU, averaged over about the last second and a half
	// (sampled every 250 ms from /proc/loadavg's running count). 1 means
	// every CPU busy; 0: no limit.
	MaxLoad float64
	// MinFreeMemory is the memory available (MemAvailable in
	// /proc/meminfo) in bytes below which new sessions are refused; 0: no
	// limit.
	MinFreeMemory int64
	// RetryAfter is what a refused client is told to wait (default
	// DefaultRetryAfter; whole seconds).
	RetryAfter time.Duration
}

// admission holds a server's limits and the load it samples.
type admission struct {
	mu     sync.Mutex
	limits Admission

	once     sync.Once
	load     atomic.Uint64 // math.Float64bits of the averaged load per CPU
	sampling atomic.Bool
	refused  atomic.Int64
}

// SetAdmission changes the server's admission limits (Options.Admission)
// for the sessions that reset from now on.
func (s *Server) SetAdmission(a Admission) {
	s.adm.mu.Lock()
	s.adm.limits = a
	s.adm.mu.Unlock()
	if a.MaxLoad > 0 {
		s.adm.startSampling(s.ctx.Done())
	}
}

// RefusedBusy counts the resets refused with CAPACITY_BUSY.
func (s *Server) RefusedBusy() int64 { return s.adm.refused.Load() }

// startSampling reads the load every 250 ms until stop.
func (a *admission) startSampling(stop <-chan struct{}) {
	a.once.Do(func() {
		a.load.Store(math.Float64bits(readLoadPerCPU()))
		a.sampling.Store(true)
		go func() {
			t := time.NewTicker(250 * time.Millisecond)
			defer t.Stop()
			for {
				select {
				case <-stop:
					return
				case <-t.C:
				}
				// A moving average: one reading is a single instant.
				avg := 0.75*math.Float64frombits(a.load.Load()) + 0.25*readLoadPerCPU()
				a.load.Store(math.Float64bits(avg))
			}
		}()
	})
}

// busy says whether a new session must wait, why, and for how long.
func (a *admission) busy() (why string, retry time.Duration) {
	a.mu.Lock()
	l := a.limits
	a.mu.Unlock()
	retry = l.RetryAfter
	if retry <= 0 {
		retry = DefaultRetryAfter
	}
	retry = max(retry.Round(time.Second), time.Second)
	if l.MaxLoad > 0 && a.sampling.Load() {
		if load := math.Float64frombits(a.load.Load()); load > l.MaxLoad {
			why = fmt.Sprintf("the CPUs are busy: %.2f tasks runnable per CPU, above the limit of %.2f (serve --max-load)", load, l.MaxLoad)
		}
	}
	if why == "" && l.MinFreeMemory > 0 {
		if free, ok := availableMemory(); ok && free < l.MinFreeMemory {
			why = fmt.Sprintf("%d MiB of memory is available, below the limit of %d MiB (serve --min-free-memory)", free>>20, l.MinFreeMemory>>20)
		}
	}
	if why != "" {
		a.refused.Add(1)
	}
	return why, retry
}

// busyMessage is what a refused client reads.
func busyMessage(why string, retry time.Duration) string {
	return fmt.Sprintf("Server busy: %s. The sessions running keep the machine; send the reset again after %d s", why, int(retry.Seconds()))
}

// admitWS is the hook of a WebSocket reset: nil when the session is (or
// is now) admitted, else the CAPACITY_BUSY frame to answer.
func (ss *session) admitWS() []byte {
	if ss.admitted {
		return nil
	}
	why, retry := ss.srv.adm.busy()
	if why == "" {
		ss.admitted = true
		return nil
	}
	ss.srv.opts.Logf("openenv: session %s: reset refused, %s", ss.info.ID, why)
	return errorFrame(CodeCapacityBusy, busyMessage(why, retry), field{"retry_after", int(retry.Seconds())})
}

// admitHTTP is the hook of a stateless POST /reset: true when admitted,
// else it has answered 503 with Retry-After.
func (s *Server) admitHTTP(w http.ResponseWriter) bool {
	why, retry := s.adm.busy()
	if why == "" {
		return true
	}
	secs := int(retry.Seconds())
	s.opts.Logf("openenv: POST /reset refused, %s", why)
	w.Header().Set("Retry-After", strconv.Itoa(secs))
	writeJSON(w, http.StatusServiceUnavailable, obj(field{"detail", busyMessage(why, retry)}, field{"code", CodeCapacityBusy}, field{"retry_after", secs}))
	return false
}

// readLoadPerCPU is the tasks runnable now (other than the reader) per
// CPU, from /proc/loadavg's fourth field ("3/467"); 0 when unreadable.
func readLoadPerCPU() float64 {
	raw, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0
	}
	return parseRunnable(string(raw), runtime.NumCPU())
}

func parseRunnable(loadavg string, cpus int) float64 {
	f := strings.Fields(loadavg)
	if len(f) < 4 {
		return 0
	}
	run, _, _ := strings.Cut(f[3], "/")
	n, err := strconv.Atoi(run)
	if err != nil || n < 1 {
		return 0
	}
	return float64(n-1) / float64(max(cpus, 1))
}

// availableMemory reads MemAvailable from /proc/meminfo, in bytes.
func availableMemory() (int64, bool) {
	raw, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return 0, false
	}
	for _, line := range strings.Split(string(raw), "\n") {
		if rest, ok := strings.CutPrefix(line, "MemAvailable:"); ok {
			f := strings.Fields(rest)
			if len(f) == 0 {
				return 0, false
			}
			kb, err := strconv.ParseInt(f[0], 10, 64)
			return kb << 10, err == nil
		}
	}
	return 0, false
}
