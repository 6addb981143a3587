package chromium

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"

	"waymark/engine"
)

// A Pool keeps warm local Chromiums for the engines of one process. An
// engine takes a browser from its pool at its first Reset and gives it back
// at Close; every episode still gets a fresh browser context in it (its own
// cookies, storage, cache, permissions and history), so a new episode, a
// replay or an undo costs a browser context and a navigation instead of a
// Chromium start (and an Xvfb).
//
// Engines spread over up to Browsers Chromiums per display and binary, by
// least load; a crash of one Chromium ends the episodes on it only, and the
// next Reset of each starts (or takes) another. A Chromium that has opened
// RecycleContexts browser contexts, or whose processes use more than
// RecycleMiB of memory, takes no new engines and stops once its last engine
// lets go, so a long day does not pile up what a browser leaks.
type Pool struct {
	opts PoolOptions

	mu     sync.Mutex
	closed bool
	all    []*Browser
	starts int
}

// PoolOptions configure a Pool. Zero fields get the defaults below.
type PoolOptions struct {
	// Browsers is how many Chromiums may run for one display and binary
	// (default 1). Engines share them by least load.
	Browsers int
	// RecycleContexts is how many episodes' browser contexts a Chromium
	// opens before it is recycled (default 500).
	RecycleContexts int
	// RecycleMiB is the memory (proportional set size of Chromium and its
	// helpers, read every 20 contexts) past which a Chromium is recycled
	// (default 3072).
	RecycleMiB int
	// NoSpare turns off the spare browser context each Chromium keeps
	// ready for the next episode.
	NoSpare bool
	// Logf, when set, gets diagnostics.
	Logf func(format string, args ...any)
}

// The defaults of PoolOptions.
const (
	DefaultPoolBrowsers    = 1
	DefaultRecycleContexts = 500
	DefaultRecycleMiB      = 3072
	memoryCheckEvery       = 20
)

// NewPool makes a pool; its Chromiums start when engines first need them.
func NewPool(o PoolOptions) *Pool {
	if o.Browsers <= 0 {
		o.Browsers = DefaultPoolBrowsers
	}
	if o.RecycleContexts <= 0 {
		o.RecycleContexts = DefaultRecycleContexts
	}
	if o.RecycleMiB <= 0 {
		o.RecycleMiB = DefaultRecycleMiB
	}
	return &Pool{opts: o}
}

var shared struct {
	sync.Mutex
	p    *Pool
	opts PoolOptions
}

// SetSharedPoolOptions sets the options of the process's shared pool; it
// takes effect when the pool is made (call it before the first engine).
func SetSharedPoolOptions(o PoolOptions) {
	shared.Lock()
	defer shared.Unlock()
	shared.opts = o
}

// SharedPool is the process's pool: engines whose Options name no Pool
// take their browser from it. It is made at first use.
func SharedPool() *Pool {
	shared.Lock()
	defer shared.Unlock()
	if shared.p == nil {
		shared.p = NewPool(shared.opts)
	}
	return shared.p
}

// CloseSharedPool stops the shared pool's Chromiums and Xvfbs (a program
// calls it as it ends; a test binary from TestMain). A later engine makes a
// new shared pool.
func CloseSharedPool() {
	shared.Lock()
	p := shared.p
	shared.p = nil
	shared.Unlock()
	if p != nil {
		p.Close()
	}
}

// SetBrowsers changes how many Chromiums the pool may run for one display
// and binary (at least 1); running ones beyond it stay until recycled.
func (p *Pool) SetBrowsers(n int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.opts.Browsers = max(n, 1)
}

// Close stops every Chromium of the pool, waiting for them to end. Engines
// still using one see their browser gone; a later acquire fails.
func (p *Pool) Close() {
	p.mu.Lock()
	p.closed = true
	all := p.all
	p.all = nil
	for _, b := range all {
		b.stopped = true
	}
	p.mu.Unlock()
	for _, b := range all {
		b.wait(context.Background())
		b.stop()
	}
}

// Stats are a pool's figures, for tests, benchmarks and logs.
type Stats struct {
	Browsers int // Chromiums running or starting
	Starts   int // Chromiums started since the pool was made
	Users    int // engines holding a browser
	Spares   int // browser contexts made ready for the next episodes
}

// Stats reports the pool's figures.
func (p *Pool) Stats() Stats {
	p.mu.Lock()
	defer p.mu.Unlock()
	s := Stats{Browsers: len(p.all), Starts: p.starts}
	for _, b := range p.all {
		s.Users += b.users
		if b.spare != nil {
			s.Spares++
		}
	}
	return s
}

