package ui

import (
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"waymark/dataset"
	"waymark/engine"
	"waymark/engine/action"
)

// codeWords is the one table of what each observation error code means to a
// person, whether recording or reviewing (see action.Codes).
var codeWords = map[action.Code]string{
	action.ErrPageLoadTimeout:  "The page took too long to load; the episode goes on with what is shown.",
	action.ErrRendererTimeout:  "The page stopped responding; the episode has ended.",
	action.ErrRendererCrashed:  "The page crashed; the episode has ended.",
	action.ErrBotVerification:  "The site showed a bot check, which cannot be recorded; the episode has ended.",
	action.ErrBlankObservation: "The page showed no visible content after several reads; the episode has ended.",
}

// ObservationError turns an observation's error code into a sentence; an
// error that is no code (why an action failed) is quoted.
func ObservationError(code action.Code) string {
	if code == "" {
		return ""
	}
	if w, ok := codeWords[code]; ok {
		return w
	}
	return "The action did not work on the page: " + string(code) + "."
}

// StartPageError is ObservationError for step 0, the start page, where no
// action was taken.
func StartPageError(code action.Code) string {
	if code == "" {
		return ""
	}
	if w, ok := codeWords[code]; ok {
		return w
	}
	return "The start page did not open: " + string(code) + ". Check the task's start URL, or whether its site is up."
}

// episodeOver is said when a step is refused because the episode ended.
const episodeOver = "The episode has already ended; start the task again to go on."

// StepError turns an engine error of a step into a sentence.
func StepError(err error) string {
	if err == nil {
		return ""
	}
	var ve *action.ValidationError
	switch {
	case errors.As(err, &ve):
		return "Not performed: " + ve.Error() + "."
	case errors.Is(err, dataset.ErrNotSaved):
		return "The step could not be saved, so recording stopped: " + err.Error() + ". Free disk space or check the database, then start again."
	case errors.Is(err, engine.ErrResetBeforeStepping):
		return episodeOver
	}
	return "The step failed: " + err.Error() + "."
}

// endWords is the one table of what each end reason means (see
// action.EndReasons): now is said to the person recording as the episode
// ends, after names it in an episode's summary for a reviewer.
var endWords = map[action.EndReason]struct{ now, after string }{
	action.EndFinished:         {"You finished the task.", "finished by the annotator"},
	action.EndStepLimit:        {"The episode reached its step limit.", "step limit reached"},
	action.EndBotVerification:  {"The site asked for a bot check, so the episode stopped.", "blocked by a bot check"},
	action.EndCrashed:          {"The page or the browser crashed, so the episode stopped.", "browser crashed"},
	action.EndTimeout:          {"The page stopped responding, so the episode stopped.", "timed out"},
	action.EndDiscarded:        {"You discarded the episode (its steps are kept, marked discarded).", "discarded by the annotator"},
	action.EndInterrupted:      {"The episode was interrupted (its steps are saved).", "interrupted (the recording stopped early)"},
	action.EndBlankObservation: {"The page showed no visible content, so the episode stopped.", "the page showed no visible content"},
	action.EndLeaseExpired:     {"The session's browser lease ran out, so the episode stopped (its steps are saved).", "the session's browser lease ran out"},
	action.EndIdleTimeout:      {"The agent sent nothing for the server's idle bound, so the session ended (its steps are saved).", "the agent went silent (idle timeout)"},
}

// EndReason says why an episode ended, to the person recording it.
func EndReason(reason action.EndReason) string {
	if w, ok := endWords[reason]; ok {
		return w.now
	}
	return fmt.Sprintf("The episode ended (%s).", reason)
}

// ExplorationEnded says how an exploration (an episode without a goal)
// ended, to the person who recorded it: finishing it ends the exploration,
// it finishes no task.
func ExplorationEnded(reason action.EndReason) string {
	if reason == action.EndFinished {
		return "You ended the exploration."
	}
	return EndReason(reason)
}

// ExplorationSaved says what became of an exploration of steps steps and
// where tasks are cut out of it.
func ExplorationSaved(steps int) string {
	return fmt.Sprintf("The exploration was saved with its %s. Name what a span of them did as a task: Cut a task… now (also under the timeline, Ctrl+Shift+X), or later in Review (open the exploration there).", Plural(steps, "step"))
}

