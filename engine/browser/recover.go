package browser

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/chromedp/chromedp"

	"waymark/engine"
)

// Observation recovery (Settings.RecoverObservation, opt-in): an
// observation whose page shows no visible content (no visible text, no
// element with a box of at least 1×1 px; e.g. a document that has not
// received its body yet) is read again: the engine waits up to 10 s for
// DOMContentLoaded, lets the page settle and takes a fresh observation, at
// most recoverTries times, all within one OpTimeout. The action is never
// repeated and the episode never reset. When every read is blank the
// observation says blank_observation and the episode refuses further steps
// until the next Reset: the action may have run without a usable
// observation. With recovery off, or a page with content, nothing is added.

// recoverTries is how many fresh observations recovery takes at most.
const recoverTries = 3

// recoverDOMWait bounds each wait for DOMContentLoaded.
const recoverDOMWait = 10 * time.Second

// errBlankRefusal is Step's answer after a failed recovery.
var errBlankRefusal = fmt.Errorf("%w: the last observation showed no visible content after %d fresh reads (observation recovery is on); the action may have run, so the episode cannot go on",
	engine.ErrResetBeforeStepping, recoverTries)

// capture takes the screenshot and reads the page's info at the same time;
// when the last settle already took them (an early shot), it returns those.
func (e *Engine) capture(ctx context.Context, t *tab) (png []byte, in pageInfo, shotErr, infErr error) {
	if s := t.takeEarly(); s != nil {
		return s.png, s.in, nil, nil
	}
	var wg sync.WaitGroup
	wg.Go(func() { png, shotErr = t.confirmedShot(ctx, e.set.OpTimeout) })
	in, infErr = t.info(ctx, e.set.OpTimeout, e.stateExpr, e.set.RecoverObservation)
	wg.Wait()
	return png, in, shotErr, infErr
}

// recoverObservation re-reads a blank observation (see above). blank is
// true when it stayed blank; errors of the fresh reads are returned as
// capture's, for the caller to classify (a timeout or a crash propagates
// at once).
func (e *Engine) recoverObservation(ctx context.Context, t *tab, png []byte, in pageInfo) ([]byte, pageInfo, error, error, bool) {
	deadline := time.Now().Add(e.set.OpTimeout)
	for try := 1; try <= recoverTries; try++ {
		rest := time.Until(deadline)
		if rest <= 0 {
			break
		}
		e.logf("browser: blank observation of %s; fresh read %d of %d", in.url, try, recoverTries)
		if err := t.waitDOMContentLoaded(ctx, min(recoverDOMWait, rest)); err != nil {
			if errors.Is(err, errTimedOut) {
				return png, in, nil, nil, true // still loading: no usable observation
			}
			return png, in, nil, err, false
		}
		if rest = time.Until(deadline); rest > 0 {
			if _, _, err := t.settle(ctx, time.Now(), min(e.set.ActionWait, rest), e.set.OpTimeout, nil); err != nil {
				return png, in, nil, err, false
			}
		}
		var shotErr, infErr error
		png, in, shotErr, infErr = e.observeShot(ctx, t)
		if shotErr != nil || infErr != nil {
			return png, in, shotErr, infErr, false
		}
		if in.content {
			return png, in, nil, nil, false
		}
	}
	return png, in, nil, nil, true
}

// waitDOMContentLoaded waits until the main document is past "loading", at
// most d; past d it reports a renderer timeout.
func (t *tab) waitDOMContentLoaded(ctx context.Context, d time.Duration) error {
	end := time.Now().Add(d)
	for {
		var ready string
		err := t.do(ctx, max(time.Until(end), time.Millisecond), func(c context.Context) error {
			var err error
			ready, err = chromedp.Run(c, chromedp.Evaluate[string](`document.readyState`))
			return err
		})
		if err == nil && ready != "loading" {
			return nil
		}
		if err != nil && (isFatal(err) || t.gone()) {
			return err
		}
		if !time.Now().Before(end) {
			return errTimedOut
		}
		select {
		case <-time.After(50 * time.Millisecond):
		case <-ctx.Done():
			return ctx.Err()
		case <-t.crashedCh:
			return errCrashed
		}
	}
}
