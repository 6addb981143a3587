// Package engine is the step engine's contract: one episode at a time, typed
// actions in, observations out. Implementations live in sub-packages: the
// local browser (engine/browser: Chromium on a private Xvfb display or
// headless) and the OpenEnv client (engine/openenv). This package imports no
// browser code, so the store and the UI can depend on it cheaply.
package engine

import (
	"context"
	"time"

	"waymark/engine/action"
	"waymark/engine/har"
	"waymark/engine/redact"
)

// Re-exported so callers can write engine.Action and engine.Observation.
type (
	Action      = action.Action
	Observation = action.Observation
)

// Engine runs one episode at a time.
type Engine interface {
	// Reset closes any episode in progress, opens opts.StartURL in a fresh
	// browser profile and returns the first observation (Step 0).
	Reset(ctx context.Context, opts ResetOptions) (Observation, error)
	// Step performs one action and returns the observation after it. Invalid
	// actions return an *action.ValidationError and change nothing.
	Step(ctx context.Context, a Action) (Observation, error)
	// State reports the episode's id and step count.
	State() State
	// Info describes the engine for the episode record.
	Info() Info
	// Close ends the episode and releases every resource (browser, display,
	// profile). It is safe to call more than once.
	Close() error
}

// LiveFrames is implemented by engines that stream the page as it changes.
// The channel holds at most the newest frame: a slow reader never stalls the
// engine. It is closed when the engine closes.
type LiveFrames interface {
	Frames() <-chan Frame
}

// Observer is implemented by engines that can observe the page again
// without performing an action (BrowserGym's empty action): the page is
// settled and observed as after a step, and the step count stays. An
// episode that is over is refused as Step refuses it.
type Observer interface {
	Observe(ctx context.Context) (Observation, error)
}

// NetworkCapture is implemented by engines that record the episode's
// network traffic as HAR entries (Settings.HAR). TakeHAR drains the entries
// complete so far, each with the engine's step index in Step; with final
// (the episode ends) it waits briefly for bodies being read and hands over
// the requests still unanswered too.
type NetworkCapture interface {
	TakeHAR(final bool) har.Capture
}

// Unwrapper is implemented by an engine that wraps another one and passes
// every call it does not change straight to it (e.g. one that only keeps
// Close from reaching the engine). Unwrap returns that engine, so the
// optional interfaces it implements (NetworkCapture, LiveFrames, Observer,
// …) are found through the wrapper with As. A wrapper that changes what a
// capability does (a recorder that stores each step) must not implement
// Unwrapper: it implements the capabilities it keeps itself.
type Unwrapper interface {
	Unwrap() Engine
}

// As returns the first engine of e's Unwrap chain (e itself first) that
// implements T, as T. Code that checks an engine for an optional
// interface uses As rather than a type assertion, so a transparent
// wrapper hides nothing.
func As[T any](e Engine) (T, bool) {
	for seen := 0; e != nil && seen < 64; seen++ {
		if t, ok := e.(T); ok {
			return t, true
		}
		u, ok := e.(Unwrapper)
		if !ok {
			break
		}
		e = u.Unwrap()
	}
	var zero T
	return zero, false
}

// Frame is one live picture of the viewport (JPEG from the screencast).
type Frame struct {
	JPEG []byte
	// Width and Height of the viewport in CSS pixels the frame shows.
	Width, Height int
	At            time.Time
	Seq           uint64
}

// ResetOptions start an episode.
type ResetOptions struct {
	StartURL  string
	EpisodeID string // generated when empty
	// Seed seeds the page's Math.random, crypto.getRandomValues and
	// crypto.randomUUID when the episode is replayed from an archive (the
	// same seed gives the same numbers in the same order); otherwise it is
	// accepted and ignored, as the reference does.
	Seed *int64
	// Check, when set, is run at the end of the episode; its result becomes
	// the final observation's Reward.
	Check *action.Check
	// ReferenceTime, when set, is the instant the page's JavaScript clock
	// (Date) shows at reset; it then advances in real time.
	ReferenceTime *time.Time
	// Timezone is an IANA time zone name (e.g. "Europe/Berlin") the page
	// sees; empty keeps the browser's.
	Timezone string
	// Locale is a BCP 47 language tag (e.g. "de-DE") for the page's Intl,
	// navigator.language and Accept-Language; empty keeps the browser's.
	Locale string
	// Validate, when set, is the task's in-page validate script, run at the
	// end of the episode (and after every step when EachStep); its result
	// is the observation's Validation and its reward joins Check's in
	// Reward (see action.CombineReward).
	Validate *action.Validator
	// Archive, when set, serves every request of the episode from a
	// recording instead of the network (archive.go): a request it cannot
	// answer is refused, and counted in the step's OffArchive.
	Archive Archive
	// ArchiveFallback lets the requests the archive cannot answer through
	// to the live network (each still counted in OffArchive).
	ArchiveFallback bool
	// Redact, when RedactSet, is the episode's redaction policy instead of
	// the engine's Settings.Redact (nil: none); a task may carry its own.
	Redact    *redact.Policy
	RedactSet bool
}

// State is the OpenEnv state of an episode.
type State struct {
	EpisodeID string `json:"episode_id"`
	StepCount int    `json:"step_count"`
	Done      bool   `json:"-"`
	MaxSteps  int    `json:"-"`
}

// Info describes an engine.
type Info struct {
	Kind      string     `json:"kind"`              // "local" or "openenv"
	Display   string     `json:"display,omitempty"` // "xvfb" or "headless"
	Browser   string     `json:"browser,omitempty"` // e.g. "Chromium 156.0.8078.73"
	Server    string     `json:"server,omitempty"`  // OpenEnv server URL
	ActionSet action.Set `json:"action_set"`
	MaxSteps  int        `json:"max_steps"`
	// Redaction is the redaction policy the engine applies at capture
	// (nil: none), stored with each episode it records.
	Redaction *redact.Policy `json:"redaction,omitempty"`
}
