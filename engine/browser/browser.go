// Package browser is the local step engine: Chromium driven over CDP
// (chromedp), on a private Xvfb display that the engine starts itself, or
// headless. It implements engine.Engine and engine.LiveFrames.
//
// Engines take a warm Chromium from a chromium.Pool (by default the
// process's shared pool), one Chromium for many engines; each episode gets a
// fresh browser context in it (its own cookies, storage, cache, permissions
// and history) and a new tab, so a reset costs a browser context and a
// navigation, not a browser start. A Chromium that died is replaced at the
// next Reset. Close ends the engine's episode and gives the browser back to
// the pool; the pool's Close stops Chromium and Xvfb and removes the profile.
//
// Every frame of every page gets pageScript: the settle recorder, and an
// in-page replacement for the native <select> popup (selectshim.js), which
// Chromium draws as a separate widget that clicks by position miss.
package browser

import (
	"context"
	"fmt"
	"os/exec"
	"sync"
	"sync/atomic"

	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"

	"waymark/engine"
	"waymark/engine/action"
	"waymark/engine/chromium"
	"waymark/engine/redact"
)

// Options configure a local browser engine.
type Options struct {
	// Settings are the episode limits; zero fields get the defaults of
	// engine.DefaultSettings where a zero makes no sense.
	Settings engine.Settings
	// Display overrides Settings.Display when set: "xvfb" or "headless".
	// Empty means Xvfb when installed, else headless.
	Display string
	// ChromiumPath is the browser binary (default: chromium on PATH).
	ChromiumPath string
	// XvfbPath is the Xvfb binary (default: Xvfb on PATH).
	XvfbPath string
	// HostRules map host names to addresses in the syntax of Chromium's
	// --host-resolver-rules, e.g. "MAP shop.waymark.test 127.0.0.1:43121".
	// Each episode's browser context gets them through a proxy of its own
	// (engine/chromium's hostproxy.go); a remote browser gets the mapped
	// hosts relayed by the engine instead (remotehosts.go).
	HostRules string
	// Pool supplies the local Chromium; nil means the process's shared
	// pool (chromium.SharedPool).
	Pool *chromium.Pool
	// Logf, when set, gets diagnostics.
	Logf func(format string, args ...any)
	// Remote, when set, drives a browser that runs elsewhere over CDP
	// instead of starting Chromium (remote.go); Display, ChromiumPath and
	// XvfbPath are then unused.
	Remote *Remote
}

// Engine is the local browser engine. Its methods are safe to call from
// several goroutines; they run one at a time.
type Engine struct {
	opts Options
	set  engine.Settings

	mu      sync.Mutex
	closed  bool
	display string // the mode in use: xvfb or headless
	version string

	sb            *chromium.Browser  // local: the pool's Chromium the engine holds
	allocCancel   context.CancelFunc // remote: ends the connection
	browserCtx    context.Context    // the browser; local: the engine's own child of the pool's
	browserCancel context.CancelFunc
	anchorGone    <-chan struct{} // remote: closed when the session ends (remote.go)

	ep      *episode
	state   engine.State
	closing sync.WaitGroup // episodes being closed in the background
	stateMu sync.Mutex     // guards state, so State never waits for a step

	frames       chan engine.Frame
	framesMu     sync.Mutex
	framesClosed bool
	framesOn     atomic.Bool
	frameSeq     atomic.Uint64
	openerSink   atomic.Pointer[func(target.ID, target.ID)]
	netCap       atomic.Pointer[netCapture] // the episode's network capture (netcapture.go), nil when off
	// policy is the redaction policy of the episode (Settings.Redact, or
	// the reset's own); policySet says the reset chose it.
	policy    *redact.Policy
	policySet bool
	// offline: the engine's Chromium is one for replays from archives
	// (pool key offline); an archive reset asks for one, a live reset
	// for the other.
	offline bool

	// stateExpr, when set (by tests), is read with every observation's URL
	// and title, into lastState.
	stateExpr string
	lastState string
}

