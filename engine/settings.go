package engine

import (
	"errors"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"time"

	"waymark/engine/action"
	"waymark/engine/redact"
)

// Display modes of the local browser.
const (
	DisplayAuto     = ""         // Xvfb when installed, else headless
	DisplayXvfb     = "xvfb"     // Chromium with a window on a private Xvfb display
	DisplayHeadless = "headless" // Chromium's headless mode
)

// Settings are an engine's episode limits and waits. The zero value is not
// useful; start from DefaultSettings or SettingsFromEnv.
type Settings struct {
	// MaxSteps ends an episode: the MaxSteps-th step returns done (1–200).
	MaxSteps int
	// ActionWait caps how long the engine waits for the page to settle after
	// an action or a reset (0–10 s). It is a cap, not a sleep: the engine
	// observes as soon as the page is quiet.
	ActionWait time.Duration
	// ExplicitWait is how long a "wait" action waits (0–10 s).
	ExplicitWait time.Duration
	// Display is DisplayAuto, DisplayXvfb or DisplayHeadless.
	Display string
	// ActionSet is the vocabulary the engine accepts; others are refused.
	ActionSet action.Set
	// PageLoadTimeout bounds a navigation (reset, goto); past it the
	// observation carries page_load_timeout and the episode goes on.
	PageLoadTimeout time.Duration
	// OpTimeout bounds every other browser operation (input, script,
	// screenshot) on an idle machine; on a busy one it is stretched in
	// proportion to the runnable tasks per CPU (at most 4 times), but
	// never past the step's bound (StepBound). Past it the episode ends
	// with renderer_timeout.
	OpTimeout time.Duration
	// RecoverObservation (opt-in): an observation with no visible content
	// (a page that has not painted its body yet) is read again, after
	// DOMContentLoaded, at most 3 times within OpTimeout; the action is
	// never repeated. A page still blank ends the episode with
	// blank_observation and steps are refused until the next reset, so a
	// genuinely blank page is rejected in this mode.
	RecoverObservation bool
	// Grounding adds element grounding to every step (bids, the action's
	// target, BrowserGym's observation extras); off by default.
	Grounding Grounding
	// HAR (off by default; the app turns it on when recording) records
	// every request of the episode as HAR entries (engine.NetworkCapture):
	// text response bodies up to HARBodyCap each and HAREpisodeCap in all
	// (0: 1 MiB and 64 MiB), secrets redacted unless HARNoRedact.
	// HARRedactHeaders and HARRedactKeys (comma-separated) add header
	// names and field-name parts to the redacted ones.
	HAR                             bool
	HARBodyCap, HAREpisodeCap       int64
	HARNoRedact                     bool
	HARRedactHeaders, HARRedactKeys string
	// Redact, when set, is the redaction policy applied at capture: what
	// it calls personal is blacked out of every screenshot and replaced in
	// the tree, the snapshot and the network capture (engine/redact).
	Redact *redact.Policy
}

// StepEndSlack is the part of a step's bound kept for ending an episode
// whose page stopped answering (reading its address from the browser).
const StepEndSlack = 2 * time.Second

// StepBound is what bounds a step with action a: Step returns within it,
// counted from when the engine takes the step up. It is the action's own
// time (OpTimeout; a goto PageLoadTimeout, a wait ExplicitWait, typed text
// 5 ms more per character), then ActionWait for the page to settle,
// OpTimeout for the observation (twice with RecoverObservation) and
// StepEndSlack. With the defaults: 23.5 s, a goto 43.5 s. Each operation
// on the page gets OpTimeout, more on a busy machine, but none runs past
// the bound less StepEndSlack: one still unanswered then (a page that
// loops for ever, a browser that stopped) ends the episode with
// renderer_timeout.
func (s Settings) StepBound(a action.Action) time.Duration {
	first := s.OpTimeout
	switch a.Op {
	case action.Goto:
		first = s.PageLoadTimeout
	case action.Wait:
		first = s.ExplicitWait
	case action.Finish:
		first = 0
	case action.Type, action.InsertText, action.SetValue:
		first += time.Duration(len([]rune(a.Text))) * 5 * time.Millisecond
	}
	observe := s.OpTimeout
	if s.RecoverObservation {
		observe *= 2
	}
	return first + s.ActionWait + observe + StepEndSlack
}

// Defaults, as the reference environment's.
const (
	DefaultMaxSteps        = 20
	DefaultActionWait      = 1500 * time.Millisecond
	DefaultExplicitWait    = 3 * time.Second
	DefaultPageLoadTimeout = 30 * time.Second
	DefaultOpTimeout       = 10 * time.Second
	MaxMaxSteps            = 200
	MaxWait                = 10 * time.Second
)

// Environment variables read by SettingsFromEnv.
const (
	EnvMaxSteps     = "BROWSER_MAX_STEPS"
	EnvActionWait   = "BROWSER_ACTION_WAIT_SECONDS"
	EnvExplicitWait = "BROWSER_EXPLICIT_WAIT_SECONDS"
	EnvDisplay      = "WAYMARK_DISPLAY"
	// EnvHARBodyCap and EnvHAREpisodeCap are the network capture's caps on
	// response bodies kept (HAR and replay archive): per body, and per
	// episode, in bytes with an optional K, M or G (binary) suffix.
	EnvHARBodyCap    = "WAYMARK_HAR_BODY_CAP"
	EnvHAREpisodeCap = "WAYMARK_HAR_EPISODE_CAP"
)

