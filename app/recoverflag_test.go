package app

import (
	"io"
	"testing"
)

// --recover-observation reaches serve's engine settings; it is off by default.
func TestServeRecoverObservationFlag(t *testing.T) {
	env := &Env{Stdout: io.Discard, Stderr: io.Discard}
	cfg, _, err := parseServe(env, nil)
	if err != nil || cfg.Settings.RecoverObservation {
		t.Fatalf("default: %v, recover %v", err, cfg.Settings.RecoverObservation)
	}
	cfg, _, err = parseServe(env, []string{"--recover-observation"})
	if err != nil || !cfg.Settings.RecoverObservation {
		t.Fatalf("--recover-observation: %v, recover %v", err, cfg.Settings.RecoverObservation)
	}
}
