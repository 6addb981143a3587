package review

import (
	"cmp"
	"fmt"
	"image/color"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"waymark/dataset"
	"waymark/ui"
)

// The queue's rows: each episode's two lines (its goal, or a cut's span
// and a branch's step, then who, its state and its check), branches and
// cuts nested under the episode they came from, and the summary of where
// the queue's goals came from.

func (q *queuePanel) createRow() fyne.CanvasObject {
	goal := widget.NewLabel("goal")
	goal.Truncation = fyne.TextTruncateEllipsis
	goal.TextStyle = fyne.TextStyle{Bold: true}
	meta := widget.NewLabel("meta")
	meta.Truncation = fyne.TextTruncateEllipsis
	meta.SizeName = theme.SizeNameCaptionText
	indent := canvas.NewRectangle(color.Transparent)
	return container.NewBorder(nil, nil, indent, nil, container.NewVBox(goal, meta))
}

// branchIndent is how far a branch row is indented per level.
const branchIndent = 18

func (q *queuePanel) updateRow(id widget.ListItemID, o fyne.CanvasObject) {
	if id >= len(q.items) {
		return
	}
	it := q.items[id]
	depth := 0
	if id < len(q.depth) {
		depth = q.depth[id]
	}
	box := o.(*fyne.Container)
	var texts *fyne.Container
	for _, c := range box.Objects {
		switch c := c.(type) {
		case *canvas.Rectangle:
			c.SetMinSize(fyne.NewSize(float32(depth*branchIndent), 0))
		case *fyne.Container:
			texts = c
		}
	}
	goal := it.Goal
	switch {
	case it.Intent == dataset.IntentHindsight:
		goal = fmt.Sprintf("✂ steps %d–%d · %s", it.SpanFrom, it.SpanTo, it.Goal)
	case depth > 0 && it.BranchStep != nil:
		goal = fmt.Sprintf("↳ from step %d · %s", *it.BranchStep, it.Goal)
	}
	texts.Objects[0].(*widget.Label).SetText(goal)
	meta := rowMeta(it)
	if depth == 0 && it.BranchStep != nil {
		meta = fmt.Sprintf("branch from step %d · %s", *it.BranchStep, meta)
	}
	texts.Objects[1].(*widget.Label).SetText(meta)
	box.Refresh()
}

// nestBranches orders items so that each branch follows its parent (and
// the parent's earlier branches), keeping the queue's order otherwise, and
// gives each item its depth: 0 for an episode whose parent is not listed.
func nestBranches(items []dataset.QueueItem) ([]dataset.QueueItem, []int) {
	listed := make(map[string]bool, len(items))
	for _, it := range items {
		listed[it.EpisodeID] = true
	}
	children := map[string][]dataset.QueueItem{}
	var roots []dataset.QueueItem
	for _, it := range items {
		// A task cut from an exploration sits under it as a branch does.
		parent := cmp.Or(it.ParentEpisodeID, it.ExplorationID)
		if parent != "" && listed[parent] && parent != it.EpisodeID {
			children[parent] = append(children[parent], it)
		} else {
			roots = append(roots, it)
		}
	}
	out := make([]dataset.QueueItem, 0, len(items))
	depth := make([]int, 0, len(items))
	seen := map[string]bool{}
	var walk func(it dataset.QueueItem, d int)
	walk = func(it dataset.QueueItem, d int) {
		if seen[it.EpisodeID] {
			return
		}
		seen[it.EpisodeID] = true
		out = append(out, it)
		depth = append(depth, d)
		for _, c := range children[it.EpisodeID] {
			walk(c, d+1)
		}
	}
	for _, it := range roots {
		walk(it, 0)
	}
	// A cycle of parents (never stored by the app) would leave items out:
	// list them at the top level rather than lose them.
	for _, it := range items {
		walk(it, 0)
	}
	return out, depth
}

// rowMeta is the second line of a queue row.
func rowMeta(it dataset.QueueItem) string {
	parts := []string{it.Category, it.Annotator, ui.Plural(it.NumSteps, "step")}
	switch it.Intent {
	case dataset.IntentExploration:
		parts = []string{"exploration (no outcome to label)", it.Annotator, ui.Plural(it.NumSteps, "step")}
	case dataset.IntentHindsight:
		parts = append([]string{cutState(it.Cut)}, parts...)
	default:
		if it.ActualTask != "" {
			parts = append([]string{"actually: " + it.ActualTask}, parts...)
		}
	}
	switch {
	case it.Settled:
		parts = append(parts, "settled: "+ui.OutcomeName(it.Outcome))
	case len(it.Outcomes) > 1:
		parts = append(parts, "conflict")
	case it.MyOutcome != "":
		parts = append(parts, "mine: "+ui.OutcomeName(it.MyOutcome))
	case it.NumReviews > 0:
		parts = append(parts, ui.Plural(it.NumReviews, "review"))
	}
	if it.Status == dataset.StatusInterrupted {
		parts = append(parts, "interrupted")
	}
	if it.NumInterventions > 0 {
		parts = append(parts, ui.Plural(it.NumInterventions, "intervention"))
	}
	parts = append(parts, it.StartedAt.Local().Format("Jan 2 15:04"))
	return strings.Join(parts, " · ")
}

// cutState is a cut task's check in a few words: whether it replays from
// its start state and whether a key point failed (shown, never left out).
func cutState(h *dataset.HindsightCheck) string {
	s := "cut · not replayed yet"
	switch {
	case h == nil || h.Replay == nil:
	case h.Replay.Replayable:
		s = "cut · replayable"
	default:
		s = "cut · NOT replayable"
	}
	if n := h.KeyPointsFailed(); n > 0 {
		s += fmt.Sprintf(" · %s FAILED", ui.Plural(n, "key point"))
	}
	return s
}

// intentsText counts the queue's episodes by where their goal came from,
// and the cut tasks by their checks ("" when every episode is planned).
func intentsText(c dataset.IntentCounts) string {
	if c.Hindsight == 0 && c.Explorations == 0 && c.WithActualTask == 0 {
		return ""
	}
	s := fmt.Sprintf("Planned: %s (%s)", ui.Plural(c.Planned, "episode"), ui.Plural(c.PlannedTasks, "task"))
	if c.WithActualTask > 0 {
		s += fmt.Sprintf(", %d saying what was actually done", c.WithActualTask)
	}
	if c.Hindsight > 0 {
		s += fmt.Sprintf(" · cut from explorations: %s (%d replayable, %d NOT replayable, %d not replayed yet",
			ui.Plural(c.HindsightTasks, "task"), c.Replayable, c.NotReplayable, c.Unchecked)
		if c.KeyPointsFailed > 0 {
			s += fmt.Sprintf("; %d with a FAILED key point", c.KeyPointsFailed)
		}
		s += ")"
	}
	if c.Explorations > 0 {
		s += fmt.Sprintf(" · %s, not labelled (see Explorations)", ui.Plural(c.Explorations, "exploration"))
	}
	return s
}