// ParseBytes reads a size: "1048576", "512K", "8M", "1G" (binary units).
func ParseBytes(v string) (int64, error) {
	v = strings.TrimSpace(v)
	mult := int64(1)
	if n := len(v); n > 0 {
		switch strings.ToUpper(v[n-1:]) {
		case "K":
			mult, v = 1<<10, v[:n-1]
		case "M":
			mult, v = 1<<20, v[:n-1]
		case "G":
			mult, v = 1<<30, v[:n-1]
		}
	}
	n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
	if err != nil || n < 1 || n > (1<<40)/mult {
		return 0, errors.New("must be a size in bytes from 1 to 1T, e.g. 1048576, 512K, 8M or 1G")
	}
	return n * mult, nil
}

// DefaultSettings returns the reference's defaults with the default action
// set and automatic display choice.
func DefaultSettings() Settings {
	return Settings{
		MaxSteps:        DefaultMaxSteps,
		ActionWait:      DefaultActionWait,
		ExplicitWait:    DefaultExplicitWait,
		Display:         DisplayAuto,
		ActionSet:       action.SetDefault,
		PageLoadTimeout: DefaultPageLoadTimeout,
		OpTimeout:       DefaultOpTimeout,
	}
}

// SettingsFromEnv reads BROWSER_MAX_STEPS (1–200, default 20),
// BROWSER_ACTION_WAIT_SECONDS (0–10, default 1.5),
// BROWSER_EXPLICIT_WAIT_SECONDS (0–10, default 3) and WAYMARK_DISPLAY
// (xvfb or headless) over DefaultSettings. An unset or empty variable keeps
// the default; a bad value is an error naming the variable and what it
// accepts.
func SettingsFromEnv() (Settings, error) {
	return settingsFrom(os.Getenv)
}

func settingsFrom(getenv func(string) string) (Settings, error) {
	s := DefaultSettings()
	var errs []error
	if v := strings.TrimSpace(getenv(EnvMaxSteps)); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > MaxMaxSteps {
			errs = append(errs, fmt.Errorf("%s must be an integer from 1 to %d, got %q", EnvMaxSteps, MaxMaxSteps, v))
		} else {
			s.MaxSteps = n
		}
	}
	seconds := func(name string, dst *time.Duration) {
		v := strings.TrimSpace(getenv(name))
		if v == "" {
			return
		}
		d, err := ParseWaitSeconds(v)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s %v", name, err))
			return
		}
		*dst = d
	}
	seconds(EnvActionWait, &s.ActionWait)
	seconds(EnvExplicitWait, &s.ExplicitWait)
	for name, dst := range map[string]*int64{EnvHARBodyCap: &s.HARBodyCap, EnvHAREpisodeCap: &s.HAREpisodeCap} {
		if v := strings.TrimSpace(getenv(name)); v != "" {
			n, err := ParseBytes(v)
			if err != nil {
				errs = append(errs, fmt.Errorf("%s %v, got %q", name, err, v))
			} else {
				*dst = n
			}
		}
	}
	if v := strings.TrimSpace(getenv(EnvDisplay)); v != "" {
		d, err := ParseDisplay(v)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %v", EnvDisplay, err))
		} else {
			s.Display = d
		}
	}
	if err := errors.Join(errs...); err != nil {
		return DefaultSettings(), err
	}
	return s, nil
}

// ParseWaitSeconds reads a number of seconds from 0 to 10 ("1.5", "0", "3").
func ParseWaitSeconds(v string) (time.Duration, error) {
	f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) || f < 0 || f > MaxWait.Seconds() {
		return 0, fmt.Errorf("must be a number of seconds from 0 to %g, got %q", MaxWait.Seconds(), v)
	}
	return time.Duration(f * float64(time.Second)), nil
}

// ParseDisplay reads a display mode: "xvfb", "headless", or "" / "auto".
func ParseDisplay(v string) (string, error) {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "", "auto":
		return DisplayAuto, nil
	case DisplayXvfb:
		return DisplayXvfb, nil
	case DisplayHeadless:
		return DisplayHeadless, nil
	}
	return "", fmt.Errorf("unknown display %q: use \"xvfb\" or \"headless\"", v)
}

// Validate checks the ranges and fills zero timeouts and set with defaults.
func (s *Settings) Validate() error {
	var errs []error
	if s.MaxSteps < 1 || s.MaxSteps > MaxMaxSteps {
		errs = append(errs, fmt.Errorf("max steps must be from 1 to %d, got %d", MaxMaxSteps, s.MaxSteps))
	}
	if s.ActionWait < 0 || s.ActionWait > MaxWait {
		errs = append(errs, fmt.Errorf("action wait must be from 0 to 10 s, got %v", s.ActionWait))
	}
	if s.ExplicitWait < 0 || s.ExplicitWait > MaxWait {
		errs = append(errs, fmt.Errorf("explicit wait must be from 0 to 10 s, got %v", s.ExplicitWait))
	}
	if _, err := ParseDisplay(s.Display); err != nil {
		errs = append(errs, err)
	}
	if s.ActionSet == "" {
		s.ActionSet = action.SetDefault
	} else if _, err := action.ParseSet(string(s.ActionSet)); err != nil {
		errs = append(errs, err)
	}
	if s.PageLoadTimeout <= 0 {
		s.PageLoadTimeout = DefaultPageLoadTimeout
	}
	if s.OpTimeout <= 0 {
		s.OpTimeout = DefaultOpTimeout
	}
	if _, err := ParseGrounding(string(s.Grounding)); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}
