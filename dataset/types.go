package dataset

import (
	"time"

	"waymark/engine/action"
)

// Categories of tasks.
const (
	Information = "information"
	Navigation  = "navigation"
	Interaction = "interaction"
)

// Categories lists the three categories in their canonical (ClassLabel) order.
var Categories = []string{Information, Navigation, Interaction}

// Status is an episode's state, stored and exported as its string.
type Status string

// Episode statuses.
const (
	StatusRecording   Status = "recording"
	StatusFinished    Status = "finished" // ended by the engine: see EndReason
	StatusInterrupted Status = "interrupted"
	StatusDiscarded   Status = "discarded"
)

// Statuses lists every episode status, in the order above.
func Statuses() []Status {
	return []Status{StatusRecording, StatusFinished, StatusInterrupted, StatusDiscarded}
}

// Outcome is a review's label of an episode, stored and exported as its
// string.
type Outcome string

// Review outcomes, in their canonical (ClassLabel) order.
const (
	OutcomeSuccess       Outcome = "success"
	OutcomeFailure       Outcome = "failure"
	OutcomeNotExecutable Outcome = "not_executable"
	OutcomeInvalidTask   Outcome = "invalid_task"
)

// Outcomes lists the outcomes in ClassLabel order.
var Outcomes = []Outcome{OutcomeSuccess, OutcomeFailure, OutcomeNotExecutable, OutcomeInvalidTask}

// FailureTypes is the fixed list of failure types.
var FailureTypes = []string{"wrong_element", "wrong_text", "missed_step", "wrong_answer", "gave_up", "site_error", "other"}

// Task is something to demonstrate.
type Task struct {
	ID       string
	Goal     string
	Category string
	StartURL string
	Source   string
	SourceID string // the row's id in the file it was imported from, if any
	Check    *action.Check
	// KeepSecrets keeps the text typed into password and payment fields in
	// the task's episodes; by default it is stored as action.RedactedText.
	KeepSecrets bool
	// ReferenceTime, when set, is the instant the page's clock shows at the
	// start of an episode (then it advances in real time); its offset is
	// kept as written.
	ReferenceTime *time.Time
	// Timezone is an IANA time zone name ("Europe/Berlin") and Locale a BCP
	// 47 tag ("de-DE") the page sees; empty keeps the browser's.
	Timezone  string
	Locale    string
	Archived  bool
	CreatedAt time.Time
	UpdatedAt time.Time
	// Redact is the task's own redaction policy for its recordings: ""
	// (whatever the recording chose), "off", "default", or a policy as
	// JSON (engine/redact); see TaskResetOptions.
	Redact string
	// Manifest holds the BrowserGym-style manifest fields of a task
	// imported from a manifest (its validate and cheat scripts…); nil
	// otherwise. See manifest.go.
	Manifest *Manifest
}

// Episode is one attempt at a task.
type Episode struct {
	ID          string
	TaskID      string
	Annotator   string
	ActionSet   action.Set
	EngineJSON  string
	Status      Status
	EndReason   action.EndReason
	FinalAnswer string
	FinalURL    string
	AutoReward  *float64
	NumSteps    int
	StartedAt   time.Time
	EndedAt     *time.Time
	// Owner is the recording process ("host|pid|start token"); see Open.
	Owner string
	// Goal and Category are the task's, filled by GetEpisode and ListEpisodes.
	Goal     string
	Category string
	// ParentEpisodeID names the episode this one is a branch of ("" for
	// none), and BranchStep the parent's step it continued from: the
	// parent's actions up to that step were replayed, then recording went
	// on by hand. Both are set at CreateEpisode and never change.
	ParentEpisodeID string
	BranchStep      *int
	// NumEdits counts the audit log's step edits (undo, remove, restore,
	// trim; see EpisodeEdits), NumRemoved the action steps left out of the
	// edited episode, and Resumed says the episode was resumed at least
	// once (MarkResumed). Filled by GetEpisode and ListEpisodes.
	NumEdits   int
	NumRemoved int
	Resumed    bool
	// NumInterventions counts the times someone other than the annotator
	// took over (runs of kept steps by another actor; see
	// CountInterventions). Filled by GetEpisode and ListEpisodes.
	NumInterventions int
	// Intent says where the episode's goal came from: IntentPlanned (a
	// task chosen, then performed), IntentExploration (a free recording
	// without a goal) or IntentHindsight (a span of an exploration,
	// named afterwards; see hindsight.go). A hindsight episode names its
	// exploration and the span's first and last steps there. ActualTask
	// is what a planned episode actually did when it differs from its
	// goal ("" when it does not).
	Intent           string
	ExplorationID    string
	SpanFrom, SpanTo int
	ActualTask       string
}

// Edited reports whether the edited episode differs from what was
// recorded: some of its steps are removed.
func (e Episode) Edited() bool { return e.NumRemoved > 0 }

// Step is one stored observation: index 0 is the reset, k ≥ 1 the result of
// the k-th action. Its screenshot is the "after" of step k and the "before"
// of step k+1.
type Step struct {
	EpisodeID  string
	Index      int
	Action     *action.Action // nil for step 0
	ActionJSON string         // the JSON the engine received, secret text redacted ("" for step 0)
	URL        string
	Title      string
	Error      string
	Done       bool
	Screenshot []byte // PNG; may be left out by list queries
	Timings    action.Timings
	CreatedAt  time.Time
	// Note is the annotator's note on this step ("" for none).
	Note string
	// Removed: the step was undone, removed or trimmed away; it is kept in
	// the store (with its index) but left out of the edited episode.
	Removed bool
	// Target is the element the action was aimed at (nil when unknown).
	Target *action.Target
	// Actor is who acted: "agent:NAME" or "human:NAME". Empty when
	// appending means the episode's annotator (ActorOf).
	Actor string
	// Extras are the BrowserGym observation extras, stored (compressed)
	// with the step; reads leave them nil: see Store.StepExtras.
	Extras *action.Extras
	// Redaction are the boxes blacked out of the screenshot (a redaction
	// policy's at capture, or a reviewer's), each with why.
	Redaction []action.RedactBox
}

// Review is one reviewer's label of an episode.
type Review struct {
	ID          string
	EpisodeID   string
	Reviewer    string
	Outcome     Outcome
	FailureStep *int
	FailureType string
	Reason      string
	// StepFlags maps a step index to flags ("mistake", "unnecessary").
	StepFlags map[int][]string
	// StepLabels maps an action step's index (1…) to the reviewer's
	// judgement of it: StepCorrect, StepWrong or StepUnnecessary. Steps
	// not in the map are unlabelled.
	StepLabels map[int]string
	// SideEffect and Looping answer AgentRewardBench's questions (did the
	// episode cause an unwanted side effect; did it repeat itself without
	// progress): JudgeYes, JudgeNo, JudgeUnsure, or "" when not answered.
	SideEffect, Looping string
	// Optimality grades the episode 1 (complete failure) to 4 (completely
	// optimal), OptimalityNames; 0 is not answered.
	Optimality int
	// KeySteps are the steps whose screenshots the reviewer marked as key
	// evidence (WebJudge's key screenshots), sorted.
	KeySteps []int
	// GuidelinesID names the review guidelines in force when the review
	// was saved (their SHA-256, see GuidelineVersions); set by the store,
	// "" for reviews saved before the guidelines were versioned.
	GuidelinesID string
	Settles      bool
	CreatedAt    time.Time
}
