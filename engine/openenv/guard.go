package openenv

import (
	"fmt"
	"mime"
	"net"
	"net/http"
	"net/url"
	"path"
	"strconv"
	"strings"
	"sync"
)

// guard holds the checks every request passes before any endpoint runs, so
// that web pages cannot drive the browser:
//
//   - Host: only the loopback names (localhost, 127.0.0.0/8, ::1, and
//     0.0.0.0 or ::), the address the connection came in on, and the names
//     allowed by the user.
//     A page whose own name resolves to 127.0.0.1 (DNS rebinding) sends its
//     name, and is refused. The port is not compared: a page cannot choose
//     the name it reaches the server under, only the port, and port
//     forwarding (docker -p 8080:8000) changes it legitimately.
//   - Origin, when present: the server's own origin or an allowed one. This
//     is the rule the WebSocket library applies to /ws, applied to every
//     endpoint.
//   - POST bodies must be application/json: pages can POST text/plain,
//     forms and multipart across sites without a CORS preflight.
type guard struct {
	anyHost   bool
	hosts     map[string]string // lower-case name → port ("" any port)
	anyOrigin bool
	origins   []string // coder/websocket OriginPatterns, lower-case

	mu     sync.Mutex
	logged map[string]bool // refusals already logged (one line each)
}

// hostName lower-cases a host name, drops a trailing dot and IPv6 brackets.
func hostName(h string) string {
	h = strings.ToLower(strings.TrimSpace(h))
	h = strings.TrimPrefix(h, "[")
	h = strings.TrimSuffix(h, "]")
	return strings.TrimSuffix(h, ".")
}

// splitHost splits a Host header or an allow-host entry into its name and
// port ("" when there is none).
func splitHost(hostport string) (name, port string) {
	if h, p, err := net.SplitHostPort(hostport); err == nil {
		return hostName(h), p
	}
	return hostName(hostport), ""
}

func newGuard(hosts, origins []string) (*guard, error) {
	g := &guard{hosts: map[string]string{}, logged: map[string]bool{}}
	for _, h := range hosts {
		h = strings.TrimSpace(h)
		switch {
		case h == "":
			continue
		case h == "*":
			g.anyHost = true
			continue
		case strings.Contains(h, "/") || strings.Contains(h, "@"):
			return nil, fmt.Errorf("allowed host %q: give a host name (or name:port), not a URL, e.g. myhost.lan", h)
		}
		name, port := splitHost(h)
		if port != "" {
			if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
				return nil, fmt.Errorf("allowed host %q: the port %q is not a number from 1 to 65535", h, port)
			}
		}
		if name == "" {
			return nil, fmt.Errorf("allowed host %q has no name", h)
		}
		if old, seen := g.hosts[name]; seen && old != port {
			port = "" // allowed on two ports: allow any
		}
		g.hosts[name] = port
	}
	for _, o := range origins {
		o = strings.ToLower(strings.TrimSuffix(strings.TrimSpace(o), "/"))
		switch {
		case o == "":
			continue
		case o == "*":
			g.anyOrigin = true
			continue
		}
		if strings.Contains(o, "://") {
			u, err := url.Parse(o)
			if err != nil || u.Host == "" || u.Path != "" || u.RawQuery != "" || u.User != nil {
				return nil, fmt.Errorf("allowed origin %q: give scheme://host[:port] (e.g. http://localhost:3000) or a host pattern (e.g. *.lan)", o)
			}
		} else if strings.Contains(o, "/") {
			return nil, fmt.Errorf("allowed origin %q: give scheme://host[:port] (e.g. http://localhost:3000) or a host pattern (e.g. *.lan)", o)
		}
		if _, err := path.Match(o, ""); err != nil {
			return nil, fmt.Errorf("allowed origin %q: not a valid pattern: %v", o, err)
		}
		g.origins = append(g.origins, o)
	}
	return g, nil
}

// CheckAllowed checks allowed hosts and origins as NewServer will, so a
// command line can report a bad one before it starts anything.
func CheckAllowed(hosts, origins []string) error {
	_, err := newGuard(hosts, origins)
	return err
}

