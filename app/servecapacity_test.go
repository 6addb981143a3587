package app

import (
	"io"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"waymark/engine/openenv"
)

// serve's --max-load and --min-free-memory default to the limits derived
// from the capacity file make bench wrote, else to openenv's fallbacks;
// given flags win, and negative ones are refused.
func TestServeAdmissionDefaults(t *testing.T) {
	path := filepath.Join(t.TempDir(), "capacity.json")
	t.Setenv("WAYMARK_CAPACITY", path)
	env := &Env{Stdout: io.Discard, Stderr: io.Discard}
	cfg, _, err := parseServe(env, nil)
	if err != nil || cfg.Admission.MaxLoad != openenv.FallbackMaxLoad || cfg.Admission.MinFreeMemory != openenv.FallbackMinFreeMemoryMiB<<20 ||
		!strings.Contains(cfg.AdmissionFrom, "no capacity measured") {
		t.Fatalf("without a capacity file: %v, %+v (%s)", err, cfg.Admission, cfg.AdmissionFrom)
	}
	c := openenv.Capacity{MeasuredAt: time.Now(), CPUs: 2, Runs: []openenv.CapacityRun{
		{Page: "shop", Agents: 1, P90StepMS: 150, PSSMiBPerSession: 90, LoadPerCPU: 0.6},
		{Page: "shop", Agents: 2, P90StepMS: 200, PSSMiBPerSession: 70, LoadPerCPU: 1.04},
		{Page: "shop", Agents: 4, P90StepMS: 400, PSSMiBPerSession: 60, LoadPerCPU: 2.3},
	}}
	c.DeriveLimits()
	if c.Holds["shop"] != 2 || c.MaxLoad != 1.1 || c.MinFreeMemoryMiB != 256 {
		t.Fatalf("derived: holds %v, max load %v, min free %d MiB", c.Holds, c.MaxLoad, c.MinFreeMemoryMiB)
	}
	if err := openenv.WriteCapacity(path, c); err != nil {
		t.Fatal(err)
	}
	cfg, _, err = parseServe(env, nil)
	if err != nil || cfg.Admission.MaxLoad != 1.1 || cfg.Admission.MinFreeMemory != 256<<20 || cfg.Admission.RetryAfter != openenv.DefaultRetryAfter ||
		!strings.Contains(cfg.AdmissionFrom, path) {
		t.Fatalf("with a capacity file: %v, %+v (%s)", err, cfg.Admission, cfg.AdmissionFrom)
	}
	cfg, _, err = parseServe(env, []string{"--max-load", "0", "--min-free-memory", "1024", "--retry-after", "10s"})
	if err != nil || cfg.Admission != (openenv.Admission{MinFreeMemory: 1 << 30, RetryAfter: 10 * time.Second}) {
		t.Fatalf("given flags: %v, %+v", err, cfg.Admission)
	}
	if _, _, err = parseServe(env, []string{"--max-load", "-1"}); err == nil || !strings.Contains(err.Error(), "--max-load") {
		t.Fatalf("--max-load -1: %v", err)
	}
}
