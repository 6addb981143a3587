package browser

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"

	"waymark/engine/action"
)

// settleScript is the settle recorder that runs in every frame of every
// document (see settle.js for what it counts as activity and as pending).
//
//go:embed settle.js
var settleScript string

// Settling: the page counts as quiet when no navigation or request started
// after the action is in flight, no short timer, animation-frame or idle
// callback of a young chain is pending, no scroll or finite animation is
// running, at least one frame was drawn after the action, nothing changed
// in the page for domQuiet (idleQuiet when nothing changed at all) and no
// request started or ended for netQuiet. The windows start when the
// action's dispatch ended, never earlier.
var (
	domQuiet = 35 * time.Millisecond
	// idleQuiet is the window when nothing at all happened since the
	// dispatch ended (the two frames waited for usually cover it).
	idleQuiet = 20 * time.Millisecond
	netQuiet  = 60 * time.Millisecond
	pollEvery = 8 * time.Millisecond
	// lateQuiet: a document the recorder reached only after its scripts
	// ran (a tab the page opened, attached after its first load) may hold
	// timers the recorder never saw; it is observed at the earliest this
	// long after its load event.
	lateQuiet = 300 * time.Millisecond
	// frameWait is how long after the action's dispatch the step waits for
	// the main frame to draw a frame. A renderer whose compositor is
	// starved of CPU draws late, and what the page does on its next frame
	// (an IntersectionObserver's callback, a requestAnimationFrame, even
	// applying a scroll) happens only then: a step once observed as quiet
	// after 100 ms without a frame was stale. One that draws none within
	// frameWait (a window nobody shows) is observed without.
	frameWait = time.Second
)

// settleTrace, when set (by tests), gets every probe's answer.
var settleTrace func(format string, args ...any)

// probe is one reading of the page's state.
type probe struct {
	ok       bool            // the page answered (false during a navigation)
	ready    string          // document.readyState of the main frame
	last     time.Time       // the latest activity in any frame
	pending  int             // timers, frames, idle callbacks, scrolls, animations
	lateLoad time.Time       // load end of a late-injected document, or zero
	bg       map[string]bool // addresses a poller fetched lately
	sent     time.Time       // the latest message posted by an action's code, in any frame
	recv     time.Time       // the latest message received, in any frame
	undrawn  bool            // the two frames asked for were not drawn within 100 ms
}

// postWait is how long a posted message with no message received after it
// (a worker computing its answer, a frame's handler not yet run) keeps the
// page busy: the bound of the young-timer rule.
const postWait = time.Second

// posted reports whether a message posted lately is still unanswered: no
// frame of the page (the sender's or the receiver's, same-site or not)
// received a message after it.
func (p probe) posted(now time.Time) bool {
	return !p.sent.IsZero() && p.recv.Before(p.sent) && now.Sub(p.sent) <= postWait
}

func msTime(v any) time.Time {
	f, _ := v.(float64)
	if f <= 0 || math.IsNaN(f) {
		return time.Time{}
	}
	return time.UnixMilli(int64(f))
}

// probe reads the page's state in one round trip; with frames it first
// waits for two animation frames (at most 100 ms). A page script error (the
// document is being replaced) is not an error: ok is false.
func probeExpr(frames bool, animMax time.Duration, since time.Time) string {
	return probeScript(strconv.FormatBool(frames), animMax, since)
}

// What a probe waits for before it reads the page.
const (
	waitNothing = "false"
	waitFrames  = "true"   // two animation frames (at most 100 ms)
	waitTasks   = "'task'" // the tasks already queued
)

func probeScript(wait string, animMax time.Duration, since time.Time) string {
	return `(() => { const st = window[Symbol.for('waymark.settle')];
  return st ? st.probe(` + strconv.FormatInt(animMax.Milliseconds(), 10) + `, ` + wait + `, ` +
		strconv.FormatInt(since.UnixMilli(), 10) + `) : [document.readyState]; })()`
}

// drawn holds the out-of-process frames that changed since the action
// (probeFrames); settle keeps one per step.
func (t *tab) probe(ctx context.Context, d time.Duration, frames bool, animMax time.Duration, since time.Time, drawn map[target.ID]bool) (probe, error) {
	wait := waitNothing
	if frames {
		wait = waitFrames
	}
	return t.probeAfter(ctx, d, wait, animMax, since, drawn)
}

