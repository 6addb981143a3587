package ui

import (
	"context"
	"errors"
	"fmt"
	"image"
	"image/color"
	"runtime"
	"slices"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"waymark/dataset"
	"waymark/engine"
	"waymark/engine/action"
)

// RecordOptions are what the Record tab needs from the app.
type RecordOptions struct {
	// Open builds the recording engine for one episode of task t (a
	// dataset.Recorder around a browser). It runs off the Fyne goroutine.
	Open func(ctx context.Context, t dataset.Task, s Settings) (*Opened, error)
	// Settings returns the current settings.
	Settings func() Settings
	// ShowSettings opens the Settings dialog (the toolbar's button).
	ShowSettings func()
	// UseLocalBrowser clears the OpenEnv server from the settings, so the
	// next episode runs in the local browser (offered when the server's
	// connection is lost). Nil: not offered.
	UseLocalBrowser func()
	// Debugf, when set, gets timing lines (click→timeline, frames/s).
	Debugf func(format string, args ...any)
}

// Record-tab keyboard shortcuts (toolbar actions). They use Ctrl+Shift so
// they never collide with keys meant for the page.
var (
	ShortcutBack    = &desktop.CustomShortcut{KeyName: fyne.KeyB, Modifier: fyne.KeyModifierControl | fyne.KeyModifierShift}
	ShortcutWait    = &desktop.CustomShortcut{KeyName: fyne.KeyW, Modifier: fyne.KeyModifierControl | fyne.KeyModifierShift}
	ShortcutFinish  = &desktop.CustomShortcut{KeyName: fyne.KeyF, Modifier: fyne.KeyModifierControl | fyne.KeyModifierShift}
	ShortcutDiscard = &desktop.CustomShortcut{KeyName: fyne.KeyD, Modifier: fyne.KeyModifierControl | fyne.KeyModifierShift}
	ShortcutRestart = &desktop.CustomShortcut{KeyName: fyne.KeyR, Modifier: fyne.KeyModifierControl | fyne.KeyModifierShift}
	ShortcutStart   = &desktop.CustomShortcut{KeyName: fyne.KeyS, Modifier: fyne.KeyModifierControl | fyne.KeyModifierShift}
	ShortcutNext    = &desktop.CustomShortcut{KeyName: fyne.KeyN, Modifier: fyne.KeyModifierControl | fyne.KeyModifierShift}
)

// episode states
type recState int

const (
	stIdle recState = iota
	stStarting
	stRecording
	stEnded
)

// stepRow is one line of the timeline.
type stepRow struct {
	idx     int
	act     *action.Action
	text    string
	url     string
	at      time.Time
	latency time.Duration
	err     string
	thumb   image.Image
}

// RecordTab is the Record screen: task queue, live view, toolbar, step
// timeline and status bar. All its methods run on the Fyne goroutine.
type RecordTab struct {
	ctx  *Context
	opts RecordOptions
	b    *Bridge

	view    *LiveView
	content fyne.CanvasObject

	// episode
	state     recState
	task      *dataset.Task
	runner    *Runner
	mapper    *Mapper
	pumpStop  context.CancelFunc
	pump      *FramePump
	frameless bool
	episodeID string
	set       action.Set
	maxSteps  int
	lastURL   string
	typing    string
	scrollDY  int
	queued    []action.Action
	running   *action.Action
	lastClick *image.Point

	// task panel
	catSel   *widget.Select
	queue    *widget.List
	tasks    []dataset.TaskItem
	chosen   int
	goal     *widget.Label
	badge    *canvas.Text
	badgeBG  *canvas.Rectangle
	startURL *widget.Label
	checkLbl *widget.Label
	startBtn *widget.Button
	counts   *widget.Label
	taskBtns *fyne.Container

	// The task panel and the timeline share the left column. While an
	// episode runs the queue folds away to the chosen task and the timeline
	// takes the room; otherwise the queue gets it. The divider offset each
	// mode last had is kept, so a person's own choice sticks.
	split     *container.Split
	taskPanel *fyne.Container
	panelHead *widget.Label // "Tasks", or "Recording" while the queue is folded
	stepsHead *widget.Label
	recLayout bool       // the split is laid out for a running episode
	splitSet  float64    // the offset given last (a different one: dragged)
	splitAt   [2]float64 // a dragged offset per mode: [idle, recording]
	splitOwn  [2]bool    // whether the person dragged the divider in a mode

	// toolbar
	backBtn, waitBtn, finishBtn, discardBtn, restartBtn *widget.Button
	gotoBtn                                             *widget.Button
	recDot                                              *canvas.Circle
	recLbl, engineLbl                                   *widget.Label

	// timeline
	rows     []stepRow
	timeline *widget.List

	// status bar
	stepLbl, urlLbl, errLbl, latLbl *widget.Label

	endDialog dialog.Dialog
	eng       engine.Engine
	selected  int
}

var (
	_ Tab             = (*RecordTab)(nil)
	_ ShortcutHandler = (*RecordTab)(nil)
	_ Shower          = (*RecordTab)(nil)
	_ Closer          = (*RecordTab)(nil)
	_ ShortcutLister  = (*RecordTab)(nil)
)

// NewRecordTab builds the Record tab. b must be the app's bridge.
func NewRecordTab(ctx *Context, b *Bridge, opts RecordOptions) *RecordTab {
	if opts.Settings == nil {
		opts.Settings = DefaultSettings
	}
	r := &RecordTab{ctx: ctx, opts: opts, b: b, chosen: -1, selected: -1}
	r.view = NewLiveView(idleSink{r})
	r.view.Schedule = b.After
	r.view.OnShortcut = r.TypedShortcut
	r.view.OnTouched = func() {
		if r.view.ShowingStill() {
			r.timeline.UnselectAll()
		}
	}
	r.build()
	r.refreshQueue()
	if r.task == nil && len(r.tasks) > 0 {
		r.queue.Select(0) // the first task not yet demonstrated: Start is one click
	}
	r.sync()
	return r
}

// Title implements Tab.
func (r *RecordTab) Title() string { return "Record" }

// Content implements Tab.
func (r *RecordTab) Content() fyne.CanvasObject { return r.content }

// View is the live view (for the window's focus handling and tests).
func (r *RecordTab) View() *LiveView { return r.view }

// Shown refreshes the queue (tasks may have been added elsewhere).
func (r *RecordTab) Shown() {
	if r.state != stRecording && r.state != stStarting {
		r.refreshQueue()
	}
	if c := r.ctx.Window; c != nil {
		c.Canvas().Focus(r.view)
	}
}

