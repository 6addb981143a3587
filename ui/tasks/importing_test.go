package tasks

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"waymark/dataset"
	"waymark/ui"
	"waymark/ui/uitest"
)

// noneChoice is the column choice that gives a field no column.
const noneChoice = "(none)"

// overlayTexts returns every text the top overlay (the import dialog)
// draws, in layout order.
func overlayTexts(w fyne.Window) []string {
	top := w.Canvas().Overlays().Top()
	if top == nil {
		return nil
	}
	var out []string
	for _, o := range test.LaidOutObjects(top) {
		if t, ok := o.(*canvas.Text); ok && t.Text != "" {
			out = append(out, t.Text)
		}
		if tb, ok := o.(*widget.Table); ok {
			out = append(out, tableTexts(tb)...)
		}
	}
	return out
}

// tableTexts returns the text of every cell of a table of labels, as the
// table would draw each when scrolled to it.
func tableTexts(tb *widget.Table) []string {
	var out []string
	rows, cols := tb.Length()
	for r := 0; r < rows; r++ {
		for c := 0; c < cols; c++ {
			cell := tb.CreateCell()
			tb.UpdateCell(widget.TableCellID{Row: r, Col: c}, cell)
			if l, ok := cell.(*widget.Label); ok && l.Text != "" {
				out = append(out, l.Text)
			}
		}
	}
	return out
}

func overlaySays(w fyne.Window, text string) bool {
	for _, s := range overlayTexts(w) {
		if strings.Contains(s, text) {
			return true
		}
	}
	return false
}

// mappingSelects returns the dialog's column choices, one per importer
// field (dataset.ImportFields, in that order): the selects whose first
// option is "(none)".
func mappingSelects(t *testing.T, w fyne.Window) map[string]*ui.DialogSelect {
	t.Helper()
	top := w.Canvas().Overlays().Top()
	if top == nil {
		t.Fatal("no dialog shows")
	}
	var sels []*ui.DialogSelect
	for _, o := range test.LaidOutObjects(top) {
		if s, ok := o.(*ui.DialogSelect); ok && len(s.Options) > 0 && s.Options[0] == noneChoice {
			sels = append(sels, s)
		}
	}
	if len(sels) != len(dataset.ImportFields) {
		t.Fatalf("the dialog has %d column choices, want one per field (%d): it shows %q", len(sels), len(dataset.ImportFields), overlayTexts(w))
	}
	out := map[string]*ui.DialogSelect{}
	for i, f := range dataset.ImportFields {
		out[f] = sels[i]
	}
	return out
}

func overlayButton(t *testing.T, w fyne.Window, text string) *widget.Button {
	t.Helper()
	for _, o := range test.LaidOutObjects(w.Canvas().Overlays().Top()) {
		if b, ok := uitest.AsButton(o); ok && b.Text == text {
			return b
		}
	}
	t.Fatalf("no %q button in %q", text, overlayTexts(w))
	return nil
}

// noDashes fails when the dialog tells a person about command-line flags.
func noDashes(t *testing.T, w fyne.Window) {
	t.Helper()
	for _, s := range overlayTexts(w) {
		if strings.Contains(s, "--") || strings.Contains(s, "cannot import the file") {
			t.Fatalf("the dialog says %q", s)
		}
	}
}

func openImport(t *testing.T, tab *Tab, loop interface{ Run() int }, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	tab.ImportFile(path)
	tab.work.Wait()
	loop.Run()
}

// A file whose columns the importer does not recognise opens the dialog
// with a column choice per field; choosing the columns previews the tasks,
// Import stores them, and the next file of the same source gets the same
// choices.
func TestImportDialogMapsUnrecognisedColumns(t *testing.T) {
	tab, store, _, loop := newTasksFixtureLoop(t)
	w := tab.ctx.Window
	dir := t.TempDir()
	openImport(t, tab, loop, filepath.Join(dir, "objectives.csv"),
		"Objective,Website,Kind\nFind the cheapest tent,shop.test/tents,info\nOpen the help page,http://shop.test/,navigation\nBook a workshop,http://forms.test/,weird\n")
	sels := mappingSelects(t, w)
	noDashes(t, w)
	if got := sels[dataset.FieldGoal].Options; strings.Join(got, ",") != noneChoice+",Objective,Website,Kind" {
		t.Fatalf("goal choices %q", got)
	}
	if !overlaySays(w, "Choose the column that holds the goal") {
		t.Fatalf("the dialog does not say the goal needs a column: %q", overlayTexts(w))
	}
	if !overlayButton(t, w, "Import").Disabled() {
		t.Fatal("Import is enabled with no goal column")
	}

	// Website is a name the importer knows for the start URL.
	if got := sels[dataset.FieldURL].Selected; got != "Website" {
		t.Fatalf("start URL preset %q", got)
	}
	sels[dataset.FieldURL].SetSelected(noneChoice)
	sels[dataset.FieldGoal].SetSelected("Objective")
	if !overlaySays(w, "Choose the column that holds the start URL") {
		t.Fatalf("after the goal: %q", overlayTexts(w))
	}
	sels[dataset.FieldURL].SetSelected("Website")
	if !overlaySays(w, "Choose the column that holds the category") {
		t.Fatalf("after the URL: %q", overlayTexts(w))
	}
	noDashes(t, w)
	sels[dataset.FieldCategory].SetSelected("Kind")
	noDashes(t, w)
	for _, want := range []string{"Will import 2 of 3 rows as tasks (information 1, navigation 1): 1 skipped, 0 duplicates.", "Find the cheapest tent", "https://shop.test/tents", "information", "unknown category \"weird\""} {
		if !overlaySays(w, want) {
			t.Errorf("the preview lacks %q: %q", want, overlayTexts(w))
		}
	}
	imp := overlayButton(t, w, "Import")
	if imp.Disabled() {
		t.Fatal("Import is disabled")
	}
	test.Tap(imp)
	all, err := store.ListTasks(t.Context(), dataset.TaskFilter{Source: "objectives.csv"})
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 2 || all[0].Goal == "" {
		t.Fatalf("stored %+v", all)
	}
	for _, task := range all {
		if task.Goal == "Find the cheapest tent" && (task.StartURL != "https://shop.test/tents" || task.Category != dataset.Information) {
			t.Fatalf("stored %+v", task)
		}
	}
	for w.Canvas().Overlays().Top() != nil {
		w.Canvas().Overlays().Top().Hide()
	}

	// The next file from the same source: the choices are preset.
	openImport(t, tab, loop, filepath.Join(dir, "later", "objectives.csv"),
		"Objective,Website,Kind\nTurn the lights off,http://home.test/,interaction\n")
	sels = mappingSelects(t, w)
	for f, want := range map[string]string{dataset.FieldGoal: "Objective", dataset.FieldURL: "Website", dataset.FieldCategory: "Kind", dataset.FieldAnswer: noneChoice} {
		if got := sels[f].Selected; got != want {
			t.Errorf("%s: preset %q, want %q", f, got, want)
		}
	}
	if !overlaySays(w, "Will import 1 of 1 row as a task") {
		t.Fatalf("the reopened file previews %q", overlayTexts(w))
	}
}

