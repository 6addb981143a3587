package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"
)

// Browser supply: a Provider owns only the lifecycle of the isolated browser
// runtime one session runs in (a local Chromium, or a browser context on a
// remote Chromium that speaks CDP); the engine drives the pages in it. The
// split lets the same tasks, actions and observations run on a local
// browser or on a browser farm.

// The transports a Handle can name.
const (
	// TransportLocalProcess: the engine starts its own Chromium (on a
	// private Xvfb or headless) with a fresh profile.
	TransportLocalProcess = "local_process"
	// TransportRemoteCDP: the engine connects over the Chrome DevTools
	// Protocol to a browser that runs elsewhere; Handle.Endpoint is its
	// websocket URL.
	TransportRemoteCDP = "remote_cdp"
)

// DefaultLeaseTTL is the lease a Spec gets when it asks for none.
const DefaultLeaseTTL = 900 * time.Second

// ErrNotOwner: a handle was used in another process than the one that
// acquired it (a forked child must acquire its own browser).
var ErrNotOwner = errors.New("the browser session belongs to another process")

// ErrBrowserGone: a session's browser runtime ended for good (its
// connection closed, its browser context was disposed of). Providers and
// engines wrap it, and their errors then say what was lost; a session
// whose lease renewal fails with it ends at once instead of at its
// deadline. A browser that is only slow to answer is not gone.
var ErrBrowserGone = errors.New("the browser is gone")

// ErrRemoteGone: the connection to a remote browser ended, or the
// session's browser context no longer exists on it. It is an
// ErrBrowserGone.
var ErrRemoteGone error = remoteGone{}

type remoteGone struct{}

func (remoteGone) Error() string        { return "the remote browser is gone" }
func (remoteGone) Is(target error) bool { return target == ErrBrowserGone }

// ErrRemoteSlow: a remote browser did not answer in time while its
// connection stays open. A farm that is only overloaded answers later, so
// this does not end a session: its lease runs on to its deadline.
var ErrRemoteSlow = errors.New("the remote browser is slow to answer")

// MetaBrowserContextID is the Handle metadata key of the session's
// browser context on a remote browser (remote_cdp sets it; the engine
// opens its tabs there).
const MetaBrowserContextID = "browser_context_id"

// RedactURL drops the query and fragment (they can hold a farm's token)
// from a URL, for messages and records.
func RedactURL(u string) string {
	if i := strings.IndexAny(u, "?#"); i >= 0 {
		return u[:i]
	}
	return u
}

// queryRE finds the query of a URL inside a message.
var queryRE = regexp.MustCompile(`\?[^\s"']*`)

// ScrubQueries hides URL queries (they can hold a farm's token) in a
// message.
func ScrubQueries(msg string) string { return queryRE.ReplaceAllString(msg, "?…") }

// Spec is a provider-neutral request for one session's browser.
type Spec struct {
	// Metadata is copied into the handle (e.g. the session or task id).
	Metadata map[string]string
	// Options are provider-specific settings for this one session.
	Options map[string]any
	// LeaseTTL is how long the session may live without a heartbeat;
	// zero means DefaultLeaseTTL.
	LeaseTTL time.Duration
}

// TTL returns the lease length the spec asks for.
func (s Spec) TTL() time.Duration {
	if s.LeaseTTL <= 0 {
		return DefaultLeaseTTL
	}
	return s.LeaseTTL
}

// Handle is one acquired browser session, kept until it is released.
type Handle struct {
	SessionID string
	Provider  string // the registry name of the provider that made it
	Transport string // TransportLocalProcess or TransportRemoteCDP
	Endpoint  string // remote_cdp: the websocket URL to connect to
	Metadata  map[string]string
	OwnerPID  int       // the process that acquired it
	Deadline  time.Time // the lease's end at Acquire (zero: none)
	// TTL is the lease's length: how long the session lives without a
	// heartbeat (zero: no lease). Each renewal moves Deadline to now+TTL.
	TTL time.Duration
}

// CheckOwner refuses a handle used in another process than its owner.
func (h Handle) CheckOwner() error {
	if pid := os.Getpid(); h.OwnerPID != pid {
		return fmt.Errorf("%w: session %s was acquired by process %d and cannot be used in process %d; acquire a new session in this process",
			ErrNotOwner, h.SessionID, h.OwnerPID, pid)
	}
	return nil
}

// Provider acquires and releases one isolated browser runtime per session.
// Its methods are safe to call from several goroutines.
type Provider interface {
	// Acquire supplies a browser runtime for one session.
	Acquire(ctx context.Context, spec Spec) (Handle, error)
	// Release frees the session's runtime. Releasing twice is no error.
	Release(ctx context.Context, h Handle) error
}

// Heartbeater is implemented by providers whose leases expire: Heartbeat
// renews the session's lease for another TTL, and reports a runtime that
// is gone.
type Heartbeater interface {
	Heartbeat(ctx context.Context, h Handle) error
}

// DecodeOptions reads a provider's JSON options into v strictly (an
// unknown field is an error); null or nothing leaves v as it is.
func DecodeOptions(raw json.RawMessage, v any) error {
	if len(bytes.TrimSpace(raw)) == 0 || string(bytes.TrimSpace(raw)) == "null" {
		return nil
	}
	d := json.NewDecoder(bytes.NewReader(raw))
	d.DisallowUnknownFields()
	if err := d.Decode(v); err != nil {
		return fmt.Errorf("bad options: %v", err)
	}
	return nil
}

// ProviderFactory makes a provider from its options (a JSON object, or
// null when the configuration gave none).
type ProviderFactory func(options json.RawMessage) (Provider, error)

// Registry maps provider names to factories.
type Registry struct {
	mu sync.Mutex
	f  map[string]ProviderFactory
}

// Providers is the process-wide registry; engine/chromium registers
// local_process in it, engine/provider/remotecdp remote_cdp.
var Providers = &Registry{}

// Register adds a provider under name, replacing any earlier one.
func (r *Registry) Register(name string, f ProviderFactory) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.f == nil {
		r.f = map[string]ProviderFactory{}
	}
	r.f[name] = f
}

// Names lists the registered providers, sorted.
func (r *Registry) Names() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	names := make([]string, 0, len(r.f))
	for n := range r.f {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// New creates a provider from a single-key {name: options} JSON object,
// e.g. {"remote_cdp":{"endpoints":["http://127.0.0.1:9222"]}}.
func (r *Registry) New(config []byte) (Provider, error) {
	names := strings.Join(r.Names(), ", ")
	var m map[string]json.RawMessage
	d := json.NewDecoder(bytes.NewReader(config))
	if err := d.Decode(&m); err != nil || m == nil {
		if err == nil {
			err = errors.New("it is null")
		}
		return nil, fmt.Errorf("the browser provider must be a JSON object {name: options} with one of: %s (%v)", names, err)
	}
	if d.More() {
		return nil, fmt.Errorf("the browser provider has text after its JSON object; give one {name: options} object with one of: %s", names)
	}
	if len(m) != 1 {
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		return nil, fmt.Errorf("the browser provider must name exactly one provider, got %d (%s); use one of: %s",
			len(m), strings.Join(keys, ", "), names)
	}
	for name, opts := range m {
		r.mu.Lock()
		f := r.f[name]
		r.mu.Unlock()
		if f == nil {
			return nil, fmt.Errorf("unknown browser provider %q; use one of: %s", name, names)
		}
		p, err := f(opts)
		if err != nil {
			return nil, fmt.Errorf("browser provider %s: %w", name, err)
		}
		return p, nil
	}
	panic("unreachable")
}
