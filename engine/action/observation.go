package action

// Timings of one step, in milliseconds.
type Timings struct {
	ActionMS  int64 `json:"action_ms"`
	SettleMS  int64 `json:"settle_ms"`
	CaptureMS int64 `json:"capture_ms"`
	TotalMS   int64 `json:"total_ms"`
	// SettledBy says which signal ended the wait for the page after the
	// action: SettledQuiet, SettledNavigation or SettledCap; empty when the
	// step did not wait (wait, finish, a failed step).
	SettledBy string `json:"settled_by,omitempty"`
}

// What ended the wait after an action (Timings.SettledBy).
const (
	// SettledQuiet: the page was quiet (nothing pending, nothing changed
	// for a short window, at least one frame drawn after the action).
	SettledQuiet = "quiet"
	// SettledNavigation: the action loaded a new document or opened a tab,
	// and that page became quiet.
	SettledNavigation = "navigation"
	// SettledCap: the page was still busy at BROWSER_ACTION_WAIT_SECONDS.
	SettledCap = "cap"
)

// Observation is what comes back from a reset (Step 0) or a step.
type Observation struct {
	Step       int    `json:"step"`
	Screenshot []byte `json:"-"` // lossless 800×600 PNG; may be empty after a renderer timeout
	URL        string `json:"url"`
	Title      string `json:"title"`
	// Error is "" or a short code: page_load_timeout, renderer_timeout,
	// renderer_crashed, blocked_by_bot_verification, blank_observation (see
	// Codes), or a short description of why the action failed (the episode
	// goes on).
	Error Code `json:"error"`
	Done  bool `json:"done"`
	// EndReason says why Done is true (see EndReasons).
	EndReason EndReason `json:"end_reason,omitempty"`
	// Answer is the text of a finish action.
	Answer string `json:"answer,omitempty"`
	// Reward is the automatic check's result at the end of an episode whose
	// task has a check; nil otherwise. It is a hint, not a label.
	Reward *float64 `json:"reward,omitempty"`
	// Redacted is true when a type action's text went into a secret field:
	// an <input type=password>, or a field whose autocomplete names a
	// password (current-password, new-password), a card number (cc-number)
	// or a card security code (cc-csc), in any frame or shadow root. The page
	// received the real keystrokes; whatever stores the action keeps
	// RedactedText in place of its text (see Action.Redact).
	Redacted bool `json:"redacted,omitempty"`
	// OffArchive counts the requests of a step replayed from an archive
	// (an offline replay) that the archive could not answer: refused, or
	// let through to the network with the fallback. 0 otherwise.
	OffArchive int     `json:"off_archive,omitempty"`
	Timings    Timings `json:"timings"`
	// Redaction lists the boxes a redaction policy blacked out of the
	// screenshot, each with why (a pattern, an element kind, a selector);
	// never the value (nil when no policy or nothing personal).
	Redaction []RedactBox `json:"-"`
	// Target is the element the step's action was aimed at (nil for step 0,
	// for actions without one, or when grounding is off).
	Target *Target `json:"-"`
	// Extras are the BrowserGym observation extras (nil when off).
	Extras *Extras `json:"-"`
	// Validation is the task's validate script's result (see Validator),
	// when it ran after this step; nil otherwise.
	Validation *Validation `json:"-"`
}

// RedactBox is a box of the screenshot blacked out (viewport pixels).
type RedactBox struct {
	X   int    `json:"x"`
	Y   int    `json:"y"`
	W   int    `json:"w"`
	H   int    `json:"h"`
	Why string `json:"why"`
}

// EndReason says why an episode ended (Observation.EndReason, and an
// episode's end_reason in the store). It is written as its string.
type EndReason string

// Why an episode ended.
const (
	EndFinished        EndReason = "finished"
	EndStepLimit       EndReason = "step_limit"
	EndBotVerification EndReason = "bot_verification"
	EndCrashed         EndReason = "crashed"
	EndTimeout         EndReason = "timeout"
	EndDiscarded       EndReason = "discarded"
	EndInterrupted     EndReason = "interrupted"
	// EndBlankObservation: with observation recovery on, the page showed
	// no visible content after every fresh read.
	EndBlankObservation EndReason = "blank_observation"
	// EndLeaseExpired: the OpenEnv session's browser lease ran out (its
	// renewals stopped), so the session ended and its browser was freed.
	EndLeaseExpired EndReason = "lease_expired"
	// EndIdleTimeout: the OpenEnv session's client sent no reset or step
	// for the server's idle bound, so the session ended and its browser
	// was freed.
	EndIdleTimeout EndReason = "idle_timeout"
)

// EndReasons lists every end reason, in the order above.
func EndReasons() []EndReason {
	return []EndReason{EndFinished, EndStepLimit, EndBotVerification, EndCrashed,
		EndTimeout, EndDiscarded, EndInterrupted, EndBlankObservation, EndLeaseExpired, EndIdleTimeout}
}

// Code is an observation's error (Observation.Error): "" for none, one of
// the codes below, or a short description of why an action failed. It is
// written as its string.
type Code string

// Observation error codes, as the reference's (plus renderer_crashed).
const (
	ErrPageLoadTimeout Code = "page_load_timeout"
	ErrRendererTimeout Code = "renderer_timeout"
	ErrBotVerification Code = "blocked_by_bot_verification"
	ErrRendererCrashed Code = "renderer_crashed"
	// ErrBlankObservation: observation recovery found no visible content
	// (the episode ends; Waymark's addition).
	ErrBlankObservation Code = "blank_observation"
)

// Codes lists every observation error code, in the order above.
func Codes() []Code {
	return []Code{ErrPageLoadTimeout, ErrRendererTimeout, ErrBotVerification,
		ErrRendererCrashed, ErrBlankObservation}
}

// Ends says how an episode ends when an observation carries code c: a bot
// check, a crashed or unresponsive page, or (with observation recovery) a
// page that stays blank end it; after any other code (a slow page load, an
// action that did not work) the episode goes on and ok is false.
func (c Code) Ends() (reason EndReason, ok bool) {
	switch c {
	case ErrBotVerification:
		return EndBotVerification, true
	case ErrRendererCrashed:
		return EndCrashed, true
	case ErrRendererTimeout:
		return EndTimeout, true
	case ErrBlankObservation:
		return EndBlankObservation, true
	}
	return "", false
}

// MsgResetBeforeStepping is the reference's words for a step with no
// episode running (engine.ErrResetBeforeStepping reads them).
const MsgResetBeforeStepping = "reset before stepping"
