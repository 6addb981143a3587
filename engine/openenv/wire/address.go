package wire

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"
)

// ServerBase returns the http(s) base address of an OpenEnv server given as
// http(s)://host:port, host:port, or the WebSocket form ws(s)://host:port/ws.
func ServerBase(raw string) (string, error) {
	base, _, err := Endpoints(raw)
	return base, err
}

// Endpoints maps a server address to its http(s) base and its /ws endpoint
// as the Python client does: http→ws, https→wss, bare host→ws, path prefix
// kept.
func Endpoints(raw string) (httpBase, ws string, err error) {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return "", "", errors.New("no OpenEnv server URL given: use e.g. http://127.0.0.1:8000")
	}
	if !strings.Contains(raw, "://") {
		raw = "http://" + raw
	}
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return "", "", fmt.Errorf("%q is not a server URL: use e.g. http://127.0.0.1:8000", raw)
	}
	switch u.Scheme {
	case "http", "ws":
		u.Scheme = "http"
	case "https", "wss":
		u.Scheme = "https"
	default:
		return "", "", fmt.Errorf("%q: an OpenEnv server URL starts with http:// or https://", raw)
	}
	u.RawQuery, u.Fragment = "", ""
	// The WebSocket address a server prints (ws://host:port/ws) names the
	// same server.
	u.Path = strings.TrimSuffix(strings.TrimRight(u.Path, "/"), "/ws")
	u.RawPath = ""
	httpBase = u.String()
	w := *u
	w.Scheme = map[string]string{"http": "ws", "https": "wss"}[u.Scheme]
	w.Path = strings.TrimRight(u.Path, "/") + "/ws"
	w.RawPath = ""
	return httpBase, w.String(), nil
}

// Detail is the reason in a refusal's body: FastAPI's {"detail":"…"}, else
// the text itself.
func Detail(body []byte) string {
	var d struct{ Detail any }
	if json.Unmarshal(body, &d) == nil && d.Detail != nil {
		if s, ok := d.Detail.(string); ok {
			return s
		}
		b, _ := json.Marshal(d.Detail)
		return string(b)
	}
	if t := strings.TrimSpace(string(body)); t != "" {
		return t
	}
	return "no reason given"
}
