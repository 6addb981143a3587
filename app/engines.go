package app

import (
	"context"
	"fmt"
	"time"

	"waymark/engine"
	"waymark/engine/browser"
	"waymark/engine/openenv"
)

// engineSpec says which engine an episode runs on. The GUI, `play` and
// `serve` all build theirs with newEngine, so a new kind of browser (a
// remote one, say) is added here once.
type engineSpec struct {
	// Settings are the episode limits and the action set.
	Settings engine.Settings
	// Server, when set, is an OpenEnv server (http://host:port or
	// ws://host:port/ws) that runs the episode instead of a local browser.
	Server string
	// HealthTimeout bounds the wait for the server to answer (default 30 s:
	// what an agent may wait; a person at Start waits less).
	HealthTimeout time.Duration
	// ResetExtra goes with every reset to the server (e.g. the task's facts).
	ResetExtra map[string]any
	// HostRules maps host names to local addresses in the local browser
	// (the practice sites).
	HostRules string
}

// newEngine starts the engine spec describes: a connected OpenEnv client or
// a local Chromium.
func newEngine(ctx context.Context, spec engineSpec) (engine.Engine, error) {
	if spec.Server != "" {
		c, err := openenv.Dial(ctx, spec.Server, openenv.ClientOptions{
			ActionSet:     spec.Settings.ActionSet,
			MaxSteps:      spec.Settings.MaxSteps,
			HealthTimeout: spec.HealthTimeout,
			ResetExtra:    spec.ResetExtra,
			// Page titles and timings, from a Waymark server (others
			// ignore the ask and the steps keep the client's total).
			StepDetails: true,
		})
		if err != nil {
			return nil, fmt.Errorf("cannot reach the OpenEnv server %s: %w", spec.Server, err)
		}
		return c, nil
	}
	return browser.New(browser.Options{Settings: spec.Settings, HostRules: spec.HostRules})
}
