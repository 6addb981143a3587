package browser

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"

	"waymark/engine"
)

// TestLocalProcessProvider: local_process hands out handles for today's
// local engine (no browser starts here: Chromium starts at the first Reset).
func TestLocalProcessProvider(t *testing.T) {
	if _, err := engine.Providers.New([]byte(`{"local_process":{"display":"xvfb","extra":1}}`)); err == nil ||
		!strings.Contains(err.Error(), `bad options: json: unknown field "extra"`) {
		t.Errorf("an unknown option: %v", err)
	}
	p, err := engine.Providers.New([]byte(`{"local_process":{"display":"headless"}}`))
	if err != nil {
		t.Fatal(err)
	}
	h, err := p.Acquire(context.Background(), engine.Spec{Metadata: map[string]string{"task": "t9"}})
	if err != nil {
		t.Fatal(err)
	}
	if h.Transport != "local_process" || h.Provider != "local_process" || h.OwnerPID != os.Getpid() ||
		h.Endpoint != "" || h.Metadata["task"] != "t9" || h.SessionID == "" {
		t.Fatalf("handle %+v", h)
	}
	e, err := NewForHandle(h, Options{Settings: engine.DefaultSettings()})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if info := e.Info(); info.Kind != "local" || info.Display != "headless" || info.Server != "" {
		t.Errorf("info %+v", info)
	}
	hb := p.(engine.Heartbeater)
	if err := hb.Heartbeat(context.Background(), h); err != nil {
		t.Errorf("heartbeat: %v", err)
	}
	other := h
	other.OwnerPID++
	if err := p.Release(context.Background(), other); !errors.Is(err, engine.ErrNotOwner) {
		t.Errorf("release from another process: %v", err)
	}
	for i := 0; i < 2; i++ {
		if err := p.Release(context.Background(), h); err != nil {
			t.Fatalf("release %d: %v", i+1, err)
		}
	}
	if err := hb.Heartbeat(context.Background(), h); err == nil || !strings.Contains(err.Error(), "was released") {
		t.Errorf("heartbeat after release: %v", err)
	}
	bad := h
	bad.Transport = "carrier_pigeon"
	if _, err := NewForHandle(bad, Options{Settings: engine.DefaultSettings()}); err == nil ||
		!strings.Contains(err.Error(), `unknown browser transport "carrier_pigeon"`) {
		t.Errorf("unknown transport: %v", err)
	}
}
