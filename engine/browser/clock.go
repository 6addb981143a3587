package browser

import (
	"context"
	_ "embed"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
	_ "time/tzdata" // the same time zone names on every machine

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"waymark/engine"
)

// clockScript shifts the page's Date (see clock.js); __OFFSET__ is replaced
// by the shift in milliseconds.
//
//go:embed clock.js
var clockScript string

// pageEnv is what an episode's reset options ask of every page: a shifted
// clock, a time zone and a locale. The zero value changes nothing.
type pageEnv struct {
	// offsetMS is added to the real time: the reference instant minus the
	// real time at reset. clock tells whether it is in use.
	offsetMS int64
	clock    bool
	timezone string
	locale   string
	// replay is the determinism script of a replay from an archive
	// (archiveserve.go), "" when live.
	replay string
	// redact installs the personal-data finder (redact.go) in every
	// document: an episode under a redaction policy.
	redact bool
}

// localeTag is the shape of a BCP 47 language tag.
var localeTag = regexp.MustCompile(`^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$`)

// checkEnv refuses a time zone or locale the browser would refuse, before
// any tab is opened (a refused override is no reason to restart Chromium).
func checkEnv(opts engine.ResetOptions) error {
	if tz := opts.Timezone; tz != "" {
		if _, err := time.LoadLocation(tz); err != nil || tz == "Local" {
			return fmt.Errorf("the time zone %q is not an IANA time zone name (e.g. Europe/Berlin)", tz)
		}
	}
	if l := opts.Locale; l != "" && !localeTag.MatchString(l) {
		return fmt.Errorf("the locale %q is not a BCP 47 language tag (e.g. de-DE)", l)
	}
	return nil
}

// envOf reads the reset options; the clock starts at ReferenceTime now.
func envOf(opts engine.ResetOptions, now time.Time) pageEnv {
	env := pageEnv{timezone: opts.Timezone, locale: opts.Locale}
	if opts.ReferenceTime != nil {
		env.clock = true
		env.offsetMS = opts.ReferenceTime.Sub(now).Milliseconds()
	}
	return env
}

// script is the page script with the clock, when one is set: after the
// settle recorder, which keeps the real clock.
func (env pageEnv) script() string {
	s := pageScript
	if env.clock {
		s += ";\n" + strings.Replace(clockScript, "__OFFSET__", strconv.FormatInt(env.offsetMS, 10), 1)
	}
	if env.replay != "" {
		s += ";\n" + env.replay
	}
	if env.redact {
		s += ";\n" + redactInstall
	}
	return s
}

// apply sets the time zone and the locale (Intl, navigator.language and the
// Accept-Language header) in the target of ctx.
func (env pageEnv) apply(ctx context.Context) error {
	if env.timezone != "" {
		if _, err := chromedp.Call(ctx, emulation.SetTimezoneOverride, emulation.SetTimezoneOverrideParams{TimezoneID: env.timezone}); err != nil {
			return err
		}
	}
	if env.locale != "" {
		// A tab the page opened inherits its opener's locale override.
		if _, err := chromedp.Call(ctx, emulation.SetLocaleOverride, emulation.SetLocaleOverrideParams{Locale: env.locale}); err != nil &&
			!strings.Contains(err.Error(), "already in effect") {
			return err
		}
		v, err := chromedp.CallBrowser(ctx, browser.GetVersion, cdp.Empty{})
		if err != nil {
			return err
		}
		// Chromium adds the base language ("de-DE,de;q=0.9").
		if _, err := chromedp.Call(ctx, emulation.SetUserAgentOverride, emulation.SetUserAgentOverrideParams{
			UserAgent: v.UserAgent, AcceptLanguage: env.locale,
		}); err != nil {
			return err
		}
	}
	return nil
}

// openPendingExpr reads the address a tab opened by window.open is waiting
// to load (see clock.js); "" when none.
const openPendingExpr = `(() => { try { return String(window.__waymarkOpenURL || ''); } catch (e) { return ''; } })()`

// loadPending loads the address a new tab waits for: the page opened it at
// about:blank so that its first document gets the clock.
func (e *Engine) loadPending(ctx context.Context, t *tab) {
	if !t.env.clock {
		return
	}
	var u string
	err := t.do(ctx, e.set.OpTimeout, func(ctx context.Context) error {
		var err error
		u, err = chromedp.Run(ctx, chromedp.Evaluate[string](openPendingExpr))
		return err
	})
	if err != nil || u == "" {
		return
	}
	if code, err := e.navigate(ctx, t, u); err != nil || code != "" {
		e.logf("browser: the new tab could not load %s: %s %v", u, code, err)
	}
}
