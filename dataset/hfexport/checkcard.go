package hfexport

import (
	"fmt"
	"strings"

	"waymark/dataset"
)

// checkStats gathers the exported episodes that have both an automatic
// check result and an outcome, for the card's statement of how well the
// checks agree with people (dataset.CheckAgreement states the method).
type checkStats struct {
	items   []dataset.CheckItem
	skipped int // … labelled invalid_task, left out
}

func (c *checkStats) add(e *episodeInfo) {
	if e.AutoReward == nil || e.Outcome == "" {
		return
	}
	if e.Outcome == dataset.OutcomeInvalidTask {
		c.skipped++
		return
	}
	c.items = append(c.items, dataset.CheckItem{TaskID: e.TaskID, Goal: e.Goal, Category: e.Category,
		Passed: *e.AutoReward >= 1, Success: e.Outcome == dataset.OutcomeSuccess})
}

// writeCheckCard states the checks' agreement with the exported outcomes:
// a table per category and overall, and the tasks whose check disagrees
// most.
func writeCheckCard(b *strings.Builder, c *checkStats) {
	b.WriteString("### Automatic checks against people\n\n")
	if len(c.items) == 0 {
		b.WriteString("No exported episode has both an automatic check result (`auto_reward`) and an outcome, so the checks' agreement with people cannot be stated.\n\n")
		return
	}
	a := dataset.ComputeCheckAgreement(c.items)
	fmt.Fprintf(b, "%s have both an automatic check result (`auto_reward`, passed when 1) and an outcome", plural(a.Overall.N, "episode", "episodes"))
	if c.skipped > 0 {
		fmt.Fprintf(b, " (%s labelled `invalid_task` left out)", plural(c.skipped, "episode", "episodes"))
	}
	b.WriteString(". Taking the outcome `success` as the truth, precision is the share of passed checks people call a success and recall the share " +
		"of successes the check passed; Cohen's kappa corrects agreement for chance, and collapses when nearly every outcome is the same; " +
		"Gwet's AC1 does not.\n\n")
	b.WriteString("| category | episodes | passed, success | passed, not success | failed, success | failed, not success | agreement | precision | recall | Cohen's kappa | Gwet's AC1 |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|---|---|---|\n")
	row := func(name string, f dataset.CheckFigures) {
		fmt.Fprintf(b, "| %s | %d | %d | %d | %d | %d | %s | %s | %s | %s | %s |\n", name, f.N, f.TP, f.FP, f.FN, f.TN,
			dataset.FormatPercent(f.Agreement), dataset.FormatFigure(f.Precision), dataset.FormatFigure(f.Recall),
			dataset.FormatFigure(f.Kappa), dataset.FormatFigure(f.AC1))
	}
	for _, cat := range dataset.Categories {
		if f, ok := a.ByCategory[cat]; ok {
			row(cat, f)
		}
	}
	row("all", a.Overall)
	worst := a.Disagreeing(5)
	if len(worst) == 0 {
		b.WriteString("\nEvery task's check agrees with people on every episode.\n\n")
		return
	}
	b.WriteString("\nTasks whose check disagrees with people most:\n\n")
	for _, t := range worst {
		fmt.Fprintf(b, "- %q (%s, task `%s`): %d of %d episodes (passed %d not successful, failed %d successful)\n",
			t.Goal, t.Category, t.TaskID, t.Disagree(), t.N, t.FP, t.FN)
	}
	b.WriteString("\n")
}
