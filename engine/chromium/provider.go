package chromium

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"sync"

	"github.com/google/uuid"

	"waymark/engine"
)

// local_process, registered in engine.Providers.
func init() {
	engine.Providers.Register(engine.TransportLocalProcess, func(raw json.RawMessage) (engine.Provider, error) {
		var o ProviderOptions
		if err := engine.DecodeOptions(raw, &o); err != nil {
			return nil, err
		}
		return NewProvider(o), nil
	})
}

// Handle metadata keys the local_process provider sets from its options
// (engine/browser's NewForHandle reads them).
const (
	MetaDisplay      = "display"
	MetaChromiumPath = "chromium_path"
)

// ProviderOptions configure the local_process provider. They are hints for
// the engine the caller makes with browser.NewForHandle; empty keeps its
// options.
type ProviderOptions struct {
	Display      string `json:"display"` // "xvfb" or "headless"
	ChromiumPath string `json:"chromium_path"`
}

// Provider is the local_process provider: the session's engine
// (browser.NewForHandle) takes a local Chromium from its pool, started by
// Start when none runs, with a fresh browser context for each episode.
// The provider only records the session, owned by this process; the lease
// is the process itself.
type Provider struct {
	opts     ProviderOptions
	mu       sync.Mutex
	sessions map[string]bool
}

var _ engine.Provider = (*Provider)(nil)
var _ engine.Heartbeater = (*Provider)(nil)

// NewProvider makes the local_process provider.
func NewProvider(o ProviderOptions) *Provider {
	return &Provider{opts: o, sessions: map[string]bool{}}
}

// Acquire records a session; the browser starts with the engine's first
// Reset.
func (p *Provider) Acquire(ctx context.Context, spec engine.Spec) (engine.Handle, error) {
	h := engine.Handle{SessionID: uuid.NewString(), Provider: engine.TransportLocalProcess,
		Transport: engine.TransportLocalProcess, OwnerPID: os.Getpid(), Metadata: map[string]string{}}
	for k, v := range spec.Metadata {
		h.Metadata[k] = v
	}
	if p.opts.Display != "" {
		h.Metadata[MetaDisplay] = p.opts.Display
	}
	if p.opts.ChromiumPath != "" {
		h.Metadata[MetaChromiumPath] = p.opts.ChromiumPath
	}
	p.mu.Lock()
	p.sessions[h.SessionID] = true
	p.mu.Unlock()
	return h, nil
}

// Release forgets the session (the engine's Close stops its Chromium).
func (p *Provider) Release(ctx context.Context, h engine.Handle) error {
	if err := h.CheckOwner(); err != nil {
		return err
	}
	p.mu.Lock()
	delete(p.sessions, h.SessionID)
	p.mu.Unlock()
	return nil
}

// Name is the provider's name in engine.Providers.
func (p *Provider) Name() string { return engine.TransportLocalProcess }

// Heartbeat checks the session is held by this process.
func (p *Provider) Heartbeat(ctx context.Context, h engine.Handle) error {
	if err := h.CheckOwner(); err != nil {
		return err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.sessions[h.SessionID] {
		return fmt.Errorf("the browser session %s was released; acquire a new one", h.SessionID)
	}
	return nil
}
