package review

import (
	"cmp"
	"fmt"
	"image/color"
	"slices"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"waymark/dataset"
	"waymark/ui"
)

// stateNames are the queue states as shown.
var stateNames = map[string]string{
	dataset.QueueUnreviewed:   "Unreviewed by me",
	dataset.QueueMine:         "Reviewed by me",
	dataset.QueueConflict:     "In conflict",
	dataset.QueueSettled:      "Settled",
	dataset.QueueExplorations: "Explorations",
	"":                        "All",
}

var sortNames = []struct{ key, name string }{
	{dataset.SortNewest, "Newest first"},
	{dataset.SortOldest, "Oldest first"},
	{dataset.SortTask, "By task"},
	{dataset.SortAnnotator, "By annotator"},
}

const (
	anyCategory  = "All categories"
	anyAnnotator = "Everyone"
	onlyPeople   = "People only"
	onlyAgents   = "Agents only"
)

// queuePanel is the filtered list of episodes with counts per state.
type queuePanel struct {
	t *Tab
	// typed counts changes to the text filters (filterSoon).
	typed int

	state     string
	stateSel  *widget.Select
	catSel    *widget.Select
	annSel    *widget.Select
	sortSel   *widget.Select
	interv    *widget.Check // only episodes with interventions
	search    *widget.Entry
	from, to  *widget.Entry
	list      *widget.List
	items     []dataset.QueueItem
	depth     []int // per item: 0, or how deep a branch sits under its parent
	counts    map[string]int
	summary   *widget.Label
	agreement *widget.Label
	openID    string
	next      *widget.Button
	loading   bool
}

func (q *queuePanel) init(t *Tab) {
	q.t = t
	q.state = dataset.QueueUnreviewed
	q.loading = true // the selects fire while they are set up
	defer func() { q.loading = false }()
	q.stateSel = widget.NewSelect(nil, func(string) { q.onFilter() })
	q.catSel = widget.NewSelect(append([]string{anyCategory}, dataset.Categories...), func(string) { q.onFilter() })
	q.catSel.SetSelectedIndex(0)
	q.annSel = widget.NewSelect([]string{anyAnnotator, onlyPeople, onlyAgents}, func(string) { q.onFilter() })
	q.annSel.SetSelectedIndex(0)
	var sorts []string
	for _, s := range sortNames {
		sorts = append(sorts, s.name)
	}
	q.sortSel = widget.NewSelect(sorts, func(string) { q.onFilter() })
	q.sortSel.SetSelectedIndex(0)
	q.interv = widget.NewCheck("With interventions (a person took over)", func(bool) { q.onFilter() })
	// The text filters apply as they are typed (once typing pauses: a long
	// queue is not read again at every key); a date once it is whole.
	q.search = widget.NewEntry()
	q.search.SetPlaceHolder("Task goal contains…")
	q.search.OnChanged = func(string) { q.filterSoon() }
	q.search.OnSubmitted = func(string) { q.onFilter(); q.t.unfocus() }
	q.from = widget.NewEntry()
	q.from.SetPlaceHolder("from YYYY-MM-DD")
	q.from.OnSubmitted = func(string) { q.onFilter(); q.t.unfocus() }
	q.to = widget.NewEntry()
	q.to.SetPlaceHolder("to YYYY-MM-DD")
	q.to.OnSubmitted = func(string) { q.onFilter(); q.t.unfocus() }
	for _, e := range []*widget.Entry{q.from, q.to} {
		e.OnChanged = func(s string) {
			if _, ok := parseDay(s); ok || strings.TrimSpace(s) == "" {
				q.filterSoon()
			}
		}
	}
	q.summary = widget.NewLabel("")
	q.summary.Wrapping = fyne.TextWrapWord
	q.agreement = widget.NewLabel("")
	q.agreement.Wrapping = fyne.TextWrapWord
	q.list = &widget.List{
		Length:     func() int { return len(q.items) },
		CreateItem: q.createRow,
		UpdateItem: q.updateRow,
		OnSelected: func(id widget.ListItemID) {
			if q.loading || id < 0 || id >= len(q.items) {
				return
			}
			if q.items[id].EpisodeID != q.openID {
				q.t.openItem(q.items[id])
			}
			q.t.unfocus()
		},
	}
	q.list.ExtendBaseWidget(q.list)
}

