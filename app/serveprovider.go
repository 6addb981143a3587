package app

import (
	"context"
	"fmt"

	"waymark/engine"
	"waymark/engine/browser"
)

// leasedEngines is serve's engine factory with --browser-provider: each
// session acquires its browser from the provider under a lease, by the
// same newEngine as every other engine; the engine's Close releases it.
// The OpenEnv server renews the lease on every step and on a heartbeat
// (engine/openenv/lease.go).
func leasedEngines(cfg serveConfig, settings engine.Settings, hostRules string) func(context.Context) (engine.Engine, error) {
	return func(ctx context.Context) (engine.Engine, error) {
		return newEngine(ctx, engineSpec{Settings: settings, HostRules: hostRules, Logf: cfg.Logf,
			Provider: cfg.Provider, LeaseTTL: cfg.LeaseTTL, HeldByCaller: true,
			Metadata: map[string]string{"client": "waymark serve"}})
	}
}

// servedLease is a leased engine that also tells the server what it holds
// (for /health).
type servedLease struct{ *browser.Leased }

// LeaseHandle is the provider's handle of the session's browser.
func (s servedLease) LeaseHandle() engine.Handle { return s.Handle }

// namedProvider is a provider that says its registry name.
type namedProvider interface{ Name() string }

// providerName is a provider's registry name, for /health and logs.
func providerName(p engine.Provider) string {
	if p == nil {
		return ""
	}
	if n, ok := p.(namedProvider); ok {
		return n.Name()
	}
	return fmt.Sprintf("%T", p)
}
