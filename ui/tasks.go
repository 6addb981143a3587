package ui

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/storage"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"waymark/dataset"
	"waymark/engine/action"
)

// TasksTab browses, searches, filters, imports, adds, edits and archives
// tasks, and starts recording one. Its methods run on the Fyne goroutine.
type TasksTab struct {
	ctx      *Context
	onRecord func(dataset.Task)
	content  fyne.CanvasObject

	search     *widget.Entry
	catSel     *widget.Select
	srcSel     *widget.Select
	demoSel    *widget.Select
	archived   *widget.Check
	counts     *widget.Label
	list       *widget.List
	tasks      []dataset.TaskItem
	sel        int
	detail     *widget.Label
	detailMeta *widget.Label

	recordBtn, editBtn, archiveBtn *widget.Button
}

var (
	_ Tab    = (*TasksTab)(nil)
	_ Shower = (*TasksTab)(nil)
)

// Demonstration filter choices.
const (
	demoAll  = "Demonstrated or not"
	demoNot  = "Not yet demonstrated"
	demoDone = "Demonstrated"
	allCats  = "All categories"
	allSrcs  = "All sources"
)

// NewTasksTab builds the Tasks tab; onRecord starts recording a task.
func NewTasksTab(ctx *Context, onRecord func(dataset.Task)) *TasksTab {
	t := &TasksTab{ctx: ctx, onRecord: onRecord, sel: -1}
	t.build()
	t.Reload()
	return t
}

// Title implements Tab.
func (t *TasksTab) Title() string { return "Tasks" }

// Content implements Tab.
func (t *TasksTab) Content() fyne.CanvasObject { return t.content }

// Shown reloads the list.
func (t *TasksTab) Shown() { t.Reload() }