func (q *queuePanel) build() fyne.CanvasObject {
	q.next = widget.NewButton("Next unreviewed (N)", func() { q.t.nextUnreviewed(); q.t.unfocus() })
	q.next.Importance = widget.HighImportance
	top := container.NewVBox(
		widget.NewLabelWithStyle("Queue", fyne.TextAlignLeading, fyne.TextStyle{Bold: true}),
		q.stateSel,
		container.NewGridWithColumns(2, q.catSel, q.annSel),
		q.interv,
		q.search,
		container.NewGridWithColumns(2, q.from, q.to),
		q.sortSel,
		q.next,
		q.summary,
	)
	bottom := container.NewVBox(widget.NewSeparator(),
		widget.NewLabelWithStyle("Agreement", fyne.TextAlignLeading, fyne.TextStyle{Bold: true}), q.agreement)
	return container.NewBorder(top, bottom, nil, nil, q.list)
}

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

// filter is the queue's filter as chosen (State included).
func (q *queuePanel) filter() dataset.QueueFilter {
	f := dataset.QueueFilter{Reviewer: q.t.reviewer(), State: q.state}
	if c := q.catSel.Selected; c != "" && c != anyCategory {
		f.Category = c
	}
	switch a := q.annSel.Selected; a {
	case "", anyAnnotator:
	case onlyPeople:
		f.Annotator = dataset.AnnotatorPeople
	case onlyAgents:
		f.Annotator = dataset.AnnotatorAgents
	default:
		f.Annotator = a
	}
	for _, s := range sortNames {
		if s.name == q.sortSel.Selected {
			f.Sort = s.key
		}
	}
	f.Interventions = q.interv.Checked
	f.Search = strings.TrimSpace(q.search.Text)
	f.From, _ = parseDay(q.from.Text)
	if to, ok := parseDay(q.to.Text); ok {
		f.To = to.Add(24 * time.Hour) // the "to" day is included
	}
	return f
}

// narrowed reports whether a filter besides the state is set (a category,
// an annotator, interventions, a goal or a date).
func (q *queuePanel) narrowed() bool {
	f := q.filter()
	return f.Category != "" || f.Annotator != "" || f.Interventions || f.Search != "" || !f.From.IsZero() || !f.To.IsZero()
}

// parseDay reads YYYY-MM-DD as a local day.
func parseDay(s string) (time.Time, bool) {
	s = strings.TrimSpace(s)
	if s == "" {
		return time.Time{}, false
	}
	d, err := time.ParseInLocation("2006-01-02", s, time.Local)
	return d, err == nil
}

// typePause is how long typing in a filter pauses before the queue is
// read again.
const typePause = 300 * time.Millisecond

// filterSoon reads the queue again once typing pauses for typePause (at
// once without a bridge to the UI thread: a screen in a test).
func (q *queuePanel) filterSoon() {
	if q.t.ctx == nil || q.t.ctx.Bridge == nil {
		q.onFilter()
		return
	}
	q.typed++
	n := q.typed
	q.t.ctx.UI().After(typePause, func() {
		if n == q.typed {
			q.onFilter()
		}
	})
}

func (q *queuePanel) onFilter() {
	if q.loading {
		return
	}
	if i := q.stateSel.SelectedIndex(); i >= 0 {
		q.state = q.stateKeys()[i]
	}
	q.reload()
}

func (q *queuePanel) stateKeys() []string {
	return append(slices.Clone(dataset.QueueStates), "")
}

// reload reads the queue, the counts, the annotators and the agreement.
func (q *queuePanel) reload() {
	q.loading = true
	defer func() { q.loading = false }()
	var bad []string
	for _, e := range []*widget.Entry{q.from, q.to} {
		if _, ok := parseDay(e.Text); !ok && strings.TrimSpace(e.Text) != "" {
			bad = append(bad, e.Text)
		}
	}
	if len(bad) > 0 {
		q.t.form.setStatus(fmt.Sprintf("Dates are written YYYY-MM-DD, e.g. 2026-03-01 (%q was ignored).", bad), true)
	}
	if anns, err := q.t.store.Annotators(q.t.life); err == nil {
		opts := append([]string{anyAnnotator, onlyPeople, onlyAgents}, anns...)
		if !slices.Equal(opts, q.annSel.Options) {
			q.annSel.SetOptions(opts)
		}
	}
	res, err := q.t.store.ReviewQueue(q.t.life, q.filter())
	if err != nil {
		q.summary.SetText("Cannot read the queue: " + err.Error())
		return
	}
	q.items, q.depth = nestBranches(res.Items)
	q.counts = res.Counts
	var opts []string
	for _, k := range q.stateKeys() {
		if k == "" {
			opts = append(opts, stateNames[k])
			continue
		}
		opts = append(opts, fmt.Sprintf("%s (%d)", stateNames[k], res.Counts[k]))
	}
	q.stateSel.SetOptions(opts)
	q.stateSel.SetSelectedIndex(slices.Index(q.stateKeys(), q.state))
	q.summary.SetText(q.summaryText(res))
	if q.next != nil {
		if q.state == dataset.QueueConflict {
			q.next.SetText("Next conflict (N)")
		} else {
			q.next.SetText("Next unreviewed (N)")
		}
	}
	q.list.UnselectAll()
	q.list.Refresh()
	q.selectOpen()
	q.reloadAgreement()
}