// SpareTabs lists the tabs of the spare browser contexts ready in the
// pool's Chromiums (tests wait for them).
func (p *Pool) SpareTabs() []target.ID {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []target.ID
	for _, b := range p.all {
		if b.spare != nil {
			out = append(out, b.spare.ID)
		}
	}
	return out
}

// Profiles lists the profile folders of the pool's Chromiums.
func (p *Pool) Profiles() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []string
	for _, b := range p.all {
		if b.started() && b.chr != nil && b.chr.Profile() != "" {
			out = append(out, b.chr.Profile())
		}
	}
	return out
}

// OpenPages counts the page targets (tabs) open in the pool's running
// Chromiums: every episode's tabs, none once its engine closed (the blank
// tab each Chromium keeps for the pool's own connection, and its spare,
// are not counted).
func (p *Pool) OpenPages(ctx context.Context) (int, error) {
	p.mu.Lock()
	all := slices.Clone(p.all)
	p.mu.Unlock()
	n := 0
	for _, b := range all {
		if !b.Alive() {
			continue
		}
		var own target.ID // the tab the pool's connection opened at start
		if c := chromedp.FromContext(b.ctx); c != nil && c.Target != nil {
			own = c.Target.TargetID
		}
		// A spare being made is not an episode's page: list the tabs when
		// no spare is being made, before and after the listing.
		for {
			gen, making, _ := b.SpareState()
			if making {
				select {
				case <-ctx.Done():
					return 0, ctx.Err()
				case <-time.After(5 * time.Millisecond):
				}
				continue
			}
			infos, err := chromedp.Targets(b.ctx)
			if err != nil {
				return 0, fmt.Errorf("listing the tabs of a pooled Chromium: %w", err)
			}
			gen2, making, spare := b.SpareState()
			if making || gen2 != gen {
				continue
			}
			for _, in := range infos {
				if in.Type == "page" && in.TargetID != own && in.TargetID != spare {
					n++
				}
			}
			break
		}
	}
	return n, nil
}

// SpareState reads b's spare bookkeeping: how many spares were begun,
// whether one is being made, and the ready one's tab (tests read it).
func (b *Browser) SpareState() (gen int, making bool, spare target.ID) {
	b.pool.mu.Lock()
	defer b.pool.mu.Unlock()
	if b.spare != nil {
		spare = b.spare.ID
	}
	return b.spareGen, b.made != nil, spare
}

func (p *Pool) logf(format string, args ...any) {
	if p.opts.Logf != nil {
		p.opts.Logf(format, args...)
	}
}

// Key is what two engines must share to share a Chromium.
type Key struct {
	Display string // engine.DisplayXvfb or engine.DisplayHeadless
	Path    string // the Chromium binary
	Xvfb    string // the Xvfb binary (Xvfb display only)
	// Offline: a Chromium for episodes replayed from their archives
	// only, each request answered from one by the engine's request
	// router (see Attached); a request whose episode cannot be found is
	// refused, never sent.
	Offline bool
}

// Browser is one warm Chromium (and its Xvfb) of a pool, held by the
// engines that acquired it until each calls Release.
type Browser struct {
	pool *Pool
	key  Key

	ready chan struct{} // closed when the start ended; err says how
	err   error

	chr *Process        // once started
	ctx context.Context // chr's: the chromedp browser context

	// guarded by pool.mu
	users       int  // engines holding it
	contexts    int  // browser contexts opened in it
	draining    bool // takes no new engines; stops when users reach 0
	stopped     bool
	spare       *TabContext   // made ahead for the next episode (spare.go)
	made        chan struct{} // while a spare is being made; closed when it is done
	makingRules string        // the host rules of the spare being made
	spareGen    int           // spares begun

	attachOnce sync.Once
	attached   any // what Attached made (the engine's request router)
}

// Attached is what newValue returned at the first call for b (later calls
// return it again): the one thing per Chromium its engines share beside
// the browser, the engine's browser-level request router.
func (b *Browser) Attached(newValue func() any) any {
	b.attachOnce.Do(func() { b.attached = newValue() })
	return b.attached
}

// Ctx is b's chromedp browser context (engines make their own children).
func (b *Browser) Ctx() context.Context { return b.ctx }

// Key is what b was started for.
func (b *Browser) Key() Key { return b.key }

// Process is b's Chromium process, nil when it did not start.
func (b *Browser) Process() *Process { return b.chr }

// Logf writes a diagnostic to the pool's log.
func (b *Browser) Logf(format string, args ...any) { b.pool.logf(format, args...) }

// Release gives b back to its pool; a draining one stops with its last
// user.
func (b *Browser) Release() { b.pool.release(b) }

// Opened counts a browser context an episode opened in b (at its Reset
// or ahead of it, as a spare), and marks b for recycling when it has
// opened enough of them or uses too much memory.
func (b *Browser) Opened() { b.pool.opened(b) }

