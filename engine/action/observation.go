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
	// renderer_crashed, blocked_by_bot_verification, or a short description of
	// why the action failed (the episode goes on).
	Error string `json:"error"`
	Done  bool   `json:"done"`
	// EndReason says why Done is true (see the End* constants).
	EndReason string `json:"end_reason,omitempty"`
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
	Redacted bool    `json:"redacted,omitempty"`
	Timings  Timings `json:"timings"`
}

// Why an episode ended.
const (
	EndFinished        = "finished"
	EndStepLimit       = "step_limit"
	EndBotVerification = "bot_verification"
	EndCrashed         = "crashed"
	EndTimeout         = "timeout"
	EndDiscarded       = "discarded"
	EndInterrupted     = "interrupted"
	// EndBlankObservation: with observation recovery on, the page showed
	// no visible content after every fresh read.
	EndBlankObservation = "blank_observation"
)

// EndReasons lists every end reason, in the order above.
func EndReasons() []string {
	return []string{EndFinished, EndStepLimit, EndBotVerification, EndCrashed,
		EndTimeout, EndDiscarded, EndInterrupted, EndBlankObservation}
}

// Observation error codes, as the reference's (plus renderer_crashed).
const (
	ErrPageLoadTimeout = "page_load_timeout"
	ErrRendererTimeout = "renderer_timeout"
	ErrBotVerification = "blocked_by_bot_verification"
	ErrRendererCrashed = "renderer_crashed"
	// ErrBlankObservation: observation recovery found no visible content
	// (the episode ends; Waymark's addition).
	ErrBlankObservation = "blank_observation"
)

// Codes lists every observation error code, in the order above.
func Codes() []string {
	return []string{ErrPageLoadTimeout, ErrRendererTimeout, ErrBotVerification,
		ErrRendererCrashed, ErrBlankObservation}
}

// MsgResetBeforeStepping is the reference's words for a step with no
// episode running (engine.ErrResetBeforeStepping reads them).
const MsgResetBeforeStepping = "reset before stepping"
