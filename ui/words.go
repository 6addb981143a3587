package ui

import (
	"errors"
	"fmt"
	"strings"

	"waymark/dataset"
	"waymark/engine/action"
)

// ObservationError turns an observation's error code into a sentence.
func ObservationError(code string) string {
	switch code {
	case "":
		return ""
	case action.ErrPageLoadTimeout:
		return "The page took too long to load; the episode goes on with what is shown."
	case action.ErrRendererTimeout:
		return "The page stopped responding; the episode has ended."
	case action.ErrRendererCrashed:
		return "The page crashed; the episode has ended."
	case action.ErrBotVerification:
		return "The site showed a bot check, which cannot be recorded; the episode has ended."
	case action.MsgResetBeforeStepping:
		return "The episode has already ended; start the task again to go on."
	}
	return "The action did not work on the page: " + code + "."
}

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
	}
	msg := err.Error()
	if strings.Contains(msg, action.MsgResetBeforeStepping) {
		return ObservationError(action.MsgResetBeforeStepping)
	}
	return "The step failed: " + msg + "."
}

// EndReason says why an episode ended.
func EndReason(reason string) string {
	switch reason {
	case action.EndFinished:
		return "You finished the task."
	case action.EndStepLimit:
		return "The episode reached its step limit."
	case action.EndBotVerification:
		return "The site asked for a bot check, so the episode stopped."
	case action.EndCrashed:
		return "The page or the browser crashed, so the episode stopped."
	case action.EndTimeout:
		return "The page stopped responding, so the episode stopped."
	case action.EndDiscarded:
		return "You discarded the episode (its steps are kept, marked discarded)."
	case action.EndInterrupted:
		return "The episode was interrupted (its steps are saved)."
	}
	return fmt.Sprintf("The episode ended (%s).", reason)
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
