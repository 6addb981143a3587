package browser

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"

	"waymark/engine"
	"waymark/engine/action"
)

// Step performs one action and returns the observation after it. An
// invalid action returns an *action.ValidationError and changes nothing; a
// step with no episode running, or after it is done, returns
// engine.ErrResetBeforeStepping.
func (e *Engine) Step(ctx context.Context, a action.Action) (action.Observation, error) {
	if err := a.Validate(e.set.ActionSet); err != nil {
		return action.Observation{}, err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	ep, err := e.running()
	if err != nil {
		return action.Observation{}, err
	}
	begin := time.Now()
	ctx = withStepBound(ctx, begin, e.set.StepBound(a)) // stepbound.go
	e.setState(func(s *engine.State) { s.StepCount++ })
	e.netCap.Load().setStep(e.state.StepCount)
	ep.serve.setStep(e.state.StepCount)
	obs := action.Observation{Step: e.state.StepCount}
	t := ep.tab
	op := e.set.OpTimeout
	x, y := func() (float64, float64) {
		if a.X == nil || a.Y == nil {
			return ep.px, ep.py
		}
		return float64(*a.X), float64(*a.Y)
	}()
	obs.Target = e.readTarget(ctx, ep, a, x, y) // grounding.go: nil when off

	settle := true
	gym := false
	if e.set.ActionSet == action.SetBrowserGym {
		gym, err = e.gymStep(ctx, ep, a, x, y, &obs.Redacted) // gymops.go
	}
	todo := a.Op
	if gym {
		todo = "" // performed
	}
	switch todo {
	case action.Click, action.DoubleClick:
		n := 1
		if a.Op == action.DoubleClick {
			n = 2
		}
		err = t.do(ctx, op, func(c context.Context) error { return click(c, x, y, n) })
		ep.px, ep.py = x, y
	case action.Move:
		err = t.do(ctx, op, func(c context.Context) error {
			return mouse(c, input.DispatchMouseEventTypeMouseMoved, x, y, input.MouseButtonNone, 0, 0)
		})
		ep.px, ep.py = x, y
	case action.Drag:
		x2, y2 := float64(*a.X2), float64(*a.Y2)
		err = t.do(ctx, op, func(c context.Context) error { return drag(c, x, y, x2, y2) })
		ep.px, ep.py = x2, y2
	case action.Type:
		d := op + time.Duration(len([]rune(a.Text)))*5*time.Millisecond
		err = t.do(ctx, d, func(c context.Context) error { return e.typeGuarded(c, a.Text, &obs.Redacted) })
	case action.Key:
		err = t.do(ctx, op, func(c context.Context) error { return pressKey(c, a.Text) })
	case action.Scroll:
		err = t.do(ctx, op, func(c context.Context) error { return wheel(c, ep.px, ep.py, a.DY) })
	case action.Back:
		err = e.back(ctx, t)
	case action.Goto:
		var code action.Code
		code, err = e.navigate(ctx, t, a.URL)
		obs.Error = code
	case action.Wait:
		settle = false
		select {
		case <-time.After(e.set.ExplicitWait):
		case <-ctx.Done():
			err = ctx.Err()
		case <-t.crashedCh:
			err = errCrashed
		}
	case action.Finish:
		settle = false
		ep.done, ep.endedBy, ep.answer = true, action.EndFinished, a.Text
	}
	obs.Timings.ActionMS = time.Since(begin).Milliseconds()
	if err != nil && isFatal(err) {
		e.logf("browser: step %d: the action %s failed after %d ms: %v", obs.Step, a.Op, obs.Timings.ActionMS, err)
	}

	if err != nil && !isFatal(err) {
		// The action failed but the page is fine: say why, go on.
		obs.Error = shortError(err)
		err = nil
	}
	var shotTook time.Duration
	if err == nil && settle {
		settleStart := time.Now()
		limit := e.set.ActionWait
		early := e.redactPolicy() == nil && a.Op != action.Scroll
		obs.Timings.SettledBy, err = e.settleEarly(ctx, ep, begin, limit, early)
		// An early shot's time is the capture's, not the wait's.
		shotTook = ep.tab.earlyTook()
		obs.Timings.SettleMS = (time.Since(settleStart) - shotTook).Milliseconds()
		if err != nil {
			e.logf("browser: step %d: settling after %s failed after %d ms: %v", obs.Step, a.Op, obs.Timings.SettleMS, err)
		}
	}
	if ep.tab.gone() {
		// The page closed its tab: go on in the newest tab still open, as
		// a browser shows the tab behind.
		if err = e.fallBack(ctx, ep, begin); err != nil {
			e.logf("browser: %v", err)
		}
	}
	if !ep.done && e.state.StepCount >= e.set.MaxSteps {
		ep.done, ep.endedBy = true, action.EndStepLimit
	}
	e.finishObservation(ctx, &obs, err, begin)
	obs.Timings.CaptureMS += shotTook.Milliseconds()
	e.groundStep(ep, &obs, &a)
	return obs, e.remoteGone() // remote.go: nil for a local browser
}

// settleAndFollow settles the active tab and follows a tab the action
// opened, settling that one too, all within limit. It reports what ended
// the wait.
func (e *Engine) settleAndFollow(ctx context.Context, ep *episode, since time.Time, limit time.Duration) (string, error) {
	return e.settleEarly(ctx, ep, since, limit, false)
}

// settleEarly is settleAndFollow where, with early, a page the action left
// untouched is observed at once (settleShot: the screenshot and page read
// are taken while settling; Step counts their time as the capture's).
func (e *Engine) settleEarly(ctx context.Context, ep *episode, since time.Time, limit time.Duration, early bool) (string, error) {
	start := time.Now()
	opened := func() bool { return len(ep.newTabs) > 0 }
	var shoot func(ctx context.Context) (earlyShot, bool)
	if early {
		t := ep.tab
		shoot = func(ctx context.Context) (earlyShot, bool) {
			png, in, shotErr, infErr := e.capture(ctx, t)
			return earlyShot{png: png, in: in}, shotErr == nil && infErr == nil && in.content && len(png) > 0
		}
	}
	_, by, err := ep.tab.settleShot(ctx, since, limit, e.set.OpTimeout, opened, shoot)
	if err != nil {
		return "", err
	}
	var id target.ID
	for {
		select {
		case nid := <-ep.newTabs:
			id = nid
			continue
		default:
		}
		break
	}
	if id == "" {
		return by, nil
	}
	nt, err := e.attachTab(ctx, ep, id)
	if err != nil {
		e.logf("browser: could not follow the new tab: %v", err)
		return by, nil
	}
	ep.tab = nt
	rest := max(limit-time.Since(start), 0)
	_, by, err = nt.settle(ctx, since.Add(-time.Hour), rest, e.set.OpTimeout, nil)
	if by == action.SettledQuiet {
		by = action.SettledNavigation
	}
	return by, err
}

// fallBack makes the newest open tab the active one after the active tab
// closed; with none left the episode ends.
func (e *Engine) fallBack(ctx context.Context, ep *episode, since time.Time) error {
	var live *tab
	for i := len(ep.order) - 1; i >= 0; i-- {
		if !ep.order[i].gone() {
			live = ep.order[i]
			break
		}
	}
	if live == nil {
		return errors.New("the page closed its last tab")
	}
	ep.tab = live
	err := live.do(ctx, e.set.OpTimeout, func(c context.Context) error {
		_, err := chromedp.Call(c, page.BringToFront, cdp.Empty{})
		return err
	})
	if err != nil {
		return err
	}
	_, _, err = live.settle(ctx, since, e.set.ActionWait, e.set.OpTimeout, nil)
	return err
}

// attachTab attaches to a tab the page opened and prepares it.
func (e *Engine) attachTab(ctx context.Context, ep *episode, id target.ID) (*tab, error) {
	nt := newTab()
	nt.id = id
	nt.env = ep.env
	nt.net = ep.tab.net
	nt.route, nt.serve = ep.tab.route, ep.serve
	tctx, cancel := chromedp.NewContext(ep.ctx, chromedp.WithTargetID(id), chromedp.WithListener(nt.listen))
	nt.ctx, nt.cancel = tctx, cancel
	actx, acancel := context.WithTimeout(ctx, e.set.OpTimeout)
	defer acancel()
	stop := context.AfterFunc(actx, cancel)
	err := chromedp.Do(tctx)
	if !stop() {
		return nil, actx.Err()
	}
	if err != nil {
		cancel()
		return nil, err
	}
	if err := nt.setup(ctx, e.set.OpTimeout); err != nil {
		cancel()
		return nil, err
	}
	if err := e.relayHosts(ctx, nt, true); err != nil { // remote browser: remotehosts.go
		cancel()
		return nil, err
	}
	e.loadPending(ctx, nt)
	ep.tabsMu.Lock()
	ep.tabs[id] = nt
	ep.tabsMu.Unlock()
	ep.order = append(ep.order, nt)
	if e.framesOn.Load() {
		e.startScreencast(nt)
	}
	return nt, nil
}

// back goes one entry back in the tab's history; at the first entry it
// does nothing, as a browser's back button.
func (e *Engine) back(ctx context.Context, t *tab) error {
	var hist page.GetNavigationHistoryResult
	err := t.do(ctx, e.set.OpTimeout, func(c context.Context) error {
		var err error
		hist, err = chromedp.Call(c, page.GetNavigationHistory, cdp.Empty{})
		return err
	})
	if err != nil {
		return err
	}
	i := int(hist.CurrentIndex)
	if i <= 0 || i >= len(hist.Entries) || (i == 1 && hist.Entries[0].URL == "about:blank") {
		return nil // nothing before this page (the new tab's blank entry does not count)
	}
	t.expectNavigation()
	err = t.do(ctx, e.set.OpTimeout, func(c context.Context) error {
		_, err := chromedp.Call(c, page.NavigateToHistoryEntry, page.NavigateToHistoryEntryParams{EntryID: hist.Entries[i-1].ID})
		return err
	})
	if err != nil {
		t.clearNavigation()
	}
	return err
}

// isFatal reports errors that end the episode.
func isFatal(err error) bool {
	return errors.Is(err, errCrashed) || errors.Is(err, errTimedOut) ||
		errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) ||
		errors.Is(err, chromedp.ErrTargetDetached) || errors.Is(err, chromedp.ErrChannelClosed)
}