// "(none)" takes a recognised column away; a category for rows without one
// then makes them importable; rows with an issue say it without flags.
func TestImportDialogNoneAndDefaultCategory(t *testing.T) {
	tab, _, _, loop := newTasksFixtureLoop(t)
	w := tab.ctx.Window
	openImport(t, tab, loop, filepath.Join(t.TempDir(), "batch.csv"),
		"instruction,website,type\nFind the cheapest tent,http://shop.test/,info\nOpen the help page,http://shop.test/,\n")
	noDashes(t, w)
	if !overlaySays(w, "Will import 1 of 2 rows as tasks") || !overlaySays(w, "the category is empty") {
		t.Fatalf("preview %q", overlayTexts(w))
	}
	sels := mappingSelects(t, w)
	if sels[dataset.FieldCategory].Selected != "type" {
		t.Fatalf("category preset %q", sels[dataset.FieldCategory].Selected)
	}
	sels[dataset.FieldCategory].SetSelected(noneChoice)
	if sels[dataset.FieldCategory].Selected != noneChoice || !overlaySays(w, "Choose the column that holds the category") {
		t.Fatalf("after (none): %q selected, %q", sels[dataset.FieldCategory].Selected, overlayTexts(w))
	}
	noDashes(t, w)
	var defCat *ui.DialogSelect
	for _, o := range test.LaidOutObjects(w.Canvas().Overlays().Top()) {
		if s, ok := o.(*ui.DialogSelect); ok && len(s.Options) > 0 && strings.HasPrefix(s.Options[0], "skip rows") {
			defCat = s
		}
	}
	if defCat == nil {
		t.Fatal("no choice of a category for rows without one")
	}
	defCat.SetSelected(dataset.Navigation)
	if !overlaySays(w, "Will import 2 of 2 rows as tasks (navigation 2): 0 skipped, 0 duplicates.") {
		t.Fatalf("with a default category: %q", overlayTexts(w))
	}
}

// A file that cannot be read at all says why once, in words for a person.
func TestImportErrorSaysItOnce(t *testing.T) {
	tab, _, _, loop := newTasksFixtureLoop(t)
	openImport(t, tab, loop, filepath.Join(t.TempDir(), "broken.csv"), "goal,url,category\n\"Find,http://a.test/,info\n")
	top := tab.ctx.Window.Canvas().Overlays().Top()
	if top == nil {
		t.Fatal("no error shows")
	}
	var said []string
	for _, o := range test.LaidOutObjects(top) {
		if l, ok := o.(*widget.Label); ok {
			said = append(said, l.Text)
		}
	}
	all := strings.Join(said, "\n")
	if strings.Contains(all, "cannot import the file") || strings.Count(all, "broken.csv") != 1 || !strings.Contains(all, "not valid CSV") {
		t.Fatalf("the error says %q", all)
	}
}

// The import preview says every column rows are read through, not only the
// one chosen per field (a file whose rows name the goal instruction, goal
// or task), and names as unused only the column no row was read through.
func TestImportDialogNamesEveryColumnUsed(t *testing.T) {
	tab, _, _, loop := newTasksFixtureLoop(t)
	w := tab.ctx.Window
	openImport(t, tab, loop, filepath.Join(t.TempDir(), "mixed.jsonl"),
		`{"instruction": "Find the tent", "url": "http://shop.waymark.test/", "type": "info", "notes": "x"}
{"goal": "Open the returns page", "start_url": "http://shop.waymark.test/help", "category": "navigation"}
{"task": "Book a workshop", "website": "http://forms.waymark.test/", "task_type": "form"}
`)
	if !overlaySays(w, "Will import 3 of 3 rows") {
		t.Fatalf("the preview says %q", overlayTexts(w))
	}
	var said string
	for _, s := range overlayTexts(w) {
		said += s + " "
	}
	for _, want := range []string{"instruction, goal or task", "url, start_url or website", "type, category or task_type", "Not used: notes."} {
		if !strings.Contains(said, want) {
			t.Errorf("the preview does not say %q: %q", want, said)
		}
	}
}
