package review

import (
	"fmt"
	"strings"

	"waymark/dataset"
	"waymark/engine/action"
	"waymark/ui"
)

// What the player says about an episode and its steps: the line under the
// goal, why the episode ended, the answer against the check, and a step's
// action, URLs, title, error and timings.

// episodeMeta is the line under the goal.
func episodeMeta(ep dataset.Episode, task dataset.Task, steps []dataset.Step) string {
	removed := 0
	for _, st := range steps {
		if st.Removed {
			removed++
		}
	}
	actions := ui.Plural(len(steps)-1, "action")
	if removed > 0 {
		actions += fmt.Sprintf(" (%d removed: the edited episode keeps %d)", removed, len(steps)-1-removed)
	}
	parts := []string{
		strings.ToUpper(task.Category[:1]) + task.Category[1:],
		"by " + ep.Annotator,
		actions,
		"ended: " + endReasonText(ep),
		ep.StartedAt.Local().Format("2006-01-02 15:04"),
	}
	if task.StartURL != "" {
		parts = append(parts, task.StartURL)
	}
	return strings.Join(parts, " · ")
}

// endReasonText is why ep ended, in the words of ui.EndedBy.
func endReasonText(ep dataset.Episode) string {
	switch {
	case ep.EndReason == "" && ep.Status == dataset.StatusInterrupted:
		return ui.EndedBy(action.EndInterrupted)
	case ep.EndReason == "":
		return ui.StatusName(ep.Status)
	}
	return ui.EndedBy(ep.EndReason)
}

// answerText shows the final answer and the automatic check as a hint.
func answerText(ep dataset.Episode, task dataset.Task) string {
	ans := "Final answer: —"
	if ep.FinalAnswer != "" {
		ans = "Final answer: “" + ep.FinalAnswer + "”"
	}
	switch {
	case ep.AutoReward == nil && task.Check == nil:
		ans += "   ·   Automatic check: none for this task"
	case ep.AutoReward == nil:
		ans += "   ·   Automatic check: not run"
	case *ep.AutoReward >= 1:
		ans += "   ·   Automatic check (a hint, not a label): passed"
	default:
		ans += "   ·   Automatic check (a hint, not a label): failed"
	}
	if task.Check != nil && task.Check.Kind == action.CheckKindAnswer {
		if want := ui.ExpectedAnswers(task.Check.Answer); want != "" {
			ans += "   ·   expected: " + want
		}
	}
	return ans
}

func actionText(a *action.Action) string {
	if a == nil {
		return "start"
	}
	if a.IsRedacted() {
		// Typed into a password or payment field: the text was not stored.
		return "type " + action.RedactedText
	}
	return a.String()
}

// stepInfo describes step k: its action, URLs, title, error and timings.
func stepInfo(steps []dataset.Step, k int, after bool) string {
	st := steps[k]
	var b strings.Builder
	if k > 0 {
		prev := steps[beforeStep(steps, k)]
		fmt.Fprintf(&b, "On: %s  %s\nResult: %s  %s", prev.URL, quoteTitle(prev.Title), st.URL, quoteTitle(st.Title))
	} else {
		fmt.Fprintf(&b, "Start page: %s  %s", st.URL, quoteTitle(st.Title))
	}
	if st.Error != "" {
		words := ui.ObservationError(action.Code(st.Error))
		if k == 0 {
			words = ui.StartPageError(action.Code(st.Error))
		}
		fmt.Fprintf(&b, "\nError: %s", words)
	}
	if st.Done {
		b.WriteString("\nThis step ended the episode.")
	}
	// Through an OpenEnv server that does not send timings, only the total
	// (measured by the client) or nothing is known.
	tm := st.Timings
	split := tm.ActionMS+tm.SettleMS+tm.CaptureMS > 0
	ms := func(v int64, known bool) string {
		if !known {
			return "—"
		}
		return fmt.Sprintf("%d ms", v)
	}
	if !split && tm.TotalMS == 0 {
		b.WriteString("\nTimings: —")
	} else {
		fmt.Fprintf(&b, "\nTimings: action %s · settle %s · capture %s · total %s",
			ms(tm.ActionMS, split), ms(tm.SettleMS, split), ms(tm.CaptureMS, split), ms(tm.TotalMS, tm.TotalMS > 0))
	}
	return b.String()
}

// beforeStep is the step whose result step k's action was taken on: the
// last kept step before it. A removed step (undone while recording, or
// removed by a reviewer) is not part of the episode: an Undo put the page
// back as the step before it left it, and the next step acted there.
func beforeStep(steps []dataset.Step, k int) int {
	j := k - 1
	for j > 0 && steps[j].Removed {
		j--
	}
	return max(j, 0)
}

// quoteTitle quotes a page title, or says "—" when it is unknown (an OpenEnv
// server that does not send titles) or empty.
func quoteTitle(t string) string {
	if t == "" {
		return "—"
	}
	return "“" + t + "”"
}