// running is the episode a step or an observation works on, or the error
// they return: the engine is closed, the episode refuses a blank page, or
// none runs. The caller holds e.mu.
func (e *Engine) running() (*episode, error) {
	if e.closed {
		return nil, engine.ErrClosed
	}
	ep := e.ep
	if ep != nil && ep.done && ep.endedBy == action.EndBlankObservation {
		return nil, errBlankRefusal
	}
	if ep == nil || ep.done {
		return nil, engine.ErrResetBeforeStepping
	}
	return ep, nil
}

// shortError is the observation text of a failed action.
func shortError(err error) action.Code {
	s := err.Error()
	if i := strings.Index(s, "\n"); i > 0 {
		s = s[:i]
	}
	if len(s) > 200 {
		s = s[:200]
	}
	return action.Code(s)
}

// finishObservation fills URL, title, screenshot, error codes, done and the
// check's reward. fatal is an error that ends the episode.
func (e *Engine) finishObservation(ctx context.Context, obs *action.Observation, fatal error, begin time.Time) {
	ep := e.ep
	t := ep.tab
	capStart := time.Now()
	if fatal == nil {
		png, in, shotErr, infErr := e.captureObs(ctx, t, obs) // extras.go: e.capture when grounding is off
		blank := false
		if shotErr == nil && infErr == nil && !in.content {
			png, in, shotErr, infErr, blank = e.recoverObservation(ctx, t, png, in)
		}
		url, title, bot := in.url, in.title, in.bot
		e.lastState = in.state
		if strings.HasPrefix(url, "chrome-error://") && e.browserAlive() {
			// A network error page: report the address that failed, as the
			// address bar shows it.
			uctx, cancel := context.WithTimeout(e.browserCtx, 2*time.Second)
			if u := t.targetURL(uctx); u != "" {
				url = u
			}
			cancel()
		}
		obs.Screenshot, obs.URL, obs.Title = png, url, title
		obs.Redaction = t.takeRedaction() // redact.go
		if p := e.redactPolicy(); p != nil {
			obs.Title = p.Text(title, ep.personal)
		}
		switch {
		case errors.Is(shotErr, errCrashed) || errors.Is(infErr, errCrashed):
			fatal = errCrashed
		case shotErr != nil:
			fatal = shotErr
		case infErr != nil:
			if obs.Error == "" {
				obs.Error = action.ErrRendererTimeout
			}
		case blank:
			obs.Error = action.ErrBlankObservation
			ep.done, ep.endedBy = true, action.EndBlankObservation
		case bot:
			obs.Error = action.ErrBotVerification
			ep.done, ep.endedBy = true, action.EndBotVerification
		}
	}
	if fatal != nil {
		obs.Screenshot = nil
		switch {
		case errors.Is(fatal, errCrashed) || !e.browserAlive():
			obs.Error, ep.endedBy = action.ErrRendererCrashed, action.EndCrashed
		case errors.Is(fatal, context.Canceled) || (ctx.Err() != nil && errors.Is(fatal, ctx.Err())):
			obs.Error, ep.endedBy = "interrupted", action.EndInterrupted
		default:
			obs.Error, ep.endedBy = action.ErrRendererTimeout, action.EndTimeout
		}
		ep.done = true
		e.logf("browser: episode ended: %v", fatal)
		if obs.URL == "" && e.browserAlive() {
			uctx, cancel := context.WithTimeout(e.browserCtx, 2*time.Second)
			obs.URL = t.targetURL(uctx)
			cancel()
		}
		if obs.URL == "" {
			obs.URL = ep.lastURL
		}
	}
	if obs.URL != "" {
		ep.lastURL = obs.URL
	}
	e.validateStep(ctx, ep, obs, fatal == nil)
	if ep.done {
		e.setState(func(s *engine.State) { s.Done = true })
		obs.Done = true
		obs.EndReason = ep.endedBy
		obs.Answer = ep.answer
		obs.Reward = action.CombineReward(e.reward(ctx, ep, obs.URL, fatal == nil), obs.Validation)
	}
	obs.OffArchive = ep.serve.offArchive(obs.Step) // archiveserve.go: 0 when live
	obs.Timings.CaptureMS = time.Since(capStart).Milliseconds()
	obs.Timings.TotalMS = time.Since(begin).Milliseconds()
}

