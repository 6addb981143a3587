package remotecdp

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"waymark/engine"
)

// Some browser farms (Browserless among them) start a new browser for every
// websocket connection to their bare address (ws://host:port, no
// /devtools/browser/… path). The engine opens a connection of its own to
// the session's browser, so for such a farm the provider must hand it the
// farm's address of the very browser that holds the session's context.
// Browserless tells it: a connection made with a trackingId is listed by
// GET /sessions?trackingId=… with its browserId, and
// ws://host:port/devtools/browser/<browserId> reconnects to that browser.

// perConnectionFarm reports whether ws is a farm's bare address, and if so
// gives the URL to dial (ws with a fresh trackingId) and that id.
func perConnectionFarm(ws string) (dial, trackingID string) {
	u, err := url.Parse(ws)
	if err != nil || strings.Contains(u.Path, "/devtools/") {
		return ws, ""
	}
	b := make([]byte, 8)
	rand.Read(b)
	trackingID = "waymark-" + hex.EncodeToString(b)
	q := u.Query()
	q.Set("trackingId", trackingID)
	u.RawQuery = q.Encode()
	return u.String(), trackingID
}

// pinFarmBrowser returns the farm's address of the browser that the
// connection made with trackingID got; ws stays as it is when the farm
// does not list its sessions (it is not a Browserless).
func pinFarmBrowser(ctx context.Context, ws, trackingID string) (string, error) {
	u, err := url.Parse(ws)
	if err != nil {
		return "", err
	}
	s := *u
	s.Scheme = map[string]string{"ws": "http", "wss": "https"}[u.Scheme]
	s.Path = strings.TrimRight(u.Path, "/") + "/sessions"
	q := u.Query()
	q.Set("trackingId", trackingID)
	s.RawQuery = q.Encode()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.String(), nil)
	if err != nil {
		return "", err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", fmt.Errorf("asking the browser farm which browser it gave: %v", engine.ScrubQueries(err.Error()))
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	var list []struct {
		BrowserID  string `json:"browserId"`
		TrackingID string `json:"trackingId"`
	}
	switch {
	case resp.StatusCode == http.StatusNotFound:
		return ws, nil // no session list: one browser behind the address
	case resp.StatusCode != http.StatusOK:
		return "", fmt.Errorf("the browser farm answered %s to its session list; check its token", resp.Status)
	case json.Unmarshal(body, &list) != nil:
		return ws, nil
	}
	for _, e := range list {
		if e.TrackingID == trackingID && e.BrowserID != "" {
			u.Path = strings.TrimRight(u.Path, "/") + "/devtools/browser/" + e.BrowserID
			return u.String(), nil
		}
	}
	return "", fmt.Errorf("the browser farm does not list the browser it gave this connection (trackingId %s)", trackingID)
}
