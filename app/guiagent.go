package app

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"
	"time"

	"waymark/engine"
)

// agentServes is the serve the app runs for "Let an agent continue from
// here" (Review): one at a time, on a free loopback port, recording into
// the app's store; it stops with the app or when the next one starts.
type agentServes struct {
	mu  sync.Mutex
	sv  *serving
	hs  *http.Server
	url string
}

// start serves sessions that begin where episodeID was after step k.
func (a *agentServes) start(env *Env, dbPath string, episodeID string, k int, logf func(string, ...any)) (string, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.stopLocked()
	if logf == nil {
		logf = func(string, ...any) {}
	}
	e := *env
	e.DBPath = dbPath
	st, err := e.OpenExistingStore()
	if err != nil {
		return "", err
	}
	ep, err := st.GetEpisode(context.Background(), episodeID)
	st.Close()
	if err != nil {
		return "", err
	}
	set := engine.DefaultSettings()
	if s, err := engine.SettingsFromEnv(); err == nil {
		set = s
	}
	sv, err := newServing(&e, serveConfig{MaxSessions: 1, Browsers: 1, Record: true, Restore: fmt.Sprintf("%s:%d", episodeID, k),
		ActionSet: ep.ActionSet, Settings: set, Logf: logf})
	if err != nil {
		return "", err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		sv.Close()
		return "", fmt.Errorf("cannot listen on a loopback port: %w", err)
	}
	hs := &http.Server{Handler: sv.srv, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		if err := hs.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			logf("agent serve: %v", err)
		}
	}()
	a.sv, a.hs, a.url = sv, hs, "http://"+ln.Addr().String()
	return a.url, nil
}

func (a *agentServes) stopLocked() {
	if a.hs != nil {
		_ = a.hs.Close()
		a.hs = nil
	}
	if a.sv != nil {
		_ = a.sv.Close()
		a.sv = nil
	}
	a.url = ""
}

// stop ends the serve, its sessions and their browsers.
func (a *agentServes) stop() {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.stopLocked()
}