func (r *RecordTab) build() {
	// --- task panel ---
	r.catSel = widget.NewSelect(append([]string{"All categories"}, dataset.Categories...), nil)
	r.catSel.SetSelectedIndex(0)
	r.catSel.OnChanged = func(string) { r.refreshQueue() }
	r.counts = widget.NewLabel("")
	r.counts.TextStyle = fyne.TextStyle{Italic: true}
	r.queue = &widget.List{
		Length: func() int { return len(r.tasks) },
		CreateItem: func() fyne.CanvasObject {
			dot := &canvas.Circle{}
			dotBox := container.New(&FixedSize{fyne.NewSize(10, 10)}, dot)
			goal := widget.NewLabel("")
			goal.Truncation = fyne.TextTruncateEllipsis
			n := widget.NewLabel("")
			n.Alignment = fyne.TextAlignTrailing
			return container.NewBorder(nil, nil, container.NewCenter(dotBox), NewFixedWidth(52, n), goal)
		},
		UpdateItem: func(id widget.ListItemID, o fyne.CanvasObject) {
			if id >= len(r.tasks) {
				return
			}
			t := r.tasks[id]
			c := o.(*fyne.Container)
			c.Objects[0].(*widget.Label).SetText(t.Goal)
			dot := c.Objects[1].(*fyne.Container).Objects[0].(*fyne.Container).Objects[0].(*canvas.Circle)
			dot.FillColor = CategoryColor(t.Category)
			dot.Refresh()
			n := c.Objects[2].(*fyne.Container).Objects[0].(*widget.Label)
			if t.Demonstrations > 0 {
				n.SetText(fmt.Sprintf("✓%d", t.Demonstrations))
			} else {
				n.SetText("new")
			}
		},
		OnSelected: func(id widget.ListItemID) { r.choose(id) },
	}
	r.goal = widget.NewLabel("Choose a task from the queue, or start an ad-hoc one.")
	r.goal.Wrapping = fyne.TextWrapWord
	r.goal.TextStyle = fyne.TextStyle{Bold: true}
	r.badgeBG = canvas.NewRectangle(color.Transparent)
	r.badgeBG.CornerRadius = 8
	r.badge = canvas.NewText("", color.White)
	r.badge.TextSize = 11
	r.badge.TextStyle = fyne.TextStyle{Bold: true}
	badge := container.NewStack(r.badgeBG, container.NewPadded(r.badge))
	r.startURL = widget.NewLabel("")
	r.startURL.Truncation = fyne.TextTruncateEllipsis
	r.startURL.TextStyle = fyne.TextStyle{Monospace: true}
	r.checkLbl = widget.NewLabel("")
	r.checkLbl.TextStyle = fyne.TextStyle{Italic: true}
	r.checkLbl.SizeName = theme.SizeNameCaptionText
	r.checkLbl.Truncation = fyne.TextTruncateEllipsis
	r.startBtn = &widget.Button{Text: "Start", Icon: theme.MediaPlayIcon(), Importance: widget.HighImportance, OnTapped: r.startChosen}
	adhoc := &widget.Button{Text: "Ad-hoc task…", Icon: theme.ContentAddIcon(), OnTapped: r.showAdhoc}
	r.taskBtns = container.NewGridWithColumns(2, r.startBtn, adhoc)
	details := container.NewVBox(
		container.NewBorder(nil, nil, badge, nil, r.checkLbl),
		r.goal,
		r.startURL,
		r.taskBtns,
	)
	r.panelHead = widget.NewLabelWithStyle("Tasks", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	queueHead := container.NewBorder(nil, nil, r.panelHead, r.counts)
	r.taskPanel = container.NewBorder(container.NewVBox(queueHead, r.catSel), details, nil, nil, r.queue)

	// --- timeline ---
	r.timeline = &widget.List{
		Length: func() int { return len(r.rows) },
		CreateItem: func() fyne.CanvasObject {
			img := &canvas.Image{FillMode: canvas.ImageFillContain, ScaleMode: canvas.ImageScaleSmooth}
			img.SetMinSize(fyne.NewSize(88, 66))
			act := widget.NewLabel("")
			act.TextStyle = fyne.TextStyle{Bold: true, Monospace: true}
			act.Truncation = fyne.TextTruncateEllipsis
			url := widget.NewLabel("")
			url.Truncation = fyne.TextTruncateEllipsis
			meta := widget.NewLabel("")
			meta.SizeName = theme.SizeNameCaptionText
			return container.NewBorder(nil, nil, img, nil, container.New(&TightVBox{}, act, url, meta))
		},
		UpdateItem: func(id widget.ListItemID, o fyne.CanvasObject) {
			if id >= len(r.rows) {
				return
			}
			row := r.rows[id]
			c := o.(*fyne.Container)
			texts := c.Objects[0].(*fyne.Container).Objects
			img := c.Objects[1].(*canvas.Image)
			img.Image = row.thumb
			img.Refresh()
			texts[0].(*widget.Label).SetText(fmt.Sprintf("%d · %s", row.idx, row.text))
			texts[1].(*widget.Label).SetText(row.url)
			meta := row.at.Local().Format("15:04:05")
			if row.latency > 0 {
				meta += fmt.Sprintf(" · %d ms", row.latency.Milliseconds())
			}
			if row.err != "" {
				meta += " · ⚠ " + row.err
			}
			texts[2].(*widget.Label).SetText(meta)
		},
		OnSelected:   func(id widget.ListItemID) { r.preview(id) },
		OnUnselected: func(widget.ListItemID) { r.selected = -1; r.view.ShowLive() },
	}
	r.stepsHead = widget.NewLabelWithStyle(stepsHeadEmpty, fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	r.stepsHead.Truncation = fyne.TextTruncateEllipsis
	stepsHead := r.stepsHead
	keys := widget.NewLabel("Keys (Ctrl+Shift+…): S start · N next task · R restart\nB back · W wait · F finish · D discard")
	keys.SizeName = theme.SizeNameCaptionText
	// The timeline may shrink to nothing: the divider, not its one-row
	// minimum, decides how much room the queue gets.
	stepsPanel := container.NewBorder(stepsHead, container.NewVBox(widget.NewSeparator(), keys), nil, nil, container.New(noMinHeight{}, r.timeline))
	r.split = container.NewVSplit(r.taskPanel, stepsPanel)
	r.split.Offset = 1 // the queue gets the room until an episode starts
	r.splitSet = 1
	left := NewFixedWidth(340, r.split)

	// --- toolbar ---
	r.backBtn = &widget.Button{Text: "Back", Icon: theme.NavigateBackIcon(), OnTapped: func() { r.act(action.Action{Op: action.Back}) }}
	r.waitBtn = &widget.Button{Text: "Wait", Icon: theme.HistoryIcon(), OnTapped: func() { r.act(action.Action{Op: action.Wait}) }}
	r.finishBtn = &widget.Button{Text: "Finish…", Icon: theme.ConfirmIcon(), Importance: widget.HighImportance, OnTapped: r.askFinish}
	r.discardBtn = &widget.Button{Text: "Discard", Icon: theme.DeleteIcon(), Importance: widget.DangerImportance, OnTapped: r.askDiscard}
	r.restartBtn = &widget.Button{Text: "Restart", Icon: theme.ViewRefreshIcon(), OnTapped: r.askRestart}
	r.gotoBtn = &widget.Button{Text: "Go to…", Icon: theme.SearchIcon(), OnTapped: r.askGoto}
	settingsBtn := &widget.Button{Icon: theme.SettingsIcon(), Importance: widget.LowImportance, OnTapped: func() {
		if r.opts.ShowSettings != nil {
			r.opts.ShowSettings()
		}
	}}
	r.recDot = &canvas.Circle{FillColor: color.NRGBA{0x88, 0x88, 0x88, 0xff}}
	r.recLbl = widget.NewLabel("Not recording")
	r.engineLbl = widget.NewLabel("")
	r.engineLbl.SizeName = theme.SizeNameCaptionText
	toolbar := container.NewHBox(r.backBtn, r.waitBtn, r.gotoBtn, r.finishBtn, widget.NewSeparator(), r.restartBtn, r.discardBtn,
		layout.NewSpacer(), container.NewCenter(container.New(&FixedSize{fyne.NewSize(12, 12)}, r.recDot)), r.recLbl, settingsBtn)

	// --- status bar ---
	r.stepLbl = widget.NewLabel("")
	r.stepLbl.TextStyle = fyne.TextStyle{Bold: true}
	r.urlLbl = widget.NewLabel("")
	r.urlLbl.Truncation = fyne.TextTruncateEllipsis
	r.urlLbl.TextStyle = fyne.TextStyle{Monospace: true}
	r.errLbl = widget.NewLabel("")
	r.errLbl.Importance = widget.DangerImportance
	r.errLbl.Truncation = fyne.TextTruncateEllipsis
	r.latLbl = widget.NewLabel("")
	status := container.NewBorder(nil, nil, container.NewHBox(r.stepLbl, widget.NewSeparator()), container.NewHBox(widget.NewSeparator(), r.latLbl, widget.NewSeparator(), r.engineLbl),
		container.NewGridWithColumns(2, r.urlLbl, r.errLbl))

	center := container.NewBorder(container.NewVBox(toolbar, widget.NewSeparator()), nil, nil, nil, newPixelCenterWithHeader(r.view, r.view.Banner(), r.view.FocusRing()...))
	r.content = container.NewBorder(nil, container.NewVBox(widget.NewSeparator(), status), left, nil, center)
}

// --- task queue ---

func (r *RecordTab) refreshQueue() {
	if r.ctx.Store == nil {
		return
	}
	f := dataset.TaskFilter{}
	if i := r.catSel.SelectedIndex(); i > 0 {
		f.Category = dataset.Categories[i-1]
	}
	tasks, err := r.ctx.Store.ListTasks(f)
	if err != nil {
		r.setError("Cannot read the task list: " + err.Error())
		return
	}
	// Not yet demonstrated first; the store's order within each group.
	slices.SortStableFunc(tasks, func(a, b dataset.TaskItem) int {
		return boolInt(a.Demonstrations > 0) - boolInt(b.Demonstrations > 0)
	})
	var keep string
	if r.task != nil {
		keep = r.task.ID
	}
	r.tasks = tasks
	nd := 0
	for _, t := range tasks {
		if t.Demonstrations == 0 {
			nd++
		}
	}
	r.counts.SetText(fmt.Sprintf("%d to do · %d total", nd, len(tasks)))
	r.queue.Refresh()
	r.chosen = -1
	for i, t := range tasks {
		if t.ID == keep {
			r.chosen = i
			r.queue.Select(i)
			return
		}
	}
	// The chosen task is not in the list any more (another filter): the
	// list must not keep highlighting a row that Start would not record.
	// Between episodes the first task of the new list becomes the choice,
	// as when the tab opens; a running episode keeps its task.
	r.queue.UnselectAll()
	if r.state == stRecording || r.state == stStarting || keep == "" {
		return
	}
	r.task = nil
	if len(tasks) > 0 {
		r.queue.Select(0)
	} else {
		r.goal.SetText("No task in this category: choose another, or start an ad-hoc one.")
		r.sync()
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// choose shows a task's details.
func (r *RecordTab) choose(id int) {
	if id < 0 || id >= len(r.tasks) {
		return
	}
	if r.state == stRecording || r.state == stStarting {
		// The running episode keeps its task; the list only browses.
		if r.task != nil && r.tasks[id].ID != r.task.ID {
			r.setError("An episode is running: finish, discard or restart it before choosing another task.")
			for i, t := range r.tasks {
				if t.ID == r.task.ID {
					r.queue.Select(i)
				}
			}
		}
		return
	}
	r.chosen = id
	t := r.tasks[id].Task
	r.task = &t
	r.showTask(t)
	r.sync()
}

func (r *RecordTab) showTask(t dataset.Task) {
	r.goal.SetText(t.Goal)
	r.badge.Text = strings.ToUpper(t.Category)
	r.badge.Refresh()
	r.badgeBG.FillColor = CategoryColor(t.Category)
	r.badgeBG.Refresh()
	r.startURL.SetText(t.StartURL)
	switch {
	case t.Check == nil:
		r.checkLbl.SetText("no automatic check")
	case t.Check.Kind == action.CheckKindAnswer:
		r.checkLbl.SetText("checked automatically: your answer")
	case t.Check.Kind == action.CheckKindURL:
		r.checkLbl.SetText("checked automatically: the final page")
	default:
		r.checkLbl.SetText("checked automatically: the page's state")
	}
}

// showAdhoc asks for an ad-hoc task, saves it and starts it.
func (r *RecordTab) showAdhoc() {
	if r.ctx.Store == nil || r.ctx.Window == nil {
		return
	}
	goal := widget.NewMultiLineEntry()
	goal.SetPlaceHolder("What should be done, e.g. Find the price of the red kettle")
	goal.SetMinRowsVisible(2)
	goal.Wrapping = fyne.TextWrapWord
	cat := widget.NewSelect(dataset.Categories, nil)
	cat.SetSelected(dataset.Navigation)
	url := widget.NewEntry()
	url.SetPlaceHolder("https://…")
	d := dialog.NewForm("Ad-hoc task", "Save and start", "Cancel", []*widget.FormItem{
		{Text: "Goal", Widget: goal},
		{Text: "Category", Widget: cat},
		{Text: "Start URL", Widget: url},
	}, func(ok bool) {
		if !ok {
			return
		}
		t, err := r.saveAdhoc(goal.Text, cat.Selected, url.Text)
		if err != nil {
			dialog.ShowError(err, r.ctx.Window)
			return
		}
		r.catSel.SetSelectedIndex(0)
		r.task = &t
		r.refreshQueue()
		r.showTask(t)
		r.start(t)
	}, r.ctx.Window)
	d.Resize(fyne.NewSize(520, 0))
	d.Show()
}

// saveAdhoc stores an ad-hoc task (or finds the same one already stored).
func (r *RecordTab) saveAdhoc(goal, category, url string) (dataset.Task, error) {
	t := dataset.Task{Goal: goal, Category: category, StartURL: url, Source: dataset.SourceAdhoc}
	saved, err := r.ctx.Store.AddTask(t)
	if errors.Is(err, dataset.ErrDuplicateTask) {
		found, ok, ferr := r.ctx.Store.FindTask(goal, url)
		if ferr == nil && ok {
			return found, nil
		}
	}
	if err != nil {
		return dataset.Task{}, fmt.Errorf("the task was not saved: %w", err)
	}
	return saved, nil
}

// --- episode control ---

func (r *RecordTab) startChosen() {
	if r.task == nil {
		r.setError("Choose a task first.")
		return
	}
	r.start(*r.task)
}

// StartTask starts recording t (the Tasks tab and --start-task use it).
func (r *RecordTab) StartTask(t dataset.Task) {
	if r.state == stRecording || r.state == stStarting {
		r.setError("An episode is running: finish, discard or restart it first.")
		return
	}
	r.task = &t
	r.catSel.SetSelectedIndex(0)
	r.refreshQueue()
	r.showTask(t)
	r.start(t)
}

func (r *RecordTab) start(t dataset.Task) {
	if r.opts.Open == nil {
		r.setError("Recording is not available in this build.")
		return
	}
	if r.state == stRecording || r.state == stStarting {
		return
	}
	s := r.opts.Settings()
	if strings.TrimSpace(s.Annotator) == "" && r.ctx.Window != nil {
		AskAnnotator(r.ctx.Window, func(name string) {
			s.Annotator = name
			if r.ctx.App != nil {
				s.Save(r.ctx.App.Preferences())
			}
			r.start(t)
		})
		return
	}
	if r.endDialog != nil {
		r.endDialog.Hide()
		r.endDialog = nil
	}
	r.task = &t
	r.state = stStarting
	r.set = s.ActionSet
	r.maxSteps = s.MaxSteps
	r.episodeID = ""
	r.frameless = false
	r.rows = nil
	r.queued, r.running, r.typing, r.scrollDY = nil, nil, "", 0
	r.lastClick = nil
	r.timeline.UnselectAll()
	r.timeline.Refresh()
	r.view.ShowLive()
	r.view.SetHint("Starting the browser…", true)
	r.setError("")
	r.latLbl.SetText("")
	r.mapper = NewMapper(s.ActionSet, MapperEvents{
		Emit: func(a action.Action) {
			if rr := r.runner; rr != nil && !rr.Push(a) {
				r.b.Do(func() { r.setError("Not sent: the episode has ended (" + a.String() + ").") })
			}
		},
		Pending: func(text string, dy int) {
			if r.opts.Debugf != nil && text != "" {
				// The length only: the text may be a password.
				r.opts.Debugf("typing %d characters not yet sent", len([]rune(text)))
			}
			r.b.Do(func() { r.typing, r.scrollDY = text, dy; r.showPending() })
		},
		Refused: func(msg string) { r.b.Do(func() { r.setError(msg) }) },
	})
	task := t
	open := func(ctx context.Context) (*Opened, error) { return r.opts.Open(ctx, task, s) }
	reset := engine.ResetOptions{StartURL: t.StartURL, Check: t.Check}
	var runner *Runner
	runner = StartRunner(open, reset, RunnerEvents{
		Opened:  func(o *Opened) { r.b.Do(func() { r.opened(runner, o) }) },
		Reset:   func(obs action.Observation, err error) { r.b.Do(func() { r.resetDone(runner, obs, err) }) },
		Pending: func(run *action.Action, q []action.Action) { r.b.Do(func() { r.pending(runner, run, q) }) },
		Step:    func(res StepResult) { r.b.Do(func() { r.stepDone(runner, res) }) },
		Ended: func(reason string, last action.Observation, dropped []action.Action) {
			r.b.Do(func() { r.ended(runner, reason, last, dropped) })
		},
		Lost:   func(err error) { r.b.Do(func() { r.connectionLost(runner, t, err) }) },
		Closed: func(err error) { r.b.Do(func() { r.closed(runner, err) }) },
	})
	r.runner = runner
	r.view.Sink = r.mapper
	r.setTitle("Recording: " + t.Goal)
	r.sync()
	if r.ctx.Window != nil {
		r.ctx.Window.Canvas().Focus(r.view)
	}
}

// connectionLost tells that the OpenEnv server went away: the episode is
// saved as interrupted with every step, and the person chooses how to go on.
func (r *RecordTab) connectionLost(run *Runner, t dataset.Task, err error) {
	if run != r.runner {
		return
	}
	steps := max(0, len(r.rows)-1)
	msg := fmt.Sprintf("%v.\n\nThe episode was saved as interrupted, with its %s. Start it again on the server once it is back, or go on in the local browser.",
		err, Plural(steps, "step"))
	r.setError("The connection to the OpenEnv server was lost: the episode was saved as interrupted.")
	w := r.ctx.Window
	if w == nil {
		return
	}
	label := widget.NewLabel(msg)
	label.Wrapping = fyne.TextWrapWord
	var d *dialog.CustomDialog
	again := &widget.Button{Text: "Start again on the server", Importance: widget.HighImportance, OnTapped: func() {
		d.Hide()
		r.StartTask(t)
	}}
	buttons := []fyne.CanvasObject{&widget.Button{Text: "Close", OnTapped: func() { d.Hide() }}}
	if r.opts.UseLocalBrowser != nil {
		buttons = append(buttons, &widget.Button{Text: "Switch to the local browser", OnTapped: func() {
			d.Hide()
			r.opts.UseLocalBrowser()
			r.StartTask(t)
		}})
	}
	buttons = append(buttons, again)
	d = dialog.NewCustomWithoutButtons("Connection to the server lost", label, w)
	d.SetButtons(buttons)
	d.Resize(fyne.NewSize(560, 0))
	d.Show()
	WithKeys(w, d, nil)
}

func (r *RecordTab) opened(run *Runner, o *Opened) {
	if run != r.runner {
		return
	}
	r.eng = o.Engine // its EpisodeID is known after Reset
	r.engineLbl.SetText(engineText(o.Engine.Info()))
	if o.Frames == nil {
		r.frameless = true
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	r.pumpStop = cancel
	r.pump = NewFramePump(r.b, func(img *image.RGBA) {
		if run == r.runner {
			r.view.SetFrame(img)
		}
	})
	go r.pump.Run(ctx, o.Frames)
	if r.opts.Debugf != nil {
		go r.logFPS(ctx, r.pump)
	}
}

func (r *RecordTab) logFPS(ctx context.Context, p *FramePump) {
	t := time.NewTicker(time.Second)
	defer t.Stop()
	var lastD, lastS uint64
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			d, s := p.Counts()
			if s != lastS {
				r.opts.Debugf("frames/s shown=%d decoded=%d", s-lastS, d-lastD)
			}
			lastD, lastS = d, s
		}
	}
}

func (r *RecordTab) resetDone(run *Runner, obs action.Observation, err error) {
	if run != r.runner {
		return
	}
	if err != nil {
		r.setError("The episode could not start: " + err.Error())
		return
	}
	r.state = stRecording
	if e, ok := r.eng.(interface{ EpisodeID() string }); ok {
		r.episodeID = e.EpisodeID()
	}
	r.view.SetHint("", false)
	if r.opts.Debugf != nil {
		if app := fyne.CurrentApp(); app != nil {
			pos := app.Driver().AbsolutePositionForObject(r.view)
			scale := float32(1)
			if c := app.Driver().CanvasForObject(r.view); c != nil {
				scale = c.Scale()
			}
			r.opts.Debugf("liveview at %g,%g size %gx%g scale %g episode %s", pos.X, pos.Y, r.view.Size().Width, r.view.Size().Height, scale, r.episodeID)
		}
	}
	r.addRow(stepRow{idx: 0, text: "start", url: obs.URL, at: time.Now(), err: ObservationError(obs.Error)}, obs)
	r.lastURL = obs.URL
	r.setError(ObservationError(obs.Error))
	r.sync()
}

func (r *RecordTab) pending(run *Runner, running *action.Action, q []action.Action) {
	if run != r.runner {
		return
	}
	r.running, r.queued = running, q
	r.showPending()
}

func (r *RecordTab) showPending() {
	var parts []string
	if r.running != nil {
		parts = append(parts, "▶ "+r.running.String())
	}
	if n := len(r.queued); n > 0 {
		s := make([]string, 0, 3)
		for i, a := range r.queued {
			if i == 3 {
				s = append(s, "…")
				break
			}
			s = append(s, a.String())
		}
		parts = append(parts, fmt.Sprintf("queued %d: %s", n, strings.Join(s, ", ")))
	}
	if r.scrollDY != 0 {
		parts = append(parts, fmt.Sprintf("scroll %+d…", r.scrollDY))
	}
	if r.typing != "" {
		t := []rune(r.typing)
		if len(t) > 40 {
			t = append([]rune("…"), t[len(t)-40:]...)
		}
		parts = append(parts, "typing “"+string(t)+"▌”")
	}
	r.view.SetPending(strings.Join(parts, "   "))
}

func (r *RecordTab) stepDone(run *Runner, res StepResult) {
	if run != r.runner {
		return
	}
	a := res.Action
	row := stepRow{idx: len(r.rows), act: &a, text: a.String(), url: res.Obs.URL, at: time.Now(), latency: res.Latency}
	if res.Err != nil {
		// Not performed: the timeline shows only recorded steps.
		r.setError(StepError(res.Err))
		return
	}
	if res.Obs.Step > 0 {
		row.idx = res.Obs.Step
	}
	row.err = ObservationError(res.Obs.Error)
	r.addRow(row, res.Obs)
	if a.Op == action.Click && a.X != nil && a.Y != nil {
		r.lastClick = &image.Point{X: *a.X, Y: *a.Y}
		if r.opts.Debugf != nil {
			d := time.Since(res.Queued)
			r.opts.Debugf("click→timeline %d ms (step %d: queued %d ms, engine %d ms, to the screen %d ms)", d.Milliseconds(), row.idx,
				res.Started.Sub(res.Queued).Milliseconds(), res.Latency.Milliseconds(), time.Since(res.Started.Add(res.Latency)).Milliseconds())
		}
	}
	r.lastURL = res.Obs.URL
	r.latLbl.SetText(fmt.Sprintf("%d ms", res.Latency.Milliseconds()))
	r.setError(row.err)
	r.sync()
}

// addRow appends a timeline row and makes its thumbnail off the Fyne
// goroutine.
func (r *RecordTab) addRow(row stepRow, obs action.Observation) {
	r.rows = append(r.rows, row)
	i := len(r.rows) - 1
	r.timeline.Refresh()
	r.timeline.ScrollToBottom()
	shot := obs.Screenshot
	ep := r.episodeID
	run := r.runner
	frameless := r.frameless
	go func() {
		var thumb image.Image
		if r.ctx.Store != nil && ep != "" {
			thumb, _ = r.ctx.Store.ThumbnailImage(ep, row.idx)
		}
		if thumb == nil && len(shot) > 0 {
			if b, err := dataset.MakeThumbnail(shot); err == nil {
				thumb, _ = decodePNG(b)
			}
		}
		var full *image.RGBA
		if frameless && len(shot) > 0 {
			if img, err := decodePNG(shot); err == nil {
				full = ToRGBA(img)
			}
		}
		r.b.Do(func() {
			if run != r.runner || i >= len(r.rows) {
				return
			}
			r.rows[i].thumb = thumb
			r.timeline.RefreshItem(i)
			if full != nil {
				r.view.SetFrame(full)
			}
		})
	}()
}

func (r *RecordTab) ended(run *Runner, reason string, last action.Observation, dropped []action.Action) {
	if run != r.runner {
		return
	}
	r.state = stEnded
	r.view.Sink = idleSink{r}
	r.setTitle("")
	r.queued, r.running, r.typing, r.scrollDY = nil, nil, "", 0
	r.showPending()
	r.sync()
	if r.opts.Debugf != nil {
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		r.opts.Debugf("episode %s ended reason=%s steps=%d heap_inuse_mb=%.1f", r.episodeID, reason, max(0, len(r.rows)-1), float64(ms.HeapInuse)/(1<<20))
	}
	if reason == action.EndInterrupted {
		return // the window is closing
	}
	msg := EndReason(reason)
	if len(dropped) > 0 {
		msg += fmt.Sprintf("\n%s made after the end %s not sent.", Plural(len(dropped), "input"), map[bool]string{true: "was", false: "were"}[len(dropped) == 1])
	}
	r.setError("")
	if reason == action.EndDiscarded {
		r.setStatus("Episode discarded.")
		return
	}
	check := CheckResult(last.Reward)
	r.ctx.Notifyf("Waymark: episode ended", strings.TrimSpace(msg+" "+check))
	r.showEnd(msg, last, check)
}

func (r *RecordTab) showEnd(msg string, last action.Observation, check string) {
	if r.ctx.Window == nil {
		return
	}
	lines := []fyne.CanvasObject{widget.NewLabelWithStyle(msg, fyne.TextAlignLeading, fyne.TextStyle{Bold: true})}
	if last.Answer != "" {
		lines = append(lines, widget.NewLabel("Your answer: “"+last.Answer+"”"))
	}
	if check != "" {
		l := widget.NewLabel(check)
		if last.Reward != nil && *last.Reward >= 1 {
			l.Importance = widget.SuccessImportance
		} else {
			l.Importance = widget.WarningImportance
		}
		lines = append(lines, l)
		if want := r.expectedAnswer(last); want != "" {
			w := widget.NewLabel("Accepted answers: " + want)
			w.Wrapping = fyne.TextWrapWord
			lines = append(lines, w)
		}
	}
	lines = append(lines, widget.NewLabel(Plural(max(0, len(r.rows)-1), "step")+" saved."))
	next := r.nextTask()
	var d *dialog.CustomDialog
	buttons := []fyne.CanvasObject{&widget.Button{Text: "Stay here", OnTapped: func() { d.Hide() }}}
	if next != nil {
		t := *next
		nl := widget.NewLabel("Next: " + t.Goal)
		nl.Wrapping = fyne.TextWrapWord
		lines = append(lines, widget.NewSeparator(), nl)
		buttons = append(buttons, &widget.Button{Text: "Start next task (Ctrl+Shift+N)", Icon: theme.MediaPlayIcon(), Importance: widget.HighImportance, OnTapped: func() {
			d.Hide()
			r.StartTask(t)
		}})
	}
	d = dialog.NewCustomWithoutButtons("Episode ended", container.NewVBox(lines...), r.ctx.Window)
	d.SetButtons(buttons)
	d.Resize(fyne.NewSize(460, 0))
	r.endDialog = d
	d.Show()
	// Enter: the highlighted button (the next task, else Stay here).
	enter := buttons[len(buttons)-1].(*widget.Button).OnTapped
	WithKeys(r.ctx.Window, d, enter)
}

// expectedAnswer lists the accepted answers of the task's answer check
// when the episode's answer did not pass it ("" otherwise): the episode is
// over, so showing them teaches without giving anything away.
func (r *RecordTab) expectedAnswer(last action.Observation) string {
	if r.task == nil || r.task.Check == nil || r.task.Check.Kind != action.CheckKindAnswer {
		return ""
	}
	if last.Reward == nil || *last.Reward >= 1 {
		return ""
	}
	return ExpectedAnswers(r.task.Check.Answer)
}

// nextTask is the first task of the queue not yet demonstrated, other than
// the current one.
func (r *RecordTab) nextTask() *dataset.Task {
	r.refreshQueue()
	for _, t := range r.tasks {
		if (r.task == nil || t.ID != r.task.ID) && t.Demonstrations == 0 {
			tt := t.Task
			return &tt
		}
	}
	return nil
}

func (r *RecordTab) closed(run *Runner, err error) {
	if run != r.runner {
		return
	}
	if r.pumpStop != nil {
		r.pumpStop()
		r.pumpStop = nil
	}
	if r.state == stStarting || r.state == stRecording {
		r.state = stEnded
		r.view.Sink = idleSink{r}
		r.setTitle("")
	}
	if err != nil {
		msg := "The browser could not start or stopped: " + err.Error()
		r.setError(msg)
		if len(r.rows) == 0 {
			r.view.SetHint("Could not start: see the status bar", true)
			// The status bar cuts long messages: the whole one, in words.
			if w := r.ctx.Window; w != nil {
				dialog.ShowError(errors.New(msg), w)
			}
		}
	} else if len(r.rows) == 0 {
		r.view.SetHint("Choose a task and press Start", true) // stopped before the page opened
	}
	r.sync()
}

// act performs a toolbar action (pending text goes first).
func (r *RecordTab) act(a action.Action) {
	if r.state != stRecording || r.mapper == nil {
		return
	}
	r.mapper.Do(a)
	r.focusView()
}

// engineText says where the episode runs, e.g. "Chromium 156 · Xvfb ·
// default actions".
func engineText(i engine.Info) string {
	var parts []string
	switch {
	case i.Kind == "openenv":
		parts = append(parts, "OpenEnv "+i.Server)
	default:
		if f := strings.Fields(i.Browser); len(f) >= 2 {
			parts = append(parts, f[0]+" "+strings.SplitN(f[1], ".", 2)[0]) // "Chromium 156"
		}
		if i.Display != "" {
			parts = append(parts, i.Display)
		}
	}
	if i.ActionSet != "" {
		parts = append(parts, string(i.ActionSet)+" actions")
	}
	return strings.Join(parts, " · ")
}

// plannedEngine says where the next episode runs, from the settings.
func plannedEngine(s Settings) string {
	where := "local browser"
	switch {
	case s.Server != "":
		where = "OpenEnv server " + s.Server
	case s.Display != "":
		where += " (" + s.Display + ")"
	}
	set := s.ActionSet
	if set == "" {
		set = action.SetDefault
	}
	return "Next episode: " + where + " · " + string(set) + " actions"
}

// setTitle shows what is being recorded in the window title.
func (r *RecordTab) setTitle(what string) {
	if r.ctx.Window == nil {
		return
	}
	if rs := []rune(what); len(rs) > 70 {
		what = string(rs[:70]) + "…"
	}
	if what == "" {
		r.ctx.Window.SetTitle("Waymark")
		return
	}
	r.ctx.Window.SetTitle("Waymark · " + what)
}

// focusView gives the keyboard back to the page after a toolbar action.
func (r *RecordTab) focusView() {
	if r.ctx.Window != nil {
		r.ctx.Window.Canvas().Focus(r.view)
	}
}

// Finish ends the episode with answer; information tasks need one.
func (r *RecordTab) Finish(answer string) error {
	if r.state != stRecording || r.mapper == nil {
		return errors.New("no episode is being recorded")
	}
	cat := ""
	if r.task != nil {
		cat = r.task.Category
	}
	if err := FinishAnswerError(cat, answer); err != nil {
		return err
	}
	r.mapper.Do(action.FinishWith(strings.TrimSpace(answer)))
	return nil
}

func (r *RecordTab) askFinish() {
	if r.state != stRecording || r.ctx.Window == nil {
		return
	}
	r.mapper.Flush()
	cat := ""
	if r.task != nil {
		cat = r.task.Category
	}
	ans := widget.NewEntry()
	hint := "Optional: the answer, if the task asks for one"
	if cat == dataset.Information {
		hint = "Required for information tasks"
		ans.SetPlaceHolder("The answer you found")
	}
	ans.Validator = func(s string) error { return FinishAnswerError(cat, s) }
	var d *dialog.FormDialog
	d = dialog.NewForm("Finish the task", "Finish", "Cancel", []*widget.FormItem{{Text: "Answer", Widget: ans, HintText: hint}}, func(ok bool) {
		if ok {
			if err := r.Finish(ans.Text); err != nil {
				r.setError(err.Error())
			}
		}
		r.ctx.Window.Canvas().Focus(r.view)
	}, r.ctx.Window)
	ans.OnSubmitted = func(string) { d.Submit() } // Enter finishes (when the answer is valid)
	d.Resize(fyne.NewSize(460, 0))
	d.Show()
	r.ctx.Window.Canvas().Focus(ans)
}

// askGoto asks for an address and sends goto (extended set).
func (r *RecordTab) askGoto() {
	if r.state != stRecording || !r.set.HasOp(action.Goto) || r.ctx.Window == nil {
		return
	}
	u := widget.NewEntry()
	u.SetPlaceHolder("https://…")
	u.Validator = action.CheckURL
	var d *dialog.FormDialog
	d = dialog.NewForm("Go to an address", "Go", "Cancel", []*widget.FormItem{{Text: "URL", Widget: u}}, func(ok bool) {
		if ok {
			r.act(action.Action{Op: action.Goto, URL: strings.TrimSpace(u.Text)})
		}
	}, r.ctx.Window)
	u.OnSubmitted = func(string) { d.Submit() }
	d.Resize(fyne.NewSize(520, 0))
	d.Show()
	r.ctx.Window.Canvas().Focus(u)
}

func (r *RecordTab) askDiscard() {
	if r.runner == nil || (r.state != stRecording && r.state != stStarting) {
		return
	}
	confirm(r.ctx.Window, "Discard this episode?", "Its steps stay on disk, marked discarded, and are left out of exports.", func() {
		r.discard()
	})
}

func (r *RecordTab) discard() {
	if r.mapper != nil {
		r.mapper.Drop()
	}
	if r.runner != nil {
		r.runner.Stop(action.EndDiscarded, false)
	}
}

func (r *RecordTab) askRestart() {
	if r.task == nil || r.state == stIdle || r.state == stStarting {
		return
	}
	t := *r.task
	if r.state == stEnded {
		r.start(t)
		return
	}
	confirm(r.ctx.Window, "Restart the task?", "The current episode is discarded (kept on disk, marked discarded) and a new one starts.", func() {
		run := r.runner
		r.discard()
		go func() {
			<-run.Done()
			r.b.Do(func() { r.start(t) })
		}()
	})
}

func confirm(w fyne.Window, title, msg string, yes func()) {
	if w == nil {
		yes()
		return
	}
	showConfirm(w, title, msg, func(ok bool) {
		if ok {
			yes()
		}
	})
}

// shortcutAltLeft is the browsers' Back key, accepted as well.
var shortcutAltLeft = &desktop.CustomShortcut{KeyName: fyne.KeyLeft, Modifier: fyne.KeyModifierAlt}

// Shortcuts are the toolbar's keyboard shortcuts (ShortcutLister).
func (r *RecordTab) Shortcuts() []fyne.Shortcut {
	return []fyne.Shortcut{ShortcutBack, shortcutAltLeft, ShortcutWait, ShortcutFinish, ShortcutDiscard, ShortcutRestart, ShortcutStart, ShortcutNext}
}

// TypedShortcut runs the toolbar's keyboard shortcuts.
func (r *RecordTab) TypedShortcut(s fyne.Shortcut) bool {
	cs, ok := s.(*desktop.CustomShortcut)
	if !ok {
		return false
	}
	switch cs.ShortcutName() {
	case ShortcutBack.ShortcutName(), shortcutAltLeft.ShortcutName():
		r.act(action.Action{Op: action.Back})
	case ShortcutWait.ShortcutName():
		r.act(action.Action{Op: action.Wait})
	case ShortcutFinish.ShortcutName():
		r.askFinish()
	case ShortcutDiscard.ShortcutName():
		r.askDiscard()
	case ShortcutRestart.ShortcutName():
		r.askRestart()
	case ShortcutStart.ShortcutName():
		if r.state == stIdle || r.state == stEnded {
			r.startChosen()
		}
	case ShortcutNext.ShortcutName():
		if r.state == stIdle || r.state == stEnded {
			if t := r.nextTask(); t != nil {
				r.StartTask(*t)
			}
		}
	default:
		return false
	}
	return true
}

// preview shows a recorded step: the page before the action, with the
// action drawn on it (step 0: the start page).
func (r *RecordTab) preview(id int) {
	if id < 0 || id >= len(r.rows) {
		return
	}
	row := r.rows[id]
	ep := r.episodeID
	before := row.idx - 1
	if row.idx == 0 {
		before = 0
	}
	var pointer *image.Point
	for j := id - 1; j >= 0; j-- {
		if a := r.rows[j].act; a != nil && a.Op == action.Click && a.X != nil {
			pointer = &image.Point{X: *a.X, Y: *a.Y}
			break
		}
	}
	banner := fmt.Sprintf("Step %d: %s — the page before it. Click the picture to return to the live page.", row.idx, row.text)
	if row.idx == 0 {
		banner = "Step 0: the start page. Click the picture to return to the live page."
	}
	if r.ctx.Store == nil || ep == "" {
		r.view.ShowStill(nil, row.act, pointer, banner)
		return
	}
	go func() {
		png, err := r.ctx.Store.Screenshot(ep, before)
		var img image.Image
		if err == nil && len(png) > 0 {
			img, _ = decodePNG(png)
		}
		r.b.Do(func() {
			if sel := r.timelineSelected(); sel == id {
				r.view.ShowStill(img, row.act, pointer, banner)
			}
		})
	}()
	r.selected = id
}

func (r *RecordTab) timelineSelected() int { return r.selected }

// --- status ---

// foldQueue lays the left column out for a running episode (the queue
// folded to the chosen task, the timeline tall) or for choosing a task
// (the queue tall), keeping the divider offset each mode had last.
func (r *RecordTab) foldQueue(running bool) {
	if r.split == nil || running == r.recLayout {
		return
	}
	if was := boolInt(r.recLayout); r.split.Offset != r.splitSet {
		r.splitAt[was], r.splitOwn[was] = r.split.Offset, true
	}
	r.recLayout = running
	if running {
		r.panelHead.SetText("Recording")
		r.catSel.Hide()
		r.queue.Hide()
		r.taskBtns.Hide()
	} else {
		r.panelHead.SetText("Tasks")
		r.catSel.Show()
		r.queue.Show()
		r.taskBtns.Show()
	}
	off := r.defaultOffset(running)
	if m := boolInt(running); r.splitOwn[m] {
		off = r.splitAt[m]
	}
	r.splitSet = off
	r.split.SetOffset(off)
	r.split.Refresh()
}

// Timeline headings: before the first episode, and once it has steps.
const (
	stepsHeadEmpty = "Steps · they appear here as you record"
	stepsHeadSteps = "Steps · select one to look at it"
)

// QueueRowsShown is how many whole queue rows the list has room for.
func (r *RecordTab) QueueRowsShown() int {
	if !r.queue.Visible() {
		return 0
	}
	pitch := r.queue.CreateItem().MinSize().Height + theme.Padding()
	return int((r.queue.Size().Height + theme.Padding()) / pitch)
}

// minQueueRows is how many tasks the queue shows, at least, between
// episodes when the column is tall enough: the rest goes to the last
// episode's steps.
const minQueueRows = 8

// defaultOffset is the divider's place for a mode the person has not
// arranged: while recording the task's details take their minimum and the
// timeline the rest; between episodes the queue gets the room, leaving
// the last episode's steps what minQueueRows rows leave over.
func (r *RecordTab) defaultOffset(running bool) float64 {
	if running {
		return 0
	}
	h := float64(r.split.Size().Height - theme.Padding()) // less the divider
	if len(r.rows) == 0 || h <= 0 {
		return 1
	}
	pitch := r.queue.CreateItem().MinSize().Height + theme.Padding()
	lead := r.taskPanel.MinSize().Height - r.queue.MinSize().Height + minQueueRows*pitch
	return min(1, float64(lead)/h)
}

// QueueFolded reports whether the queue is folded away for a running
// episode.
func (r *RecordTab) QueueFolded() bool { return r.recLayout }

// sync enables the buttons that can act now and updates the status bar.
func (r *RecordTab) sync() {
	rec := r.state == stRecording
	r.foldQueue(rec || r.state == stStarting)
	if !rec && r.state != stStarting && r.opts.Settings != nil {
		// Between episodes: where the next one will run (Settings applies
		// from the next episode).
		r.engineLbl.SetText(plannedEngine(r.opts.Settings()))
	}
	SetEnabled(r.backBtn, rec)
	SetEnabled(r.waitBtn, rec)
	SetEnabled(r.finishBtn, rec)
	// goto exists only in the extended set; the default set hides it.
	if r.set.HasOp(action.Goto) || (r.state == stIdle && r.opts.Settings().ActionSet.HasOp(action.Goto)) {
		r.gotoBtn.Show()
	} else {
		r.gotoBtn.Hide()
	}
	SetEnabled(r.gotoBtn, rec && r.set.HasOp(action.Goto))
	SetEnabled(r.discardBtn, rec || r.state == stStarting)
	SetEnabled(r.restartBtn, r.task != nil && (rec || r.state == stEnded))
	SetEnabled(r.startBtn, r.task != nil && !rec && r.state != stStarting)
	steps := max(0, len(r.rows)-1)
	if len(r.rows) > 0 {
		r.stepsHead.SetText(stepsHeadSteps)
	} else {
		r.stepsHead.SetText(stepsHeadEmpty)
	}
	switch r.state {
	case stIdle:
		r.stepLbl.SetText("No episode")
		r.recLbl.SetText("Not recording")
		r.recDot.FillColor = color.NRGBA{0x88, 0x88, 0x88, 0xff}
	case stStarting:
		r.stepLbl.SetText("Starting…")
		r.recLbl.SetText("Starting")
		r.recDot.FillColor = color.NRGBA{0xe0, 0xa0, 0x00, 0xff}
	case stRecording:
		r.stepLbl.SetText(fmt.Sprintf("Step %d / %d", steps, r.maxSteps))
		r.recLbl.SetText("Recording")
		r.recDot.FillColor = color.NRGBA{0xe5, 0x39, 0x35, 0xff}
	case stEnded:
		r.stepLbl.SetText(fmt.Sprintf("Ended after %d / %d", steps, r.maxSteps))
		r.recLbl.SetText("Saved")
		r.recDot.FillColor = color.NRGBA{0x43, 0xa0, 0x47, 0xff}
	}
	r.recDot.Refresh()
	r.urlLbl.SetText(r.lastURL)
}

// setError shows the last error (or refusal) in words; "" clears it.
func (r *RecordTab) setError(msg string) {
	r.errLbl.Importance = widget.DangerImportance
	r.errLbl.SetText(msg)
}

// setStatus shows a neutral message where errors go.
func (r *RecordTab) setStatus(msg string) {
	r.errLbl.Importance = widget.MediumImportance
	r.errLbl.SetText(msg)
}

// ConfirmClose is what closing the window does: while an episode records,
// it asks first (Keep recording, or Stop and save as interrupted, every
// step kept); otherwise, and on Stop, it calls closeNow.
func (r *RecordTab) ConfirmClose(closeNow func()) {
	w := r.ctx.Window
	if (r.state != stRecording && r.state != stStarting) || w == nil {
		closeNow()
		return
	}
	msg := widget.NewLabel(fmt.Sprintf("An episode is being recorded (%s saved). Closing Waymark stops it: it is saved as interrupted, with every step kept.",
		Plural(max(len(r.rows)-1, 0), "step")))
	msg.Wrapping = fyne.TextWrapWord
	d := dialog.NewCustomConfirm("Close Waymark?", "Stop and save as interrupted", "Keep recording", msg, func(stop bool) {
		if stop {
			closeNow()
		} else {
			r.focusView()
		}
	}, w)
	d.Resize(fyne.NewSize(520, 0))
	d.Show()
	WithKeys(w, d, d.Dismiss) // Enter keeps recording: the safe answer
}

// Close ends a running episode cleanly when the window closes: typed text
// is sent, queued input performed, the episode saved as interrupted, and
// the browser closed. It waits at most about 20 s.
func (r *RecordTab) Close() {
	if r.mapper != nil {
		r.mapper.Flush()
	}
	if r.runner != nil {
		r.runner.Stop(action.EndInterrupted, true)
		r.runner.Wait(15 * time.Second)
	}
	if r.pumpStop != nil {
		r.pumpStop()
	}
}

// idleSink refuses input while no episode records.
type idleSink struct{ r *RecordTab }

func (s idleSink) msg() {
	m := "Not recording: choose a task and press Start. Input is sent to the page only during an episode."
	if s.r.state == stStarting {
		m = "The browser is starting; input is accepted once the page shows."
	}
	s.r.setError(m)
}
func (s idleSink) Click(int, int)              { s.msg() }
func (s idleSink) Drag(int, int, int, int)     { s.msg() }
func (s idleSink) Rune(rune)                   { s.msg() }
func (s idleSink) Key(fyne.KeyName, bool)      { s.msg() }
func (s idleSink) Wheel(float32)               { s.msg() }
func (s idleSink) Hover(int, int)              {}
func (s idleSink) Shortcut(fyne.Shortcut) bool { s.msg(); return true }
func (s idleSink) Refuse(m string)             { s.r.setError(m) }

// noMinHeight fills its space and asks for no height of its own.
type noMinHeight struct{}

func (noMinHeight) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	for _, o := range objs {
		o.Move(fyne.NewPos(0, 0))
		o.Resize(size)
	}
}

func (noMinHeight) MinSize(objs []fyne.CanvasObject) fyne.Size {
	var w float32
	for _, o := range objs {
		w = max(w, o.MinSize().Width)
	}
	return fyne.NewSize(w, 0)
}
