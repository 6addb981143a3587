// Package tasks is the Tasks screen: it browses, searches, filters,
// imports, adds, edits and archives tasks, and starts recording one.
package tasks

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"waymark/dataset"
	"waymark/engine/action"
	"waymark/ui"
)

// Tab is the Tasks screen. Its methods run on the Fyne goroutine; a task
// file is read and first previewed on a goroutine that stops when the
// screen closes.
type Tab struct {
	ctx      *ui.Context
	onRecord func(dataset.Task)
	content  fyne.CanvasObject

	// life ends when the screen closes; background work watches it.
	life    context.Context
	endLife context.CancelFunc
	// work counts background reads still running (tests wait on it).
	work sync.WaitGroup

	search    *widget.Entry
	catSel    *widget.Select
	srcSel    *widget.Select
	demoSel   *widget.Select
	archived  *widget.Check
	counts    *widget.Label
	list      *widget.List
	importBtn *widget.Button
	// lastImport is the last task file chosen (the next import starts there).
	lastImport string
	tasks      []dataset.TaskItem
	sel        int
	detail     *widget.Label
	detailMeta *widget.Label

	recordBtn, editBtn, archiveBtn *widget.Button
	// editDlg is the add/edit form while it is up.
	editDlg *ui.FormDialog
}

var (
	_ ui.Tab    = (*Tab)(nil)
	_ ui.Shower = (*Tab)(nil)
	_ ui.Closer = (*Tab)(nil)
)

// Demonstration filter choices.
const (
	demoAll  = "Demonstrated or not"
	demoNot  = "Not yet demonstrated"
	demoDone = "Demonstrated"
	allCats  = "All categories"
	allSrcs  = "All sources"
)

// New builds the Tasks screen; start starts recording a task.
func New(ctx *ui.Context, start func(dataset.Task)) *Tab {
	t := &Tab{ctx: ctx, onRecord: start, sel: -1}
	t.life, t.endLife = context.WithCancel(context.Background())
	t.build()
	t.Reload()
	return t
}

// Title implements ui.Tab.
func (t *Tab) Title() string { return "Tasks" }

// Content implements ui.Tab.
func (t *Tab) Content() fyne.CanvasObject { return t.content }

// Shown reloads the list.
func (t *Tab) Shown() { t.Reload() }

// Close stops a task file being read for the import preview; it shows
// nothing afterwards.
func (t *Tab) Close() { t.endLife() }

