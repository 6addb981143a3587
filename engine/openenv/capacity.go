package openenv

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"time"
)

// Capacity is what `make bench` (BenchmarkServeLoad) measured of the
// machine it ran on: per page kind and agent count, the throughput, step
// times, memory per session and the CPU load they made. `serve` derives
// its admission limits' defaults from it (Admission).
type Capacity struct {
	MeasuredAt time.Time `json:"measured_at"`
	Host       string    `json:"host"`
	CPUs       int       `json:"cpus"`
	// MemoryMiB is the machine's memory (MemTotal).
	MemoryMiB int64         `json:"memory_mib"`
	Runs      []CapacityRun `json:"runs"`
	// Holds is, per page kind, the most agents whose p90 step stayed
	// within HoldFactor times one agent's, with no error.
	Holds map[string]int `json:"holds"`
	// MaxLoad and MinFreeMemoryMiB are the admission limits derived from
	// the runs (see DeriveLimits).
	MaxLoad          float64 `json:"max_load"`
	MinFreeMemoryMiB int64   `json:"min_free_memory_mib"`
}

// CapacityRun is one run of Agents concurrent agents on a Page kind
// ("static": a page where a click changes nothing; "shop": the practice
// shop, each click opening another page).
type CapacityRun struct {
	Page   string `json:"page"`
	Agents int    `json:"agents"`
	Steps  int    `json:"steps"`
	// StepsPerSecond counts every agent's steps over the run's wall time;
	// per core divides it by the CPUs.
	StepsPerSecond        float64 `json:"steps_per_s"`
	StepsPerSecondPerCore float64 `json:"steps_per_s_per_core"`
	P50StepMS             float64 `json:"p50_step_ms"`
	P90StepMS             float64 `json:"p90_step_ms"`
	// PSSMiBPerSession is the browsers' proportional set size at its peak
	// (shared pages counted once), over the agents.
	PSSMiBPerSession float64 `json:"pss_mib_per_session"`
	// LoadPerCPU is the tasks runnable per CPU, averaged over the run (the
	// measure Admission.MaxLoad limits).
	LoadPerCPU float64 `json:"load_per_cpu"`
	Errors     int     `json:"errors"`
}

// HoldFactor: a machine holds n agents while their p90 step time is at
// most this many times one agent's.
const HoldFactor = 2.0

// Limits used when no capacity file was measured on the machine: no load
// limit (a load figure means nothing until this machine's was measured:
// the load counts threads, and one agent on the practice shop alone kept
// 3.2 tasks runnable per CPU on a 2-core machine, beside anything else the
// machine runs), and the memory floor, which means the same everywhere.
const (
	FallbackMaxLoad          = 0.0
	FallbackMinFreeMemoryMiB = 512
)

// DefaultCapacityPath is where `make bench` writes the figures and `serve`
// reads them: $WAYMARK_CAPACITY, else the file capacity.json in a folder
// named waymark in the user's configuration folder (~/.config on Linux).
func DefaultCapacityPath() string {
	if p := os.Getenv("WAYMARK_CAPACITY"); p != "" {
		return p
	}
	dir, err := os.UserConfigDir()
	if err != nil {
		dir = "."
	}
	return filepath.Join(dir, "waymark", "capacity.json")
}

// DeriveLimits fills Holds, MaxLoad and MinFreeMemoryMiB from the runs.
// Per page kind, the machine holds the most agents whose p90 step stayed
// within HoldFactor times one agent's with no error. MaxLoad is the load
// per CPU measured at the shop's hold count (the static page's when the
// shop was not measured), rounded up to a tenth: above it, one more
// session slows the others beyond what was measured. MinFreeMemoryMiB is
// twice the largest memory per session measured (room for the session
// asked for and one more), at least 256 MiB.
func (c *Capacity) DeriveLimits() {
	c.Holds = map[string]int{}
	loadAt := map[string]float64{}
	maxPSS := 0.0
	for _, page := range []string{"static", "shop"} {
		var base float64
		for _, r := range c.Runs {
			if r.Page != page {
				continue
			}
			maxPSS = math.Max(maxPSS, r.PSSMiBPerSession)
			if r.Agents == 1 {
				base = r.P90StepMS
			}
		}
		for _, r := range c.Runs {
			if r.Page == page && base > 0 && r.Errors == 0 && r.P90StepMS <= HoldFactor*base && r.Agents > c.Holds[page] {
				c.Holds[page], loadAt[page] = r.Agents, r.LoadPerCPU
			}
		}
	}
	c.MaxLoad = FallbackMaxLoad
	for _, page := range []string{"static", "shop"} {
		if l, ok := loadAt[page]; ok && l > 0 {
			c.MaxLoad = math.Ceil(l*10) / 10
		}
	}
	c.MinFreeMemoryMiB = FallbackMinFreeMemoryMiB
	if maxPSS > 0 {
		c.MinFreeMemoryMiB = max(int64(math.Ceil(2*maxPSS)), 256)
	}
}

// WriteCapacity writes c as JSON to path, making its folder.
func WriteCapacity(path string, c Capacity) error {
	b, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, append(b, '\n'), 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// ReadCapacity reads a capacity file written by WriteCapacity.
func ReadCapacity(path string) (Capacity, error) {
	var c Capacity
	b, err := os.ReadFile(path)
	if err != nil {
		return c, err
	}
	if err := json.Unmarshal(b, &c); err != nil {
		return c, fmt.Errorf("%s is not a capacity file (%v); run make bench again to measure the machine", path, err)
	}
	return c, nil
}