// probeAfter is probe with what it waits for (waitNothing, waitFrames or
// waitTasks).
func (t *tab) probeAfter(ctx context.Context, d time.Duration, wait string, animMax time.Duration, since time.Time, drawn map[target.ID]bool) (probe, error) {
	expr := probeScript(wait, animMax, since)
	var raw []any
	err := t.do(ctx, d, func(ctx context.Context) error {
		var err error
		raw, err = chromedp.Run(ctx, chromedp.Evaluate[[]any](expr, chromedp.EvalAwaitPromise))
		return err
	})
	switch {
	case err == nil:
	case errors.Is(err, errCrashed) || errors.Is(err, errTimedOut) || ctx.Err() != nil || t.gone():
		return probe{}, err
	default:
		return probe{}, nil // e.g. "Execution context was destroyed": a navigation
	}
	if settleTrace != nil {
		settleTrace("probe wait=%s %v", wait, raw)
	}
	p := parseProbe(raw)
	if p.ok {
		t.probeFrames(ctx, &p, animMax, since, drawn)
	}
	if p.posted(time.Now()) {
		p.pending++
	}
	return p, nil
}

func parseProbe(raw []any) probe {
	p := probe{ok: len(raw) > 0}
	if len(raw) > 0 {
		p.ready, _ = raw[0].(string)
	}
	if len(raw) >= 12 {
		p.undrawn = len(raw) > 12 && raw[12] == false
		p.last = msTime(raw[1])
		for _, v := range raw[2:7] {
			n, _ := v.(float64)
			p.pending += int(n)
		}
		p.lateLoad = msTime(raw[8])
		p.sent, p.recv = msTime(raw[10]), msTime(raw[11])
		if us, ok := raw[9].([]any); ok && len(us) > 0 {
			p.bg = map[string]bool{}
			for _, u := range us {
				if s, ok := u.(string); ok {
					p.bg[s] = true
				}
			}
		}
	}
	return p
}

// probeFrames adds the state of the out-of-process (cross-site) frames,
// which the main frame's recorder cannot reach, to p. A frame that is busy
// (its process runs a script and cannot answer within a second) counts as
// pending: its answer is yet to be drawn (the step waits for it up to the
// cap). A frame that changed after the action is probed from then on after
// two of its animation frames, as the main frame is at its first probe: its
// process draws on its own, and a screenshot shows its change only once it
// drew it (the screenshot makes the main frame draw, not the others). One
// that answers with an error (gone, navigating) adds nothing; a closed one
// is forgotten. drawn holds the frames that changed since the action.
func (t *tab) probeFrames(ctx context.Context, p *probe, animMax time.Duration, since time.Time, drawn map[target.ID]bool) {
	t.mu.Lock()
	fcs := make(map[target.ID]context.Context, len(t.frameCtx))
	for id, fc := range t.frameCtx {
		if fc.Err() != nil {
			delete(t.frameCtx, id)
			continue
		}
		fcs[id] = fc
	}
	t.mu.Unlock()
	for id, fc := range fcs {
		raw, busy, err := evalInFrame[[]any](ctx, fc, time.Now().Add(time.Second), probeExpr(drawn[id], animMax, since))
		if busy {
			if settleTrace != nil {
				settleTrace("frame probe: no answer within a second (busy)")
			}
			p.pending++
			continue
		}
		if err != nil {
			continue
		}
		if settleTrace != nil {
			settleTrace("frame probe %v", raw)
		}
		fp := parseProbe(raw)
		if !drawn[id] && fp.last.After(since) {
			// Not quiet yet: this answer was read before the frame drew
			// its change; the next one waits for that.
			p.pending++
			drawn[id] = true
		}
		p.pending += fp.pending
		if fp.last.After(p.last) {
			p.last = fp.last
		}
		if fp.lateLoad.After(p.lateLoad) {
			p.lateLoad = fp.lateLoad
		}
		if fp.sent.After(p.sent) {
			p.sent = fp.sent
		}
		if fp.recv.After(p.recv) {
			p.recv = fp.recv
		}
		for u := range fp.bg {
			if p.bg == nil {
				p.bg = map[string]bool{}
			}
			p.bg[u] = true
		}
	}
}

// settle waits until the page shows the effect of an action whose dispatch
// began at since and ended now, at most limit. stop, when set, ends the
// wait early (a tab was opened). It reports the time spent and what ended
// the wait (action.Settled*).
func (t *tab) settle(ctx context.Context, since time.Time, limit, opTimeout time.Duration, stop func() bool) (time.Duration, string, error) {
	return t.settleShot(ctx, since, limit, opTimeout, stop, nil)
}

// earlyShot is an observation's screenshot and page read taken while
// settling (settleShot); the observation's capture uses it (takeEarly).
type earlyShot struct {
	png  []byte
	in   pageInfo
	took time.Duration // how long the screenshot and page read took
}

// earlyTook is how long the last settle's early shot took to take, 0
// when it took none (or it was used).
func (t *tab) earlyTook() time.Duration {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.early == nil {
		return 0
	}
	return t.early.took
}

// takeEarly returns the early shot of the last settle, once.
func (t *tab) takeEarly() *earlyShot {
	t.mu.Lock()
	defer t.mu.Unlock()
	s := t.early
	t.early = nil
	return s
}