func (t *Tab) build() {
	t.search = widget.NewEntry()
	t.search.SetPlaceHolder("Search goal, URL or source…")
	t.search.OnChanged = func(string) { t.Reload() }
	t.catSel = widget.NewSelect([]string{allCats}, func(string) { t.Reload() })
	t.srcSel = widget.NewSelect([]string{allSrcs}, func(string) { t.Reload() })
	t.demoSel = widget.NewSelect([]string{demoAll, demoNot, demoDone}, func(string) { t.Reload() })
	t.archived = widget.NewCheck("Archived", func(bool) { t.Reload() })
	t.counts = widget.NewLabel("")
	t.counts.Wrapping = fyne.TextWrapWord
	t.list = &widget.List{
		Length: func() int { return len(t.tasks) },
		CreateItem: func() fyne.CanvasObject {
			dot := &canvas.Circle{}
			goal := widget.NewLabel("")
			goal.Truncation = fyne.TextTruncateEllipsis
			goal.TextStyle = fyne.TextStyle{Bold: true}
			sub := widget.NewLabel("")
			sub.Truncation = fyne.TextTruncateEllipsis
			sub.SizeName = theme.SizeNameCaptionText
			n := widget.NewLabel("")
			n.Alignment = fyne.TextAlignTrailing
			return container.NewBorder(nil, nil, container.NewCenter(container.New(&ui.FixedSize{S: fyne.NewSize(10, 10)}, dot)), ui.NewFixedWidth(300, n),
				container.New(&ui.TightVBox{}, goal, sub))
		},
		UpdateItem: func(id widget.ListItemID, o fyne.CanvasObject) {
			if id >= len(t.tasks) {
				return
			}
			it := t.tasks[id]
			c := o.(*fyne.Container)
			texts := c.Objects[0].(*fyne.Container).Objects
			texts[0].(*widget.Label).SetText(it.Goal)
			texts[1].(*widget.Label).SetText(fmt.Sprintf("%s · %s · %s", it.Category, it.StartURL, orDash(it.Source)))
			dot := c.Objects[1].(*fyne.Container).Objects[0].(*fyne.Container).Objects[0].(*canvas.Circle)
			dot.FillColor = ui.CategoryColor(it.Category)
			dot.Refresh()
			n := "not yet demonstrated"
			if it.Demonstrations > 0 {
				n = ui.Plural(it.Demonstrations, "demonstration")
			}
			if it.Episodes > it.Demonstrations {
				n += " · " + ui.Plural(it.Episodes, "episode")
			}
			c.Objects[2].(*fyne.Container).Objects[0].(*widget.Label).SetText(n)
		},
		OnSelected:   func(id widget.ListItemID) { t.sel = id; t.showDetail() },
		OnUnselected: func(widget.ListItemID) { t.sel = -1; t.showDetail() },
	}
	t.detail = widget.NewLabel("Select a task to see it.")
	t.detail.Truncation = fyne.TextTruncateEllipsis
	t.detail.TextStyle = fyne.TextStyle{Bold: true}
	t.detailMeta = widget.NewLabel("")
	t.detailMeta.Truncation = fyne.TextTruncateEllipsis
	t.recordBtn = &widget.Button{Text: "Record this task", Icon: theme.MediaRecordIcon(), Importance: widget.HighImportance, OnTapped: func() {
		if it := t.current(); it != nil && t.onRecord != nil {
			t.onRecord(it.Task)
		}
	}}
	t.editBtn = &widget.Button{Text: "Edit…", Icon: theme.DocumentCreateIcon(), OnTapped: func() {
		if it := t.current(); it != nil {
			t.showEdit(&it.Task)
		}
	}}
	t.archiveBtn = &widget.Button{Text: "Archive", Icon: theme.FolderIcon(), OnTapped: t.toggleArchive}
	add := &widget.Button{Text: "Add…", Icon: theme.ContentAddIcon(), OnTapped: func() { t.showEdit(nil) }}
	t.importBtn = &widget.Button{Text: "Import file…", Icon: theme.UploadIcon(), OnTapped: t.chooseImport}
	imp := t.importBtn

	filters := container.NewBorder(nil, nil, nil, container.NewHBox(ui.NewFixedWidth(190, t.catSel), ui.NewFixedWidth(210, t.srcSel), ui.NewFixedWidth(240, t.demoSel), t.archived), t.search)
	top := container.NewVBox(filters, t.counts)
	actions := container.NewHBox(add, imp, layout.NewSpacer(), t.editBtn, t.archiveBtn, t.recordBtn)
	bottom := container.NewVBox(widget.NewSeparator(), t.detail, t.detailMeta, actions)
	t.content = container.NewBorder(top, bottom, nil, nil, t.list)
	t.showDetail()
}

func orDash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}

func (t *Tab) filter() dataset.TaskFilter {
	f := dataset.TaskFilter{Search: t.search.Text, Archived: t.archived.Checked}
	if i := t.catSel.SelectedIndex(); i > 0 && i <= len(dataset.Categories) {
		f.Category = dataset.Categories[i-1]
	}
	if i := t.srcSel.SelectedIndex(); i > 0 {
		f.Source = sourceOf(t.srcSel.Selected)
	}
	if t.demoSel.SelectedIndex() == 1 {
		f.NotDemonstrated = true
	}
	return f
}

// sourceOf strips the count from a source choice ("file.csv (12)").
func sourceOf(choice string) string {
	if i := strings.LastIndex(choice, " ("); i >= 0 {
		choice = choice[:i]
	}
	if choice == "(none)" {
		return ""
	}
	return choice
}