// Acquire gives an engine a running Chromium for key, starting one when
// none is free and the pool may run another. ctx bounds the wait for a
// start another engine began. The engine calls Release when done with it.
func (p *Pool) Acquire(ctx context.Context, key Key, logf func(string, ...any)) (*Browser, error) {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil, fmt.Errorf("%w: the browser pool was closed", engine.ErrClosed)
	}
	var pick *Browser
	var dead []*Browser
	n := 0
	for _, b := range slices.Clone(p.all) {
		if b.key != key || b.draining {
			continue
		}
		if b.started() && !b.Alive() {
			if p.retireLocked(b, "it is no longer running") {
				dead = append(dead, b)
			}
			continue
		}
		n++
		if pick == nil || b.users < pick.users {
			pick = b
		}
	}
	if pick == nil || (pick.users > 0 && n < p.opts.Browsers) {
		pick = &Browser{pool: p, key: key, ready: make(chan struct{})}
		p.all = append(p.all, pick)
		p.starts++
		go pick.start(logf)
	}
	pick.users++
	p.mu.Unlock()
	// A dead Chromium's helpers, profile and Xvfb go before the new
	// episode starts, not some time later.
	for _, b := range dead {
		b.stop()
	}
	if err := pick.wait(ctx); err != nil {
		p.release(pick)
		return nil, err
	}
	return pick, nil
}

// release gives a browser back; a draining one stops with its last user.
func (p *Pool) release(b *Browser) {
	p.mu.Lock()
	b.users--
	stop := b.draining && b.users <= 0 && p.retireLocked(b, "")
	p.mu.Unlock()
	if stop {
		b.stop()
	}
}

// retireLocked marks b to take no new engines; it reports whether the
// caller is to stop b now (no engine holds it, or it is dead), and then
// takes it out of the pool. The caller holds p.mu.
func (p *Pool) retireLocked(b *Browser, why string) bool {
	b.draining = true
	if why != "" {
		p.logf("browser pool: retiring a Chromium: %s", why)
	}
	if b.stopped || (b.users > 0 && b.Alive()) {
		return false
	}
	b.stopped = true
	p.all = slices.DeleteFunc(p.all, func(o *Browser) bool { return o == b })
	return true
}

// opened counts a browser context made in b, and marks b for recycling
// when it has opened enough of them or uses too much memory.
func (p *Pool) opened(b *Browser) {
	p.mu.Lock()
	b.contexts++
	n := b.contexts
	check := n%memoryCheckEvery == 0
	if n >= p.opts.RecycleContexts && !b.draining {
		p.logf("browser pool: a Chromium opened %d browser contexts; it is recycled when its engines let go", n)
		b.draining = true
	}
	p.mu.Unlock()
	if !check || b.chr == nil {
		return
	}
	if mib := b.chr.MemoryMiB(); mib > int64(p.opts.RecycleMiB) {
		p.mu.Lock()
		if !b.draining {
			p.logf("browser pool: a Chromium uses %d MiB (limit %d MiB); it is recycled when its engines let go", mib, p.opts.RecycleMiB)
			b.draining = true
		}
		p.mu.Unlock()
	}
}

// Draining reports whether b takes no new episodes.
func (b *Browser) Draining() bool {
	b.pool.mu.Lock()
	defer b.pool.mu.Unlock()
	return b.draining
}

func (b *Browser) started() bool {
	select {
	case <-b.ready:
		return true
	default:
		return false
	}
}

// wait waits for b's start to end and returns its error.
func (b *Browser) wait(ctx context.Context) error {
	select {
	case <-b.ready:
		return b.err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Alive reports whether b's Chromium runs (after its start).
func (b *Browser) Alive() bool {
	return b.started() && b.err == nil && b.chr.Alive()
}

// start launches Xvfb (when needed) and Chromium with a fresh profile.
func (b *Browser) start(logf func(string, ...any)) {
	defer close(b.ready)
	b.chr, b.err = Start(StartOptions{Display: b.key.Display, Path: b.key.Path, Xvfb: b.key.Xvfb, Logf: logf})
	if b.err != nil {
		p := b.pool
		p.mu.Lock()
		b.stopped = true
		p.all = slices.DeleteFunc(p.all, func(o *Browser) bool { return o == b })
		p.mu.Unlock()
		return
	}
	b.ctx = b.chr.Ctx
	b.pool.logf("browser pool: %s started (%s, profile %s)", Version(b.key.Path), b.key.Display, b.chr.Profile())
}

// stop ends Chromium, its helpers, the profile and Xvfb.
func (b *Browser) stop() {
	if b.chr == nil {
		return
	}
	if err := b.chr.Stop(); err != nil {
		b.pool.logf("browser pool: %v", err)
	}
}
