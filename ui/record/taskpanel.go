package record

import (
	"errors"
	"fmt"
	"image/color"
	"slices"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"waymark/dataset"
	"waymark/engine/action"
	"waymark/ui"
)

// The task panel: the queue of tasks to demonstrate, the chosen task's
// details, Start and the ad-hoc task dialog. It shares the left column
// with the timeline.

// taskPanel is the task queue and the chosen task's details, with the
// split of the left column between them and the timeline. While an
// episode runs the queue folds away to the chosen task and the timeline
// takes the room; otherwise the queue gets it. The divider offset each
// mode last had is kept, so a person's own choice sticks.
type taskPanel struct {
	t *Tab
	// task is the chosen task: the one recording while an episode runs.
	task *dataset.Task

	catSel    *widget.Select
	queue     *widget.List
	tasks     []dataset.TaskItem
	chosen    int
	goal      *widget.Label
	badge     *canvas.Text
	badgeBG   *canvas.Rectangle
	startURL  *widget.Label
	checkLbl  *widget.Label
	startBtn  *widget.Button
	counts    *widget.Label
	taskBtns  *fyne.Container
	taskPanel *fyne.Container
	panelHead *widget.Label // "Tasks", or "Recording" while the queue is folded
	adhoc     *adhocForm    // the open ad-hoc task dialog, or nil
	// exploreBtn starts an exploration (cut.go).
	exploreBtn *widget.Button

	split     *container.Split
	recLayout bool       // the split is laid out for a running episode
	splitSet  float64    // the offset given last (a different one: dragged)
	splitAt   [2]float64 // a dragged offset per mode: [idle, recording]
	splitOwn  [2]bool    // whether the person dragged the divider in a mode
}

func (p *taskPanel) init(t *Tab) { p.t, p.chosen = t, -1 }