// episode is the state of one reset.
type episode struct {
	id      string
	ctx     context.Context // the first tab; its cancel disposes the browser context
	cancel  context.CancelFunc
	tab     *tab // the active tab
	tabsMu  sync.Mutex
	tabs    map[target.ID]*tab
	order   []*tab // in opening order, to fall back when a tab closes
	newTabs chan target.ID
	done    bool
	endedBy action.EndReason
	check   *action.Check
	valid   *action.Validator // the task's validate script, or nil
	script  scriptForm        // how valid.Script runs (found at its first run)
	answer  string
	px, py  float64 // the pointer's last position
	buttons int64   // the mouse buttons held (mouse_down): 1 the left one
	mods    int64   // the modifier keys held (key_down): Alt 1, Control 2, Meta 4, Shift 8
	lastURL string
	env     pageEnv        // every tab's clock, time zone and locale
	g       grounding      // element grounding state (grounding.go)
	serve   *archiveServer // answers the requests of a replay from an archive (archiveserve.go); nil when live
	// personal are the values a redaction policy found on the episode's
	// pages (redact.go): they are replaced wherever the engine keeps text.
	personal []string
}

var _ engine.Engine = (*Engine)(nil)
var _ engine.LiveFrames = (*Engine)(nil)

// New checks the options and finds the browser; the engine takes a
// Chromium from its pool (started there when none runs) at the first Reset.
//
// New is the engine without a provider's session: what NewForHandle makes
// once a provider handed out a browser, what Prewarm starts a Chromium
// with, and what tests make directly, as they need an engine on the warm
// local pool and no lease. Programs take their engines from a provider
// (Acquire with engine/chromium's local_process provider or the remote_cdp
// one), so every browser they use is a session with a lease.
func New(opts Options) (*Engine, error) {
	set := opts.Settings
	if set.MaxSteps == 0 {
		def := engine.DefaultSettings()
		set.MaxSteps = def.MaxSteps
		if set.ActionWait == 0 && set.ExplicitWait == 0 {
			set.ActionWait, set.ExplicitWait = def.ActionWait, def.ExplicitWait
		}
	}
	if opts.Display != "" {
		set.Display = opts.Display
	}
	if err := set.Validate(); err != nil {
		return nil, err
	}
	if opts.Remote != nil {
		return newRemote(opts, set) // remote.go
	}
	path, err := chromium.Find(opts.ChromiumPath)
	if err != nil {
		return nil, err
	}
	opts.ChromiumPath = path
	e := &Engine{opts: opts, set: set, frames: make(chan engine.Frame, 1)}
	e.display, err = e.pickDisplay()
	if err != nil {
		return nil, err
	}
	e.version = chromium.Version(path)
	e.state.MaxSteps = set.MaxSteps
	return e, nil
}

func (e *Engine) pickDisplay() (string, error) {
	switch e.set.Display {
	case engine.DisplayHeadless:
		return engine.DisplayHeadless, nil
	case engine.DisplayXvfb:
		p := e.xvfbPath()
		if _, err := exec.LookPath(p); err != nil {
			return "", fmt.Errorf("Xvfb was not found (%s); install the xvfb package (make deps) or use the headless display", p)
		}
		return engine.DisplayXvfb, nil
	}
	if _, err := exec.LookPath(e.xvfbPath()); err == nil {
		return engine.DisplayXvfb, nil
	}
	return engine.DisplayHeadless, nil
}

func (e *Engine) xvfbPath() string {
	if e.opts.XvfbPath != "" {
		return e.opts.XvfbPath
	}
	return "Xvfb"
}

func (e *Engine) logf(format string, args ...any) {
	if e.opts.Logf != nil {
		e.opts.Logf(format, args...)
	}
}

// Settings returns the settings in use.
func (e *Engine) Settings() engine.Settings { return e.set }

// Info describes the engine for the episode record.
func (e *Engine) Info() engine.Info {
	if e.opts.Remote != nil {
		return engine.Info{Kind: engine.TransportRemoteCDP, Display: e.display, Browser: e.version,
			Server: engine.RedactURL(e.opts.Remote.WSURL), ActionSet: e.set.ActionSet, MaxSteps: e.set.MaxSteps, Redaction: e.redactPolicy()}
	}
	v := e.version
	if v == "" { // not read when the engine was made: try again
		v = chromium.Version(e.opts.ChromiumPath)
	}
	return engine.Info{Kind: "local", Display: e.display, Browser: v,
		ActionSet: e.set.ActionSet, MaxSteps: e.set.MaxSteps, Redaction: e.redactPolicy()}
}

// setState changes the state; the caller holds e.mu.
func (e *Engine) setState(f func(*engine.State)) {
	e.stateMu.Lock()
	f(&e.state)
	e.stateMu.Unlock()
}