func (t *TasksTab) build() {
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
			return container.NewBorder(nil, nil, container.NewCenter(container.New(&FixedSize{fyne.NewSize(10, 10)}, dot)), NewFixedWidth(300, n),
				container.New(&TightVBox{}, goal, sub))
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
			dot.FillColor = CategoryColor(it.Category)
			dot.Refresh()
			n := "not yet demonstrated"
			if it.Demonstrations > 0 {
				n = Plural(it.Demonstrations, "demonstration")
			}
			if it.Episodes > it.Demonstrations {
				n += fmt.Sprintf(" · %d episode(s)", it.Episodes)
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
	imp := &widget.Button{Text: "Import file…", Icon: theme.UploadIcon(), OnTapped: t.chooseImport}

	filters := container.NewBorder(nil, nil, nil, container.NewHBox(NewFixedWidth(190, t.catSel), NewFixedWidth(210, t.srcSel), NewFixedWidth(240, t.demoSel), t.archived), t.search)
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

func (t *TasksTab) filter() dataset.TaskFilter {
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
func (t *TasksTab) Reload() {
	if t.ctx.Store == nil {
		return
	}
	f := t.filter()
	items, err := t.ctx.Store.ListTasks(f)
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
	c, err := t.ctx.Store.CountTasks(all)
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
		t.counts.SetText(fmt.Sprintf("Showing %d of %d tasks · information %d · navigation %d · interaction %d · %d demonstrated · %d not yet",
			len(items), c.Total, c.ByCategory[dataset.Information], c.ByCategory[dataset.Navigation], c.ByCategory[dataset.Interaction], c.Demonstrated, c.NotDemonstrated))
	}
	t.showDetail()
}

// setOptions replaces a select's options, keeping the choice by its name
// (counts change).
func (t *TasksTab) setOptions(s *widget.Select, opts []string) {
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

func (t *TasksTab) current() *dataset.TaskItem {
	if t.sel < 0 || t.sel >= len(t.tasks) {
		return nil
	}
	return &t.tasks[t.sel]
}

func (t *TasksTab) showDetail() {
	it := t.current()
	on := it != nil
	SetEnabled(t.recordBtn, on && !it.Archived)
	SetEnabled(t.editBtn, on)
	SetEnabled(t.archiveBtn, on)
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
			check = "answer check: " + ExpectedAnswers(c.Answer)
		case action.CheckKindURL:
			check = "final URL must match " + c.URL
		case action.CheckKindJS:
			check = "page check: " + c.JS
		}
	}
	t.detail.SetText(it.Goal)
	t.detailMeta.SetText(fmt.Sprintf("%s · %s · source %s · %s", strings.ToUpper(it.Category), it.StartURL, orDash(it.Source), check))
}

func (t *TasksTab) toggleArchive() {
	it := t.current()
	if it == nil {
		return
	}
	if err := t.ctx.Store.ArchiveTask(it.ID, !it.Archived); err != nil {
		t.showErr(fmt.Errorf("could not change the task: %w", err))
		return
	}
	t.sel = -1
	t.Reload()
}

func (t *TasksTab) showErr(err error) {
	if t.ctx.Window != nil {
		dialog.ShowError(err, t.ctx.Window)
	} else {
		t.counts.SetText(err.Error())
	}
}

// checkKinds are the automatic-check choices of the task form.
var checkKinds = []string{"none", action.CheckKindAnswer, action.CheckKindURL, action.CheckKindJS}

// taskForm builds the add/edit form; read returns the task it describes.
func taskForm(cur *dataset.Task) ([]*widget.FormItem, func() dataset.Task) {
	goal := widget.NewMultiLineEntry()
	goal.Wrapping = fyne.TextWrapWord
	goal.SetMinRowsVisible(3)
	cat := widget.NewSelect(dataset.Categories, nil)
	url := widget.NewEntry()
	url.SetPlaceHolder("https://…")
	kind := widget.NewSelect(checkKinds, nil)
	val := widget.NewEntry()
	val.SetPlaceHolder("expected answer (a|b for alternatives), URL regexp, or JS expression")
	t := dataset.Task{Category: dataset.Navigation}
	if cur != nil {
		t = *cur
	}
	goal.SetText(t.Goal)
	cat.SetSelected(t.Category)
	url.SetText(t.StartURL)
	kind.SetSelected("none")
	if c := t.Check; c != nil {
		kind.SetSelected(c.Kind)
		val.SetText(c.Answer + c.URL + c.JS)
	}
	items := []*widget.FormItem{
		{Text: "Goal", Widget: goal},
		{Text: "Category", Widget: cat},
		{Text: "Start URL", Widget: url},
		{Text: "Automatic check", Widget: kind},
		{Text: "Expected", Widget: val, HintText: "answer, URL pattern or JavaScript, by the check's kind"},
	}
	read := func() dataset.Task {
		out := t
		out.Goal, out.Category, out.StartURL = goal.Text, cat.Selected, url.Text
		out.Check = nil
		v := strings.TrimSpace(val.Text)
		switch kind.Selected {
		case action.CheckKindAnswer:
			out.Check = &action.Check{Kind: action.CheckKindAnswer, Answer: v}
		case action.CheckKindURL:
			out.Check = &action.Check{Kind: action.CheckKindURL, URL: v}
		case action.CheckKindJS:
			out.Check = &action.Check{Kind: action.CheckKindJS, JS: v}
		}
		if out.Source == "" {
			out.Source = "manual"
		}
		return out
	}
	return items, read
}

// SaveTask adds (ID empty) or updates a task from the form.
func (t *TasksTab) SaveTask(task dataset.Task) (dataset.Task, error) {
	if task.ID == "" {
		return t.ctx.Store.AddTask(task)
	}
	return task, t.ctx.Store.UpdateTask(task)
}

func (t *TasksTab) showEdit(cur *dataset.Task) {
	if t.ctx.Window == nil {
		return
	}
	items, read := taskForm(cur)
	title, ok := "Add a task", "Add"
	if cur != nil {
		title, ok = "Edit the task", "Save"
	}
	var d *dialog.FormDialog
	d = dialog.NewForm(title, ok, "Cancel", items, func(yes bool) {
		if !yes {
			return
		}
		task := read()
		if _, err := t.SaveTask(task); err != nil {
			t.showErr(fmt.Errorf("the task was not saved: %w", err))
			return
		}
		t.Reload()
	}, t.ctx.Window)
	d.Resize(fyne.NewSize(620, 0))
	d.Show()
}

// --- import ---

func (t *TasksTab) chooseImport() {
	if t.ctx.Window == nil {
		return
	}
	fd := dialog.NewFileOpen(func(rc fyne.URIReadCloser, err error) {
		if err != nil {
			t.showErr(err)
			return
		}
		if rc == nil {
			return
		}
		defer rc.Close()
		data, err := io.ReadAll(rc)
		if err != nil {
			t.showErr(fmt.Errorf("cannot read %s: %w", rc.URI().Name(), err))
			return
		}
		t.previewImport(rc.URI().Name(), data)
	}, t.ctx.Window)
	// Only task files are listed (JSON Lines, JSON, CSV, TSV, Parquet, and
	// .txt, read by content).
	fd.SetFilter(storage.NewExtensionFileFilter(TaskFileExtensions))
	fd.Resize(fyne.NewSize(900, 620))
	fd.Show()
}

// TaskFileExtensions are the task file formats the importer reads.
var TaskFileExtensions = []string{".jsonl", ".ndjson", ".json", ".csv", ".tsv", ".tab", ".txt", ".parquet", ".pq"}

// ImportFile reads a task file (for example one dropped on the window) and
// shows the import preview.
func (t *TasksTab) ImportFile(path string) {
	if dataset.IsStoreFile(path) {
		// Reading it would drop the open store's locks (see dataset.IsStoreFile).
		t.showErr(fmt.Errorf("%s is the Waymark database in use, not a task file; choose a .jsonl, .json, .csv, .tsv or .parquet file", path))
		return
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.showErr(fmt.Errorf("cannot read %s: %w", path, err))
		return
	}
	t.previewImport(filepath.Base(path), data)
}

// ImportPreviewText describes a preview: how columns map, what would be
// imported, and each skipped row with its reason.
func ImportPreviewText(rep dataset.ImportReport) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s (%s): %d rows\n\nColumns:\n", rep.File, rep.Format, rep.Rows)
	for _, f := range dataset.ImportFields {
		col := rep.Mapping[f]
		if col == "" {
			col = "— not found"
		}
		fmt.Fprintf(&b, "  %-12s ← %s\n", f, col)
	}
	fmt.Fprintf(&b, "\nWill import %d task(s)", len(rep.Tasks))
	if len(rep.ByCategory) > 0 {
		var parts []string
		for _, c := range dataset.Categories {
			if n := rep.ByCategory[c]; n > 0 {
				parts = append(parts, fmt.Sprintf("%s %d", c, n))
			}
		}
		fmt.Fprintf(&b, " (%s)", strings.Join(parts, ", "))
	}
	b.WriteString(".\n")
	if n := len(rep.Duplicates); n > 0 {
		fmt.Fprintf(&b, "%d already stored (same goal and start URL), left out.\n", n)
	}
	if n := len(rep.Skipped); n > 0 {
		fmt.Fprintf(&b, "\n%d row(s) will be skipped:\n", n)
		for i, s := range rep.Skipped {
			if i == 200 {
				fmt.Fprintf(&b, "  … and %d more\n", n-i)
				break
			}
			fmt.Fprintf(&b, "  %s\n", s.String())
		}
	}
	return b.String()
}