// build makes the task panel's widgets.
func (p *taskPanel) build() fyne.CanvasObject {
	p.catSel = widget.NewSelect(append([]string{"All categories"}, dataset.Categories...), nil)
	p.catSel.SetSelectedIndex(0)
	p.catSel.OnChanged = func(string) { p.refresh() }
	p.counts = widget.NewLabel("")
	p.counts.TextStyle = fyne.TextStyle{Italic: true}
	p.queue = &widget.List{
		Length: func() int { return len(p.tasks) },
		CreateItem: func() fyne.CanvasObject {
			dot := &canvas.Circle{}
			dotBox := container.New(&ui.FixedSize{S: fyne.NewSize(10, 10)}, dot)
			goal := widget.NewLabel("")
			goal.Truncation = fyne.TextTruncateEllipsis
			n := widget.NewLabel("")
			n.Alignment = fyne.TextAlignTrailing
			return container.NewBorder(nil, nil, container.NewCenter(dotBox), ui.NewFixedWidth(52, n), goal)
		},
		UpdateItem: func(id widget.ListItemID, o fyne.CanvasObject) {
			if id >= len(p.tasks) {
				return
			}
			t := p.tasks[id]
			c := o.(*fyne.Container)
			c.Objects[0].(*widget.Label).SetText(t.Goal)
			dot := c.Objects[1].(*fyne.Container).Objects[0].(*fyne.Container).Objects[0].(*canvas.Circle)
			dot.FillColor = ui.CategoryColor(t.Category)
			dot.Refresh()
			n := c.Objects[2].(*fyne.Container).Objects[0].(*widget.Label)
			if t.Demonstrations > 0 {
				n.SetText(fmt.Sprintf("✓%d", t.Demonstrations))
			} else {
				n.SetText("new")
			}
		},
		OnSelected: func(id widget.ListItemID) { p.choose(id) },
	}
	p.goal = widget.NewLabel("Choose a task from the queue, or start an ad-hoc one.")
	p.goal.Wrapping = fyne.TextWrapWord
	p.goal.TextStyle = fyne.TextStyle{Bold: true}
	p.badgeBG = canvas.NewRectangle(color.Transparent)
	p.badgeBG.CornerRadius = 8
	p.badge = canvas.NewText("", color.White)
	p.badge.TextSize = 11
	p.badge.TextStyle = fyne.TextStyle{Bold: true}
	badge := container.NewStack(p.badgeBG, container.NewPadded(p.badge))
	p.startURL = widget.NewLabel("")
	p.startURL.Truncation = fyne.TextTruncateEllipsis
	p.startURL.TextStyle = fyne.TextStyle{Monospace: true}
	p.checkLbl = widget.NewLabel("")
	p.checkLbl.TextStyle = fyne.TextStyle{Italic: true}
	p.checkLbl.SizeName = theme.SizeNameCaptionText
	p.checkLbl.Truncation = fyne.TextTruncateEllipsis
	p.startBtn = &widget.Button{Text: "Start", Icon: theme.MediaPlayIcon(), Importance: widget.HighImportance, OnTapped: p.t.startChosen}
	adhoc := &widget.Button{Text: "Ad-hoc task…", Icon: theme.ContentAddIcon(), OnTapped: p.showAdhoc}
	p.taskBtns = container.NewGridWithColumns(2, p.startBtn, adhoc)
	// Explore… (cut.go) records without a goal; it sits beside the
	// category, so the queue keeps its rows.
	p.exploreBtn = &widget.Button{Text: "Explore…", OnTapped: p.showExplore}
	details := container.NewVBox(
		container.NewBorder(nil, nil, badge, nil, p.checkLbl),
		p.goal,
		p.startURL,
		p.taskBtns,
	)
	p.panelHead = widget.NewLabelWithStyle("Tasks", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	queueHead := container.NewBorder(nil, nil, p.panelHead, p.counts)
	p.taskPanel = container.NewBorder(container.NewVBox(queueHead, container.NewBorder(nil, nil, nil, p.exploreBtn, p.catSel)), details, nil, nil, p.queue)
	return p.taskPanel
}

// buildColumn puts the task panel over the timeline, the queue with the
// room until an episode starts.
func (p *taskPanel) buildColumn(tasks, steps fyne.CanvasObject) fyne.CanvasObject {
	p.split = container.NewVSplit(tasks, steps)
	p.split.Offset = 1 // the queue gets the room until an episode starts
	p.splitSet = 1
	return ui.NewFixedWidth(340, p.split)
}

// refresh reads the queue again for the chosen category, not yet
// demonstrated first, keeping the chosen task when it is still listed.
func (p *taskPanel) refresh() {
	if p.t.ctx.Store == nil {
		return
	}
	f := dataset.TaskFilter{}
	if i := p.catSel.SelectedIndex(); i > 0 {
		f.Category = dataset.Categories[i-1]
	}
	tasks, err := p.t.ctx.Store.ListTasks(p.t.lifetime, f)
	if err != nil {
		// Said where the list is too: the status bar's next message
		// replaced it, leaving an empty list and no word why.
		msg := "Cannot read the task list: " + err.Error() + ". Check the database in Settings, or start Waymark again."
		p.t.status.setError(msg)
		p.counts.SetText("")
		p.goal.SetText(msg)
		return
	}
	// Not yet demonstrated first; the store's order within each group.
	slices.SortStableFunc(tasks, func(a, b dataset.TaskItem) int {
		return boolInt(a.Demonstrations > 0) - boolInt(b.Demonstrations > 0)
	})
	var keep string
	if p.task != nil {
		keep = p.task.ID
	}
	// An exploration's task only names its start page: it is listed only
	// while it is the chosen one. Tasks named afterwards (cut from an
	// exploration) are counted apart from those written before.
	listed := tasks[:0]
	nd, cut, expl := 0, 0, 0
	for _, t := range tasks {
		if t.Source == dataset.SourceExplore {
			if t.ID != keep {
				continue
			}
			expl++
		}
		listed = append(listed, t)
		if t.Demonstrations == 0 {
			nd++
		}
		if t.Source == dataset.SourceHindsight {
			cut++
		}
	}
	tasks = listed
	p.tasks = tasks
	if cut > 0 {
		p.counts.SetText(fmt.Sprintf("%d to do · %d planned · %d cut", nd, len(tasks)-cut-expl, cut))
	} else {
		p.counts.SetText(fmt.Sprintf("%d to do · %d total", nd, len(tasks)))
	}
	p.queue.Refresh()
	p.chosen = -1
	for i, t := range tasks {
		if t.ID == keep {
			p.chosen = i
			p.queue.Select(i)
			return
		}
	}
	// The chosen task is not in the list any more (another filter): the
	// list must not keep highlighting a row that Start would not record.
	// Between episodes the first task of the new list becomes the choice,
	// as when the tab opens; a running episode keeps its task.
	p.queue.UnselectAll()
	if p.t.life.busy() || keep == "" {
		return
	}
	p.task = nil
	if len(tasks) > 0 {
		p.queue.Select(0)
	} else {
		p.goal.SetText("No task in this category: choose another, or start an ad-hoc one.")
		p.t.sync()
	}
}

// boolInt is 1 for true, 0 for false.
func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// choose shows a task's details.
func (p *taskPanel) choose(id int) {
	if id < 0 || id >= len(p.tasks) {
		return
	}
	if p.t.life.busy() {
		// The running episode keeps its task; the list only browses.
		if p.task != nil && p.tasks[id].ID != p.task.ID {
			p.t.status.setError("An episode is running: finish, discard or restart it before choosing another task.")
			for i, t := range p.tasks {
				if t.ID == p.task.ID {
					p.queue.Select(i)
				}
			}
		}
		return
	}
	p.chosen = id
	t := p.tasks[id].Task
	p.task = &t
	p.show(t)
	p.t.sync()
}

// show shows a task's details under the queue.
func (p *taskPanel) show(t dataset.Task) {
	p.goal.SetText(t.Goal)
	p.badge.Text = strings.ToUpper(t.Category)
	p.badge.Refresh()
	p.badgeBG.FillColor = ui.CategoryColor(t.Category)
	p.badgeBG.Refresh()
	p.startURL.SetText(t.StartURL)
	switch {
	case t.Check == nil:
		p.checkLbl.SetText("no automatic check")
	case t.Check.Kind == action.CheckKindAnswer:
		p.checkLbl.SetText("checked automatically: your answer")
	case t.Check.Kind == action.CheckKindURL:
		p.checkLbl.SetText("checked automatically: the final page")
	default:
		p.checkLbl.SetText("checked automatically: the page's state")
	}
}

// next is the first task of the queue not yet demonstrated, other than
// the current one.
func (p *taskPanel) next() *dataset.Task {
	p.refresh()
	for _, t := range p.tasks {
		if (p.task == nil || t.ID != p.task.ID) && t.Demonstrations == 0 {
			tt := t.Task
			return &tt
		}
	}
	return nil
}

// adhocForm is the open ad-hoc task dialog.
type adhocForm struct {
	d         *ui.FormDialog
	goal, url *ui.DialogEntry
	cat       *ui.DialogSelect
}

// showAdhoc asks for an ad-hoc task, saves it and starts it.
func (p *taskPanel) showAdhoc() { p.showAdhocWith("", dataset.Navigation, "") }

// showAdhocWith opens the ad-hoc task dialog with what was typed before.
// Enter saves and starts (the form refuses an empty goal or start URL and
// stays open, the field saying what to write), Escape cancels; a task the
// store refuses opens the dialog again with the same text under the error.
func (p *taskPanel) showAdhocWith(goalText, category, urlText string) {
	w := p.t.ctx.Window
	if p.t.ctx.Store == nil || w == nil {
		return
	}
	f := &adhocForm{goal: ui.NewDialogWrapEntry(2), url: ui.NewDialogEntry()}
	f.goal.SetPlaceHolder("What should be done, e.g. Find the price of the red kettle")
	f.goal.SetText(goalText)
	f.goal.Validator = func(s string) error {
		if strings.TrimSpace(s) == "" {
			return errors.New("write the goal: what should be done on the page")
		}
		return nil
	}
	f.cat = ui.NewDialogSelect(dataset.Categories, nil)
	f.cat.SetSelected(category)
	f.url.SetPlaceHolder("https://…")
	f.url.SetText(urlText)
	f.url.Validator = func(s string) error {
		switch {
		case strings.TrimSpace(s) == "":
			return errors.New("write the start URL: the page the task begins on, e.g. https://example.com/")
		case action.CheckURL(s) != nil:
			return errors.New("the start URL is an http:// or https:// address with a host, e.g. https://example.com/")
		}
		return nil
	}
	p.adhoc = f
	f.d = ui.ShowForm(w, "Ad-hoc task", "Save and start", "Cancel", []*widget.FormItem{
		{Text: "Goal", Widget: f.goal, HintText: "Enter saves and starts; Shift+Enter starts a new line"},
		{Text: "Category", Widget: f.cat},
		{Text: "Start URL", Widget: f.url},
	}, func(ok bool) {
		if p.adhoc == f {
			p.adhoc = nil
		}
		if !ok {
			return
		}
		t, err := p.saveAdhoc(f.goal.Text, f.cat.Selected, f.url.Text)
		if err != nil {
			p.showAdhocWith(f.goal.Text, f.cat.Selected, f.url.Text)
			ui.ShowError(err, w)
			return
		}
		p.pick(t)
		p.t.life.start(t)
	}, 520)
}

// saveAdhoc stores an ad-hoc task (or finds the same one already stored).
func (p *taskPanel) saveAdhoc(goal, category, url string) (dataset.Task, error) {
	t, err := p.t.ctx.Store.EnsureTask(p.t.lifetime, dataset.Task{Goal: goal, Category: category, StartURL: url, Source: dataset.SourceAdhoc})
	if err != nil {
		return dataset.Task{}, fmt.Errorf("the task was not saved: %w", err)
	}
	return t, nil
}

// fold lays the left column out for a running episode (the queue
// folded to the chosen task, the timeline tall) or for choosing a task
// (the queue tall), keeping the divider offset each mode had last.
func (p *taskPanel) fold(running bool) {
	if p.split == nil || running == p.recLayout {
		return
	}
	if was := boolInt(p.recLayout); p.split.Offset != p.splitSet {
		p.splitAt[was], p.splitOwn[was] = p.split.Offset, true
	}
	p.recLayout = running
	if running {
		p.panelHead.SetText("Recording")
		p.catSel.Hide()
		p.exploreBtn.Hide()
		p.queue.Hide()
		p.taskBtns.Hide()
	} else {
		p.panelHead.SetText("Tasks")
		p.catSel.Show()
		p.exploreBtn.Show()
		p.queue.Show()
		p.taskBtns.Show()
	}
	off := p.defaultOffset(running)
	if m := boolInt(running); p.splitOwn[m] {
		off = p.splitAt[m]
	}
	p.splitSet = off
	p.split.SetOffset(off)
	p.split.Refresh()
}

// rowsShown is how many whole queue rows the list has room for.
func (p *taskPanel) rowsShown() int {
	if !p.queue.Visible() {
		return 0
	}
	pitch := p.queue.CreateItem().MinSize().Height + theme.Padding()
	return int((p.queue.Size().Height + theme.Padding()) / pitch)
}

// minQueueRows is how many tasks the queue shows, at most, between
// episodes before the last episode's steps get the rest; minStepRows is
// how many of those steps (or all, when fewer) are shown whole first, so
// one can be selected to continue from.
const (
	minQueueRows = 8
	minStepRows  = 3
)

// defaultOffset is the divider's place for a mode the person has not
// arranged: while recording the task's details take their minimum and the
// timeline the rest; between episodes the last episode's steps keep room
// for minStepRows whole rows and the queue gets the rest, up to
// minQueueRows rows, the steps what is left over.
func (p *taskPanel) defaultOffset(running bool) float64 {
	if running {
		return 0
	}
	h := float64(p.split.Size().Height - theme.Padding()) // less the divider
	if p.t.steps.len() == 0 || h <= 0 {
		return 1
	}
	pitch := p.queue.CreateItem().MinSize().Height + theme.Padding()
	lead := float64(p.taskPanel.MinSize().Height - p.queue.MinSize().Height + minQueueRows*pitch)
	stepsNeed := float64(p.split.Trailing.MinSize().Height + float32(min(minStepRows, p.t.steps.len()))*p.t.steps.rowPitch())
	return max(0, min(1, lead/h, (h-stepsNeed)/h))
}

// pick makes t the chosen task and shows it, in the list of all
// categories.
func (p *taskPanel) pick(t dataset.Task) {
	p.task = &t
	p.catSel.SetSelectedIndex(0)
	p.refresh()
	p.show(t)
}

// syncStart enables Start when a task is chosen and no episode runs (idle).
func (p *taskPanel) syncStart(idle bool) { ui.SetEnabled(p.startBtn, p.task != nil && idle) }
