package app

import (
	"context"
	"fmt"

	"waymark/engine"
	"waymark/engine/browser"
)

// leasedEngines is serve's engine factory with --browser-provider: each
// session acquires its browser from the provider under a lease; the
// engine's Close releases it. The OpenEnv server renews the lease on every
// step and on a heartbeat (engine/openenv/lease.go).
func leasedEngines(cfg serveConfig, settings engine.Settings, hostRules string) func(context.Context) (engine.Engine, error) {
	name := providerName(cfg.Provider)
	return func(ctx context.Context) (engine.Engine, error) {
		spec := engine.Spec{LeaseTTL: cfg.LeaseTTL, Metadata: map[string]string{"client": "waymark serve"}}
		l, err := browser.Acquire(ctx, cfg.Provider, spec, browser.Options{Settings: settings, HostRules: hostRules, Logf: cfg.Logf})
		if err != nil {
			return nil, fmt.Errorf("cannot get a browser from the %s provider: %w", name, err)
		}
		return servedLease{l}, nil
	}
}

// servedLease is a leased engine that also tells the server what it holds
// (for /health).
type servedLease struct{ *browser.Leased }

// LeaseHandle is the provider's handle of the session's browser.
func (s servedLease) LeaseHandle() engine.Handle { return s.Handle }

// providerName is the registry name of a provider, for /health and logs.
func providerName(p engine.Provider) string {
	switch p.(type) {
	case *browser.RemoteCDP:
		return engine.TransportRemoteCDP
	case *browser.LocalProcess:
		return engine.TransportLocalProcess
	case nil:
		return ""
	}
	return fmt.Sprintf("%T", p)
}
