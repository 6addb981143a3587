// Package practice is Waymark's built-in practice pack: three small offline
// websites (a shop, a wiki and a settings/forms app) served on 127.0.0.1, and
// a pack of tasks with automatic checks that runs against them.
//
// The sites answer by Host header (shop.waymark.test, wiki.waymark.test,
// forms.waymark.test; point Chromium at the server with HostRules) and by
// path prefix for direct access (http://127.0.0.1:PORT/shop/...).
//
// The task pack lives in tasks.json. Each task's check is tested in a real
// browser against a solution written in browser_test.go, so a new task needs
// a new solution there (the test says so when one is missing). Pages keep
// their state in localStorage (keys wm_cart, wm_orders, wm_settings,
// wm_bookings), which interaction checks read.
//
// The shop and the forms site also answer a small JSON API under /api/
// that their own pages call (shopapi.go, formsapi.go), so a captured
// episode holds real API traffic; every answer follows from the request
// alone (no server state, no random ids, no clock), so replays match.
package practice

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"
)

//go:embed sites tasks.json
var files embed.FS

// Hosts are the host names the practice sites answer to, in the order shop,
// wiki, forms.
var Hosts = []string{"shop.waymark.test", "wiki.waymark.test", "forms.waymark.test"}

// Server serves the practice sites on a loopback port.
type Server struct {
	ln   net.Listener
	srv  *http.Server
	h    http.Handler
	done chan struct{}

	closeOnce sync.Once
	closeErr  error
}

// Start listens on 127.0.0.1 on a free port and serves the practice sites
// until Close.
func Start() (*Server, error) {
	h, err := newHandler()
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("practice sites: cannot listen on 127.0.0.1: %w (is the loopback interface up?)", err)
	}
	s := &Server{ln: ln, h: h, done: make(chan struct{})}
	s.srv = &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		defer close(s.done)
		_ = s.srv.Serve(ln)
	}()
	return s, nil
}

// URL is the server's base URL, http://127.0.0.1:PORT.
func (s *Server) URL() string { return "http://" + s.ln.Addr().String() }

// Addr is the server's 127.0.0.1:PORT.
func (s *Server) Addr() string { return s.ln.Addr().String() }

// HostRules is the value of Chromium's --host-resolver-rules flag that sends
// the three practice hosts to this server.
func (s *Server) HostRules() string {
	rules := make([]string, len(Hosts))
	for i, h := range Hosts {
		rules[i] = "MAP " + h + " " + s.Addr()
	}
	return strings.Join(rules, ",")
}

// Handler is the server's HTTP handler (also usable with httptest).
func (s *Server) Handler() http.Handler { return s.h }

// Close stops the server, waiting briefly for requests in flight. It is
// safe to call more than once.
func (s *Server) Close() error {
	s.closeOnce.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		s.closeErr = s.srv.Shutdown(ctx)
		if errors.Is(s.closeErr, context.DeadlineExceeded) {
			s.closeErr = s.srv.Close()
		}
		<-s.done
	})
	return s.closeErr
}

// Handler builds a fresh handler for the practice sites without listening,
// for callers that run their own server.
func Handler() (http.Handler, error) { return newHandler() }

type router struct {
	sites map[string]http.Handler // by short name: shop, wiki, forms
	index *template.Template
}

func newHandler() (http.Handler, error) {
	shop, err := newShop()
	if err != nil {
		return nil, fmt.Errorf("practice shop: %w", err)
	}
	wiki, err := newWiki()
	if err != nil {
		return nil, fmt.Errorf("practice wiki: %w", err)
	}
	forms, err := newForms()
	if err != nil {
		return nil, fmt.Errorf("practice forms: %w", err)
	}
	idx, err := template.New("index").Parse(indexHTML)
	if err != nil {
		return nil, err
	}
	return &router{sites: map[string]http.Handler{"shop": shop, "wiki": wiki, "forms": forms}, index: idx}, nil
}

// ServeHTTP routes by Host (shop.waymark.test) and then by path prefix
// (/shop/...). Handlers see a path without the prefix and learn the prefix
// from the request context, so their links work both ways.
func (rt *router) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/favicon.ico" {
		w.WriteHeader(http.StatusNoContent) // no icon, and no 404 in the console
		return
	}
	host := r.Host
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	if name, ok := strings.CutSuffix(strings.ToLower(host), ".waymark.test"); ok {
		if site := rt.sites[name]; site != nil {
			site.ServeHTTP(w, r)
			return
		}
	}
	p := strings.TrimPrefix(r.URL.Path, "/")
	name, rest, _ := strings.Cut(p, "/")
	if site := rt.sites[name]; site != nil {
		if rest == "" && !strings.HasSuffix(r.URL.Path, "/") {
			http.Redirect(w, r, "/"+name+"/", http.StatusFound)
			return
		}
		r2 := r.Clone(withBase(r.Context(), "/"+name))
		r2.URL.Path = "/" + rest
		r2.URL.RawPath = ""
		site.ServeHTTP(w, r2)
		return
	}
	if r.URL.Path != "/" {
		notFound(w, "This practice server has three sites: /shop/, /wiki/ and /forms/.")
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_ = rt.index.Execute(w, nil)
}

type baseKey struct{}

func withBase(ctx context.Context, base string) context.Context {
	return context.WithValue(ctx, baseKey{}, base)
}

// base is "" when the site is reached by its host name, "/shop" and the like
// when reached by path prefix.
func base(r *http.Request) string {
	b, _ := r.Context().Value(baseKey{}).(string)
	return b
}

func notFound(w http.ResponseWriter, msg string) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(http.StatusNotFound)
	fmt.Fprintf(w, `<!doctype html><meta charset="utf-8"><title>Page not found</title><body style="font-family:sans-serif;padding:40px;color:#333"><h1>Page not found</h1><p>%s</p><p><a href="javascript:history.back()">Go back</a></p>`, template.HTMLEscapeString(msg))
}

// staticHandler serves sites/<site>/static/.
func staticHandler(site string) http.Handler {
	sub, err := fs.Sub(files, "sites/"+site+"/static")
	if err != nil {
		panic(err) // the embedded tree is fixed at build time
	}
	return http.StripPrefix("/static/", http.FileServerFS(sub))
}

const indexHTML = `<!doctype html><html><head><meta charset="utf-8"><title>Waymark practice sites</title>
<style>body{font-family:"DejaVu Sans",Arial,sans-serif;background:#f3f6f8;margin:0;color:#223}
header{background:#176b5b;color:#fff;padding:18px 32px;font-size:22px}main{padding:24px 32px}
a.card{display:block;background:#fff;border-radius:10px;padding:16px 20px;margin:0 0 14px;color:#176b5b;text-decoration:none;box-shadow:0 1px 3px #0002}
a.card b{font-size:18px}a.card span{display:block;color:#556;margin-top:4px}</style></head>
<body><header>Waymark practice sites</header><main>
<a class="card" href="/shop/"><b>Trailhead Outfitters</b><span>An outdoor gear shop: search, categories, price filters, cart and checkout.</span></a>
<a class="card" href="/wiki/"><b>Kaldopedia</b><span>An encyclopedia of the Republic of Kaldoria: articles, infoboxes, tables, search.</span></a>
<a class="card" href="/forms/"><b>Nimbus account</b><span>Account settings and a workshop booking wizard.</span></a>
</main></body></html>`
