package browser

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
		var o LocalOptions
		if err := engine.DecodeOptions(raw, &o); err != nil {
			return nil, err
		}
		return NewLocalProcess(o), nil
	})
}

// LocalOptions configure the local_process provider. They are hints for
// the engine the caller makes with NewForHandle; empty keeps its options.
type LocalOptions struct {
	Display      string `json:"display"` // "xvfb" or "headless"
	ChromiumPath string `json:"chromium_path"`
}

// LocalProcess is today's browser supply behind the contract: the
// session's engine starts its own Chromium (on a private Xvfb, or
// headless) with a fresh profile, and stops it when closed. The provider
// only records the session, owned by this process; the lease is the
// process itself.
type LocalProcess struct {
	opts     LocalOptions
	mu       sync.Mutex
	sessions map[string]bool
}

var _ engine.Provider = (*LocalProcess)(nil)
var _ engine.Heartbeater = (*LocalProcess)(nil)

// NewLocalProcess makes the local_process provider.
func NewLocalProcess(o LocalOptions) *LocalProcess {
	return &LocalProcess{opts: o, sessions: map[string]bool{}}
}

// Acquire records a session; the browser starts with the engine's first
// Reset.
func (p *LocalProcess) Acquire(ctx context.Context, spec engine.Spec) (engine.Handle, error) {
	h := engine.Handle{SessionID: uuid.NewString(), Provider: engine.TransportLocalProcess,
		Transport: engine.TransportLocalProcess, OwnerPID: os.Getpid(), Metadata: map[string]string{}}
	for k, v := range spec.Metadata {
		h.Metadata[k] = v
	}
	if p.opts.Display != "" {
		h.Metadata["display"] = p.opts.Display
	}
	if p.opts.ChromiumPath != "" {
		h.Metadata["chromium_path"] = p.opts.ChromiumPath
	}
	p.mu.Lock()
	p.sessions[h.SessionID] = true
	p.mu.Unlock()
	return h, nil
}

// Release forgets the session (the engine's Close stops its Chromium).
func (p *LocalProcess) Release(ctx context.Context, h engine.Handle) error {
	if err := h.CheckOwner(); err != nil {
		return err
	}
	p.mu.Lock()
	delete(p.sessions, h.SessionID)
	p.mu.Unlock()
	return nil
}

// Name is the provider's name in engine.Providers.
func (p *LocalProcess) Name() string { return engine.TransportLocalProcess }

// Heartbeat checks the session is held by this process.
func (p *LocalProcess) Heartbeat(ctx context.Context, h engine.Handle) error {
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