// EndedBy names why an episode ended in a few words, for its summary
// ("ended: step limit reached"); an unknown reason is shown as it is.
func EndedBy(reason action.EndReason) string {
	if w, ok := endWords[reason]; ok {
		return w.after
	}
	return string(reason)
}

// statusWords is the one table of how each episode status reads to a
// person (see dataset.Statuses).
var statusWords = map[dataset.Status]string{
	dataset.StatusRecording:   "being recorded",
	dataset.StatusFinished:    "finished",
	dataset.StatusInterrupted: "interrupted",
	dataset.StatusDiscarded:   "discarded",
}

// StatusName names an episode's status in a word or two ("being
// recorded"); an unknown status is shown as it is.
func StatusName(s dataset.Status) string { return wordIn(statusWords, s) }

// outcomeWords is the one table of how each review outcome reads to a
// person (see dataset.Outcomes): the Review form's options and every
// summary that names an outcome.
var outcomeWords = map[dataset.Outcome]string{
	dataset.OutcomeSuccess:       "success",
	dataset.OutcomeFailure:       "failure",
	dataset.OutcomeNotExecutable: "not executable",
	dataset.OutcomeInvalidTask:   "invalid task",
}

// OutcomeName names a review outcome in lower case ("not executable"); an
// unknown outcome is shown as it is.
func OutcomeName(o dataset.Outcome) string { return wordIn(outcomeWords, o) }

// verdictWords is the one table of how each replay verdict reads to a
// person (see dataset.Verdicts): a word or two, with a sign.
var verdictWords = map[dataset.Verdict]string{
	dataset.VerdictMatch:      "✓ match",
	dataset.VerdictDiverged:   "✗ diverged",
	dataset.VerdictUnreliable: "? unreliable",
	dataset.VerdictSecret:     "✗ secret not stored",
}

// VerdictMark is a replay verdict in a word or two, with a sign; an
// unknown verdict is shown as it is.
func VerdictMark(v dataset.Verdict) string { return wordIn(verdictWords, v) }

// wordIn is value's word in table, or value as it is when the table has
// none (a newer store's value read by this version).
func wordIn[K ~string](table map[K]string, value K) string {
	if w, ok := table[value]; ok {
		return w
	}
	return string(value)
}

// CheckResult describes the automatic check's result ("" when the task has
// no check).
func CheckResult(reward *float64) string {
	if reward == nil {
		return ""
	}
	if *reward >= 1 {
		return "Automatic check: passed ✓ (a hint for reviewers, not a label)"
	}
	return "Automatic check: did not pass ✗ (a hint for reviewers, not a label)"
}

// FinishAnswerError says whether answer may finish a task of category.
// Information tasks need an answer.
func FinishAnswerError(category, answer string) error {
	if category == dataset.Information && strings.TrimSpace(answer) == "" {
		return errors.New("this is an information task: write the answer you found")
	}
	if len([]rune(answer)) > action.MaxTextLen {
		return fmt.Errorf("the answer is longer than %d characters", action.MaxTextLen)
	}
	return nil
}

// ExpectedAnswers shows an answer check's alternatives ("7|7 days|seven")
// for people: each quoted, as a list, e.g. “7”, “7 days” or “seven”.
// Empty alternatives are left out; "" when there is none.
func ExpectedAnswers(answer string) string {
	var alts []string
	for _, a := range strings.Split(answer, "|") {
		if a = strings.TrimSpace(a); a != "" {
			alts = append(alts, "“"+a+"”")
		}
	}
	switch len(alts) {
	case 0:
		return ""
	case 1:
		return alts[0]
	}
	return strings.Join(alts[:len(alts)-1], ", ") + " or " + alts[len(alts)-1]
}

// Plural writes n with word, adding an s unless n is 1 ("1 step", "2 steps").
func Plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// Sentence starts s with a capital letter and ends it with a full stop,
// for an error's words shown as a sentence of their own.
func Sentence(s string) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return s
	}
	r, n := utf8.DecodeRuneInString(s)
	s = string(unicode.ToUpper(r)) + s[n:]
	if !strings.HasSuffix(s, ".") {
		s += "."
	}
	return s
}