// untouched reports a page on which nothing at all happened since the
// action began at since: it answered, is loaded, has nothing pending (no
// young timer or frame callback, no running scroll or finite animation, no
// unanswered message, no out-of-process frame that changed or is busy), no
// activity of any kind at or after since (its times are whole
// milliseconds), no navigation or request in flight nor any for netQuiet,
// and no late-injected document younger than lateQuiet.
func untouched(p probe, since, now time.Time, busy bool, sinceNet time.Duration) bool {
	return p.ok && p.ready == "complete" && p.pending == 0 && !p.undrawn &&
		p.last.UnixMilli() < since.UnixMilli() && !busy && sinceNet >= netQuiet &&
		(p.lateLoad.IsZero() || now.Sub(p.lateLoad) >= lateQuiet)
}

// settleShot is settle with, when shoot is set, an early observation for a
// page the action left untouched. A screenshot makes the page draw a frame
// (the page's own animation-frame callbacks, style, layout,
// IntersectionObserver and scroll updates, paint): when the first probe,
// taken at once without waiting for frames, finds the page untouched,
// shoot takes the observation's screenshot and page read, and a probe
// after it (once the tasks queued by that frame have run) must find the
// page still untouched and no new document or tab; the shot is then the
// observation (takeEarly) and the page counts as quiet. Otherwise the shot
// is dropped and the wait goes on as without shoot: a page that reacts to
// the action, at once or on the screenshot's frame, is observed only once
// the reaction has settled. This spares a quiet page the two frames and
// the idle window the wait would give it, and the page read and the
// screenshot are the ones the observation would have taken anyway.
func (t *tab) settleShot(ctx context.Context, since time.Time, limit, opTimeout time.Duration, stop func() bool, shoot func(ctx context.Context) (earlyShot, bool)) (time.Duration, string, error) {
	start := time.Now()
	deadline := start.Add(limit)
	docs := t.documentCount()
	t.mu.Lock()
	t.early = nil
	t.mu.Unlock()
	if settleTrace != nil {
		settleTrace("settle begins (%d documents so far)", docs)
	}
	frames := shoot == nil // the next probe waits for a drawn frame
	drawn := map[target.ID]bool{}
	defer func() {
		ids := make([]target.ID, 0, len(drawn))
		for id := range drawn {
			ids = append(ids, id)
		}
		t.mu.Lock()
		t.redrawn = ids
		t.mu.Unlock()
	}()
	for {
		if stop != nil && stop() {
			return time.Since(start), action.SettledNavigation, nil
		}
		p, err := t.probe(ctx, opTimeout, frames, limit, since, drawn)
		if err != nil {
			return time.Since(start), "", err
		}
		now := time.Now()
		busy, sinceNet := t.netState(since, p.bg)
		if shoot != nil {
			early, ok, err := t.tryEarly(ctx, p, since, now, busy, sinceNet, docs, limit, opTimeout, stop, drawn, shoot)
			shoot = nil
			if err != nil {
				return time.Since(start), "", err
			}
			if ok {
				t.mu.Lock()
				t.early = &early
				t.mu.Unlock()
				return time.Since(start), action.SettledQuiet, nil
			}
			frames = true
			continue
		}
		quiet := false
		if p.ok {
			calm := now.Sub(p.last) >= domQuiet
			if !p.last.After(start) {
				calm = now.Sub(start) >= idleQuiet
			}
			// Until a frame is drawn after the action, each probe waits for
			// one again.
			frames = p.undrawn && now.Sub(start) < frameWait
			quiet = !busy && p.pending == 0 && p.ready == "complete" && calm && sinceNet >= netQuiet &&
				(p.lateLoad.IsZero() || now.Sub(p.lateLoad) >= lateQuiet) && !frames
		} else {
			frames = true // a new document: wait for its frame again
		}
		if settleTrace != nil {
			settleTrace("busy=%v sinceNet=%v quiet=%v", busy, sinceNet, quiet)
		}
		if quiet {
			by := action.SettledQuiet
			if t.documentCount() != docs {
				by = action.SettledNavigation
			}
			return now.Sub(start), by, nil
		}
		if !now.Before(deadline) {
			return now.Sub(start), action.SettledCap, nil
		}
		wait := min(pollEvery, time.Until(deadline))
		select {
		case <-time.After(max(wait, 0)):
		case <-ctx.Done():
			return time.Since(start), "", ctx.Err()
		case <-t.crashedCh:
			return time.Since(start), "", errCrashed
		}
	}
}