func (q *queuePanel) summaryText(res dataset.Queue) string {
	if q.t.reviewer() == "" {
		return "Set your reviewer name in Settings: reviews are stored under it."
	}
	if res.Total == 0 {
		if q.state == dataset.QueueUnreviewed && !q.narrowed() {
			return "Nothing left for you to review here. Recordings appear once they are finished."
		}
		return "No episode matches these filters."
	}
	s := fmt.Sprintf("%s · %d unreviewed by %s · %d in conflict", ui.Plural(res.Total, "episode"), res.Counts[dataset.QueueUnreviewed], q.t.reviewer(), res.Counts[dataset.QueueConflict])
	if in := intentsText(res.Intents); in != "" {
		s += "\n" + in
	}
	return s
}

func (q *queuePanel) reloadAgreement() {
	ag, err := q.t.store.Agreement(q.t.life)
	if err != nil {
		q.agreement.SetText("Cannot compute agreement: " + err.Error())
		return
	}
	text := agreementText(ag)
	if sa, err := q.t.store.StepAgreement(q.t.life); err == nil {
		text += "\n" + stepAgreementText(sa)
	}
	if ca, err := q.t.store.CheckAgreement(q.t.life); err == nil {
		text += "\n" + checkAgreementText(ca)
	}
	q.agreement.SetText(text)
}

// agreementText summarises agreement figures for the panel.
func agreementText(ag dataset.Agreement) string {
	if ag.Episodes == 0 {
		return "No episode has two reviews yet: agreement needs a second reviewer."
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d episodes with ≥2 reviews: %s agree, Cohen's κ %s (Fleiss %s)",
		ag.Episodes, dataset.FormatPercent(ag.PercentAgreement), dataset.FormatFigure(ag.Kappa), dataset.FormatFigure(ag.FleissKappa))
	for i, p := range ag.Pairs {
		if i == 4 {
			fmt.Fprintf(&b, "\n… %d more pairs (waymark review stats)", len(ag.Pairs)-4)
			break
		}
		fmt.Fprintf(&b, "\n%s–%s: %s, κ %s (n=%d)", p.A, p.B, dataset.FormatPercent(p.PercentAgreement), dataset.FormatFigure(p.Kappa), p.N)
	}
	return b.String()
}

// stepAgreementText summarises the agreement on step labels.
func stepAgreementText(ag dataset.Agreement) string {
	if ag.Episodes == 0 {
		return "No step has two labels yet (C/W/X on a step): step agreement needs a second reviewer."
	}
	return fmt.Sprintf("%s with ≥2 labels: %s agree, Cohen's κ %s (Fleiss %s)",
		ui.Plural(ag.Episodes, "step"), dataset.FormatPercent(ag.PercentAgreement), dataset.FormatFigure(ag.Kappa), dataset.FormatFigure(ag.FleissKappa))
}

// markOpen highlights the open episode in the list.
func (q *queuePanel) markOpen(id string) {
	q.openID = id
	q.selectOpen()
}

func (q *queuePanel) selectOpen() {
	was := q.loading
	q.loading = true
	defer func() { q.loading = was }()
	for i, it := range q.items {
		if it.EpisodeID == q.openID {
			q.list.Select(i)
			return
		}
	}
	q.list.UnselectAll()
}

// updateItem refreshes an item after a save, keeping the list as it is so
// the reviewer does not lose their place.
func (q *queuePanel) afterSave() {
	keep := q.openID
	q.reload()
	q.openID = keep
	q.selectOpen()
}
