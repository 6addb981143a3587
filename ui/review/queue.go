package review

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
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