// tryEarly takes the early observation of settleShot when the first
// probe p found the page untouched, and keeps it when the probe after it
// finds the page still untouched.
func (t *tab) tryEarly(ctx context.Context, p probe, since, now time.Time, busy bool, sinceNet time.Duration, docs int,
	limit, opTimeout time.Duration, stop func() bool, drawn map[target.ID]bool, shoot func(ctx context.Context) (earlyShot, bool)) (earlyShot, bool, error) {
	still := func() bool { return t.documentCount() == docs && (stop == nil || !stop()) }
	if !untouched(p, since, now, busy, sinceNet) || !still() {
		return earlyShot{}, false, nil
	}
	shotStart := time.Now()
	shot, ok := shoot(ctx)
	shot.took = time.Since(shotStart)
	if !ok {
		return earlyShot{}, false, nil
	}
	p, err := t.probeAfter(ctx, opTimeout, waitTasks, limit, since, drawn)
	if err != nil {
		return earlyShot{}, false, err
	}
	busy, sinceNet = t.netState(since, p.bg)
	ok = untouched(p, since, time.Now(), busy, sinceNet) && still()
	if settleTrace != nil {
		settleTrace("early shot kept=%v", ok)
	}
	return shot, ok, nil
}

func (t *tab) documentCount() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.documents
}

// frameDrawTicks is how many animation frames of each out-of-process frame
// that changed the observation waits for, at most frameDrawWait.
const (
	frameDrawTicks = 4
	frameDrawWait  = 3 * time.Second
)

// confirmedShot is the observation's screenshot. A screenshot makes only
// the top-level page draw: an out-of-process (cross-site) frame rasterizes,
// draws and hands its picture over on its own, and the screenshot shows
// the last picture it handed over, which can be older than what its main
// thread drew. Measured on two idle cores: a frame whose change is
// expensive to rasterize (60 full-frame blurred layers) handed it over 0.9
// to 1.1 s after the step had settled (its two animation frames had come),
// so every observation of it was stale; a plain text change lagged the
// same way on a loaded machine. Such a frame's animation frames are held
// back until its compositor has drawn what was committed (the first came
// 0.6 to 1 s after the step settled, the next ones 0.3 s later), so when
// the last settle saw such frames change, the screenshot first waits for
// frameDrawTicks of each one's animation frames, at most frameDrawWait
// (60 layers: within 2 s in every idle run, and the observation then
// matched the page 1.5 s later; 4 layers, the corpus's case: 0.1 to 0.25
// s idle, where without the wait it was stale 4 times in 4). A frame that
// is not on the screen (display:none, scrolled out of sight) draws none
// and is not waited for, nor are frames that did not change.
func (t *tab) confirmedShot(ctx context.Context, d time.Duration) ([]byte, error) {
	t.mu.Lock()
	ids := t.redrawn
	t.mu.Unlock()
	if len(ids) > 0 {
		start := time.Now()
		t.frameTicks(ctx, ids)
		if settleTrace != nil {
			settleTrace("out-of-process frames drew in %v", time.Since(start))
		}
	}
	return t.screenshot(ctx, d)
}

// frameTicks waits for frameDrawTicks animation frames in each of the
// frames ids, at most frameDrawWait in all; a frame that is gone, busy or
// without the settle recorder is not waited for.
func (t *tab) frameTicks(ctx context.Context, ids []target.ID) {
	t.mu.Lock()
	fcs := make([]context.Context, 0, len(ids))
	for _, id := range ids {
		if fc := t.frameCtx[id]; fc != nil && fc.Err() == nil {
			fcs = append(fcs, fc)
		}
	}
	t.mu.Unlock()
	end := time.Now().Add(frameDrawWait + 500*time.Millisecond)
	for _, fc := range fcs {
		how, _, err := evalInFrame[any](ctx, fc, end, ticksExpr)
		if settleTrace != nil {
			settleTrace("frame ticks: %v %v", how, err)
		}
	}
}

// ticksExpr asks a frame's settle recorder to wait for frameDrawTicks of
// its animation frames, at most frameDrawWait.
var ticksExpr = fmt.Sprintf(`(() => { const st = window[Symbol.for('waymark.settle')]; return st && st.ticks ? st.ticks(%d, %d) : 0; })()`,
	frameDrawTicks, frameDrawWait.Milliseconds())

// evalInFrame evaluates expr, awaiting its promise, in an out-of-process
// frame's session fc until deadline; ctx ending ends it too. busy reports
// that the frame did not answer by the deadline although it and ctx are
// still there.
func evalInFrame[T any](ctx, fc context.Context, deadline time.Time, expr string) (v T, busy bool, err error) {
	c, cancel := context.WithDeadline(fc, deadline)
	defer cancel()
	stop := context.AfterFunc(ctx, cancel)
	defer stop()
	v, err = chromedp.Run(c, chromedp.Evaluate[T](expr, chromedp.EvalAwaitPromise))
	busy = errors.Is(c.Err(), context.DeadlineExceeded) && fc.Err() == nil && ctx.Err() == nil
	return v, busy, err
}