// Reload reads the tasks with the current filters and updates the counts.
func (t *Tab) Reload() {
	if t.ctx.Store == nil {
		return
	}
	f := t.filter()
	items, err := t.ctx.Store.ListTasks(t.life, f)
	if err != nil {
		t.counts.SetText("Cannot read the tasks: " + err.Error())
		return
	}
	if t.demoSel.SelectedIndex() == 2 {
		kept := items[:0]
		for _, it := range items {
			if it.Demonstrations > 0 {
				kept = append(kept, it)
			}
		}
		items = kept
	}
	var keep string
	if it := t.current(); it != nil {
		keep = it.ID
	}
	t.tasks = items
	t.sel = -1
	t.list.UnselectAll()
	t.list.Refresh()
	for i, it := range items {
		if it.ID == keep {
			t.list.Select(i)
		}
	}
	// Counts over everything the other filters select, so each choice shows
	// how many it would give.
	all := f
	all.Category, all.Source, all.NotDemonstrated = "", "", false
	c, err := t.ctx.Store.CountTasks(t.life, all)
	if err == nil {
		cats := []string{allCats + fmt.Sprintf(" (%d)", c.Total)}
		for _, k := range dataset.Categories {
			cats = append(cats, fmt.Sprintf("%s (%d)", k, c.ByCategory[k]))
		}
		t.setOptions(t.catSel, cats)
		srcs := []string{allSrcs}
		names := make([]string, 0, len(c.BySource))
		for s := range c.BySource {
			names = append(names, s)
		}
		sort.Strings(names)
		for _, s := range names {
			label := s
			if label == "" {
				label = "(none)"
			}
			srcs = append(srcs, fmt.Sprintf("%s (%d)", label, c.BySource[s]))
		}
		t.setOptions(t.srcSel, srcs)
		t.setOptions(t.demoSel, []string{demoAll, fmt.Sprintf("%s (%d)", demoNot, c.NotDemonstrated), fmt.Sprintf("%s (%d)", demoDone, c.Demonstrated)})
		t.counts.SetText(fmt.Sprintf("Showing %d of %s · information %d · navigation %d · interaction %d · %d demonstrated · %d not yet",
			len(items), ui.Plural(c.Total, "task"), c.ByCategory[dataset.Information], c.ByCategory[dataset.Navigation], c.ByCategory[dataset.Interaction], c.Demonstrated, c.NotDemonstrated))
	}
	t.showDetail()
}

// setOptions replaces a select's options, keeping the choice by its name
// (counts change).
func (t *Tab) setOptions(s *widget.Select, opts []string) {
	cur := s.Selected
	s.Options = opts
	name := func(o string) string {
		if i := strings.LastIndex(o, " ("); i >= 0 {
			return o[:i]
		}
		return o
	}
	for _, o := range opts {
		if cur != "" && name(o) == name(cur) {
			if o != cur {
				s.Selected = o // no OnChanged: the filter is the same
			}
			s.Refresh()
			return
		}
	}
	s.Selected = opts[0]
	s.Refresh()
}

func (t *Tab) current() *dataset.TaskItem {
	if t.sel < 0 || t.sel >= len(t.tasks) {
		return nil
	}
	return &t.tasks[t.sel]
}

func (t *Tab) showDetail() {
	it := t.current()
	on := it != nil
	ui.SetEnabled(t.recordBtn, on && !it.Archived)
	ui.SetEnabled(t.editBtn, on)
	ui.SetEnabled(t.archiveBtn, on)
	if !on {
		t.detail.SetText("Select a task to see it, record it, edit it or archive it.")
		t.detailMeta.SetText("")
		return
	}
	if it.Archived {
		t.archiveBtn.SetText("Unarchive")
	} else {
		t.archiveBtn.SetText("Archive")
	}
	check := "no automatic check"
	if c := it.Check; c != nil {
		switch c.Kind {
		case action.CheckKindAnswer:
			check = "answer check: " + ui.ExpectedAnswers(c.Answer)
		case action.CheckKindURL:
			check = "final URL must match " + c.URL
		case action.CheckKindJS:
			check = "page check: " + c.JS
		}
	}
	t.detail.SetText(it.Goal)
	t.detailMeta.SetText(fmt.Sprintf("%s · %s · source %s · %s", strings.ToUpper(it.Category), it.StartURL, orDash(it.Source), check))
}

func (t *Tab) toggleArchive() {
	it := t.current()
	if it == nil {
		return
	}
	if err := t.ctx.Store.ArchiveTask(t.life, it.ID, !it.Archived); err != nil {
		t.showErr(fmt.Errorf("could not change the task: %w", err))
		return
	}
	t.sel = -1
	t.Reload()
}

func (t *Tab) showErr(err error) {
	if t.ctx.Window != nil {
		ui.ShowError(err, t.ctx.Window)
	} else {
		t.counts.SetText(err.Error())
	}
}