// hostOK tells whether the request's Host is served.
func (g *guard) hostOK(r *http.Request) bool {
	if g.anyHost {
		return true
	}
	if r.Host == "" {
		return false
	}
	name, port := splitHost(r.Host)
	if name == "localhost" {
		return true
	}
	if ip := net.ParseIP(name); ip != nil {
		// 0.0.0.0 and :: reach this machine (servers print them as their
		// address); no web page's name is an IP literal.
		if ip.IsLoopback() || ip.IsUnspecified() {
			return true
		}
		if la, ok := r.Context().Value(http.LocalAddrContextKey).(*net.TCPAddr); ok && la.IP.Equal(ip) {
			return true
		}
	}
	want, ok := g.hosts[name]
	return ok && (want == "" || want == port)
}

// originOK tells whether the request's Origin (if any) is allowed: the same
// rule as coder/websocket's Accept with OriginPatterns.
func (g *guard) originOK(r *http.Request) bool {
	origin := r.Header.Get("Origin")
	if origin == "" || g.anyOrigin {
		return true
	}
	u, err := url.Parse(origin)
	if err != nil {
		return false
	}
	if u.Host != "" && strings.EqualFold(u.Host, r.Host) {
		return true
	}
	for _, p := range g.origins {
		target := u.Host
		if strings.Contains(p, "://") {
			target = u.Scheme + "://" + u.Host
		}
		if ok, _ := path.Match(p, strings.ToLower(target)); ok && u.Host != "" {
			return true
		}
	}
	return false
}

// isJSON tells whether a Content-Type header names application/json.
func isJSON(ct string) bool {
	mt, _, err := mime.ParseMediaType(ct)
	return err == nil && mt == "application/json"
}

// refuse answers a refused request with FastAPI's error shape
// {"detail":"…"}, and logs the first refusal of each kind and value.
func (s *Server) refuse(w http.ResponseWriter, r *http.Request, status int, key, detail string) {
	g := s.guard
	g.mu.Lock()
	first := !g.logged[key] && len(g.logged) < 100
	if first {
		g.logged[key] = true
	}
	g.mu.Unlock()
	if first {
		s.opts.Logf("openenv: refused %s %s from %s: %s", r.Method, r.URL.Path, r.RemoteAddr, detail)
	}
	writeJSON(w, status, obj(field{"detail", detail}))
}

// check runs the guard's checks; false when the request was refused.
func (s *Server) check(w http.ResponseWriter, r *http.Request) bool {
	if !s.guard.hostOK(r) {
		name, _ := splitHost(r.Host)
		if name == "" {
			name = "NAME"
		}
		s.refuse(w, r, http.StatusForbidden, "host "+r.Host, fmt.Sprintf(
			"Refused a request for the host %q: this server answers only to localhost, 127.0.0.1, [::1] and the address it listens on, "+
				"so that a web page cannot reach it under its own name (DNS rebinding) and drive the browser. "+
				"If you reach the server under this name on purpose, start it with --allow-host %s.", r.Host, name))
		return false
	}
	if !s.guard.originOK(r) {
		origin := r.Header.Get("Origin")
		s.refuse(w, r, http.StatusForbidden, "origin "+origin, fmt.Sprintf(
			"Refused a request from the web origin %q: only the server's own origin is allowed, so that web pages "+
				"cannot drive the browser. If a page at that origin should use this server, start it with --allow-origin %s.",
			origin, origin))
		return false
	}
	if r.Method == http.MethodPost && !isJSON(r.Header.Get("Content-Type")) {
		got := "none"
		if ct := r.Header.Get("Content-Type"); ct != "" {
			got = strconv.Quote(ct)
		}
		s.refuse(w, r, http.StatusUnsupportedMediaType, "ctype "+r.URL.Path, fmt.Sprintf(
			"POST %s needs the header Content-Type: application/json (got %s): web pages can send other types to any "+
				"server without asking, so they are refused. Send the body as JSON, e.g. "+
				"curl -H 'Content-Type: application/json' -d '{}' URL.", r.URL.Path, got))
		return false
	}
	return true
}