// State reports the episode's id and step count; it does not wait for a
// step in progress.
func (e *Engine) State() engine.State {
	e.stateMu.Lock()
	defer e.stateMu.Unlock()
	return e.state
}

// BrowserPID is the id of the main process of the Chromium the engine
// holds (0 when it holds none); tests use it.
func (e *Engine) BrowserPID() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.sb == nil || e.sb.Process() == nil {
		return 0
	}
	return e.sb.Process().PID()
}

// XvfbPID is the id of the Xvfb of the engine's Chromium (0 when none).
func (e *Engine) XvfbPID() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.sb == nil || e.sb.Process() == nil {
		return 0
	}
	return e.sb.Process().XvfbPID()
}

// Profile is the temporary profile folder of the engine's Chromium.
func (e *Engine) Profile() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.sb == nil || e.sb.Process() == nil {
		return ""
	}
	return e.sb.Process().Profile()
}

// pool is the engine's pool: its own, or the process's shared one.
func (e *Engine) pool() *chromium.Pool {
	if e.opts.Pool != nil {
		return e.opts.Pool
	}
	return chromium.SharedPool()
}

// browserAlive reports whether the engine's Chromium still runs.
func (e *Engine) browserAlive() bool {
	if e.opts.Remote != nil {
		return e.remoteAlive() // remote.go
	}
	return e.sb != nil && e.browserCtx != nil && e.browserCtx.Err() == nil && e.sb.Alive()
}

// launch takes a running Chromium from the pool (which starts one, and its
// Xvfb, when it must), or connects to the remote browser.
func (e *Engine) launch() error {
	e.shutdownBrowser()
	if e.opts.Remote != nil {
		return e.connectRemote() // remote.go
	}
	key := chromium.Key{Display: e.display, Path: e.opts.ChromiumPath, Offline: e.offline}
	if e.display == engine.DisplayXvfb {
		key.Xvfb = e.xvfbPath()
	}
	sb, err := e.pool().Acquire(context.Background(), key, e.logf)
	if err != nil {
		return err
	}
	bctx, bcancel := context.WithCancel(sb.Ctx())
	e.sb, e.browserCtx, e.browserCancel = sb, bctx, bcancel
	e.watchOpeners(bctx)
	return nil
}

// watchOpeners passes the tabs pages open (their opener and id) to the
// episode's sink, for as long as bctx lives.
func (e *Engine) watchOpeners(bctx context.Context) {
	sinkHolder := &e.openerSink
	if err := chromedp.ListenBrowser(bctx, func(ev any) {
		if ev, ok := ev.(*target.EventTargetCreated); ok && ev.TargetInfo != nil &&
			ev.TargetInfo.Type == "page" && ev.TargetInfo.OpenerID != "" {
			if f := sinkHolder.Load(); f != nil {
				(*f)(ev.TargetInfo.OpenerID, ev.TargetInfo.TargetID)
			}
		}
	}); err != nil {
		e.logf("browser: cannot watch new tabs: %v", err)
	}
}

// shutdownBrowser gives the engine's Chromium back to its pool (or ends
// the connection to the remote browser).
func (e *Engine) shutdownBrowser() {
	e.closing.Wait()
	if e.browserCancel != nil {
		e.browserCancel()
	}
	if e.allocCancel != nil {
		e.allocCancel()
	}
	if e.sb != nil {
		e.sb.Release()
	}
	e.browserCtx, e.browserCancel, e.allocCancel, e.sb = nil, nil, nil, nil
}

// Prewarm starts the Chromium (and Xvfb) an engine with opts would use and
// makes its first episode's browser context, in the background of a
// program that will soon need them (serve before its first session, the
// desktop app before its first Start), so no episode pays for the start.
// A remote browser (opts.Remote) is not prewarmed. The error is what the
// engine's first Reset would have said.
func Prewarm(opts Options) error {
	if opts.Remote != nil {
		return nil
	}
	e, err := New(opts)
	if err != nil {
		return err
	}
	defer e.Close()
	e.mu.Lock()
	defer e.mu.Unlock()
	if err := e.launch(); err != nil {
		return err
	}
	e.sb.Prepare(e.opts.HostRules, e.set.OpTimeout)
	return nil
}

// router is the request router of the engine's Chromium (fetchroute.go),
// made by its first engine and shared by all.
func (e *Engine) router() *fetchRouter {
	sb := e.sb
	return sb.Attached(func() any { return newFetchRouter(sb.Ctx(), sb.Key().Offline, sb.Logf) }).(*fetchRouter)
}