func (t *TasksTab) previewImport(name string, data []byte) {
	opts := dataset.ImportOptions{}
	defCat := widget.NewSelect(append([]string{"skip rows without one"}, dataset.Categories...), nil)
	defCat.SetSelectedIndex(0)
	text := widget.NewTextGridFromString("")
	refresh := func() error {
		opts.DefaultCategory = ""
		if i := defCat.SelectedIndex(); i > 0 {
			opts.DefaultCategory = dataset.Categories[i-1]
		}
		rep, err := t.ctx.Store.PreviewImport(bytes.NewReader(data), name, opts)
		if err != nil {
			return err
		}
		text.SetText(ImportPreviewText(rep))
		return nil
	}
	if err := refresh(); err != nil {
		t.showErr(fmt.Errorf("cannot import %s: %w", filepath.Base(name), err))
		return
	}
	defCat.OnChanged = func(string) {
		if err := refresh(); err != nil {
			text.SetText(err.Error())
		}
	}
	body := container.NewBorder(container.NewHBox(widget.NewLabel("Rows with no category:"), NewFixedWidth(260, defCat)), nil, nil, nil, container.NewScroll(text))
	d := dialog.NewCustomConfirm("Import "+filepath.Base(name), "Import", "Cancel", body, func(ok bool) {
		if !ok {
			return
		}
		rep, err := t.ctx.Store.ImportTasks(bytes.NewReader(data), name, opts)
		if err != nil {
			t.showErr(fmt.Errorf("import failed: %w", err))
			return
		}
		t.Reload()
		msg := fmt.Sprintf("Imported %s; %d skipped, %d already stored.", Plural(rep.Imported, "task"), len(rep.Skipped), len(rep.Duplicates))
		ShowInformation(t.ctx.Window, "Import done", msg)
	}, t.ctx.Window)
	d.Resize(fyne.NewSize(760, 560))
	d.Show()
	WithKeys(t.ctx.Window, d, d.Confirm)
}
