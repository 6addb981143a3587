package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"sync"
	"syscall"
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
	// HostRules maps host names to local addresses (the practice sites):
	// a launch flag for a local browser, relayed by the engine for a
	// remote one (engine/browser/remotehosts.go).
	HostRules string
	// Provider, when set, supplies the browser (e.g. remote_cdp: a
	// browser farm); nil means local_process, a local Chromium.
	Provider engine.Provider
	// OwnsProvider closes Provider (when it is an io.Closer) with the
	// engine: a provider made for this one engine.
	OwnsProvider bool
	// Metadata goes with the provider's session (e.g. the task), for the
	// farm's books.
	Metadata map[string]string
	// LeaseTTL is the lease asked of Provider (0: the provider's own, else
	// engine.DefaultLeaseTTL).
	LeaseTTL time.Duration
	// HeldByCaller: the caller renews the lease (the OpenEnv server does,
	// on every step and on its own heartbeat), so the engine keeps no
	// heartbeat of its own.
	HeldByCaller bool
	// Logf, when set, gets the engine's diagnostics.
	Logf func(format string, args ...any)
	// LeaseLost, when set, gets a lease renewal that failed (the farm lost
	// the session; the next step ends the episode with a clear error).
	LeaseLost func(error)
}

// newEngine starts the engine spec describes: a connected OpenEnv client,
// or a browser from a provider: spec.Provider (its lease kept alive by a
// heartbeat while the engine lives), else local_process (a local
// Chromium).
func newEngine(ctx context.Context, spec engineSpec) (engine.Engine, error) {
	if spec.Server != "" {
		if err := refusedAt(spec.Server); err != nil {
			return nil, fmt.Errorf("cannot reach the OpenEnv server %s: %w", spec.Server, err)
		}
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
	opts := browser.Options{Settings: spec.Settings, HostRules: spec.HostRules, Logf: spec.Logf}
	prov := spec.Provider
	if prov == nil {
		var err error
		if prov, err = localProvider(); err != nil {
			return nil, err
		}
	}
	l, err := browser.Acquire(ctx, prov, engine.Spec{Metadata: spec.Metadata, LeaseTTL: spec.LeaseTTL}, opts)
	if err != nil && spec.Provider == nil {
		return nil, err // what the local browser lacks, as it says it
	}
	if err != nil {
		if spec.OwnsProvider {
			err = errors.Join(err, closeProvider(spec.Provider))
		}
		if spec.HeldByCaller {
			return nil, fmt.Errorf("cannot get a browser from the %s provider: %w", providerName(spec.Provider), err)
		}
		return nil, fmt.Errorf("cannot get a browser: %w", err)
	}
	if spec.Provider == nil {
		// The process's own browser: its lease is the process, so the
		// engine holds none to renew or report.
		return unleased{Engine: l.Engine, l: l}, nil
	}
	if spec.HeldByCaller {
		return servedLease{l}, nil
	}
	l.KeepAlive(spec.LeaseLost)
	if spec.OwnsProvider {
		return &ownedLeased{Leased: l}, nil
	}
	return l, nil
}

// localProvider is the provider of an engineSpec that names none: the
// local_process provider, one for the process.
var localProvider = sync.OnceValues(func() (engine.Provider, error) {
	return engine.Providers.New([]byte(`{"` + engine.TransportLocalProcess + `":null}`))
})

// unleased is an engine on a browser whose lease does not expire: Close
// releases the provider's session, and nothing else of the lease shows
// (it is no engine.Lease, so a server keeps no lease for it).
type unleased struct {
	*browser.Engine
	l *browser.Leased
}

func (u unleased) Close() error { return u.l.Close() }

// ownedLeased is a leased engine that also closes its provider (its
// connections to the farm) when it closes.
type ownedLeased struct{ *browser.Leased }

func (o *ownedLeased) Close() error {
	return errors.Join(o.Leased.Close(), closeProvider(o.Provider))
}

func closeProvider(p engine.Provider) error {
	if c, ok := p.(io.Closer); ok {
		return c.Close()
	}
	return nil
}

// refusedAt says so at once when nothing listens at server's host and port
// (the connection is refused): waiting for /health, as Dial does for a
// server that is starting or busy, would only keep a person or a script in
// silence. Anything else (no answer yet, a name not found) is left to Dial.
func refusedAt(server string) error {
	u, err := url.Parse(server)
	if err != nil || u.Hostname() == "" {
		return nil // Dial says what is wrong with the address
	}
	addr := u.Host
	if u.Port() == "" {
		port := "80"
		if u.Scheme == "https" || u.Scheme == "wss" {
			port = "443"
		}
		addr = net.JoinHostPort(u.Hostname(), port)
	}
	c, err := net.DialTimeout("tcp", addr, 3*time.Second)
	if err == nil {
		c.Close()
		return nil
	}
	if errors.Is(err, syscall.ECONNREFUSED) {
		return fmt.Errorf("nothing is listening at %s (connection refused): start the server there (waymark serve --addr %s), or give the address it serves at", addr, addr)
	}
	return nil
}