// reward runs the episode's automatic check: 1 when it passes, 0 when not,
// nil when the task has none.
func (e *Engine) reward(ctx context.Context, ep *episode, url string, pageOK bool) *float64 {
	c := ep.check
	if c == nil {
		return nil
	}
	ok := false
	switch c.Kind {
	case action.CheckKindAnswer:
		ok = c.MatchAnswer(ep.answer)
	case action.CheckKindURL:
		m, err := c.MatchURL(url)
		if err != nil {
			e.logf("browser: the task's URL check %q is not a valid pattern: %v", c.URL, err)
		}
		ok = m
	case action.CheckKindJS:
		if pageOK {
			expr := "Promise.resolve((" + c.JS + "\n)).then(v => !!v)"
			err := ep.tab.do(ctx, e.set.OpTimeout, func(c context.Context) error {
				var err error
				ok, err = chromedp.Run(c, chromedp.Evaluate[bool](expr, chromedp.EvalAwaitPromise))
				return err
			})
			if err != nil {
				e.logf("browser: the task's JS check failed: %v", err)
				ok = false
			}
		}
	default:
		e.logf("browser: unknown check kind %q", c.Kind)
	}
	r := 0.0
	if ok {
		r = 1
	}
	return &r
}

// Close ends the episode and stops Chromium and Xvfb; the profile folder is
// removed. It is safe to call more than once.
func (e *Engine) Close() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return nil
	}
	e.closed = true
	e.endEpisode()
	e.shutdownBrowser()
	e.setState(func(s *engine.State) { s.Done = true })
	e.framesMu.Lock()
	e.framesClosed = true
	close(e.frames)
	e.framesMu.Unlock()
	return nil
}
