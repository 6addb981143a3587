package tasks

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/storage"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"waymark/dataset"
	"waymark/engine/action"
	"waymark/ui"
	"waymark/ui/uitest"
)

// newTasksFixture opens the screen over three tasks; its background work
// hands over to loop, which the test runs.
func newTasksFixture(t *testing.T) (*Tab, *dataset.Store, *[]dataset.Task) {
	tab, store, started, _ := newTasksFixtureLoop(t)
	return tab, store, started
}

func newTasksFixtureLoop(t *testing.T) (*Tab, *dataset.Store, *[]dataset.Task, *uitest.Loop) {
	t.Helper()
	test.NewTempApp(t).Settings().SetTheme(theme.DefaultTheme())
	store, err := dataset.Open(filepath.Join(t.TempDir(), "w.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	for _, task := range []dataset.Task{
		{Goal: "What is the price of the red kettle?", Category: dataset.Information, StartURL: "http://shop.test/", Source: "pack", Check: &action.Check{Kind: action.CheckKindAnswer, Answer: "12|twelve|12 euros"}},
		{Goal: "Open the returns page", Category: dataset.Navigation, StartURL: "http://shop.test/", Source: "pack"},
		{Goal: "Turn on dark mode", Category: dataset.Interaction, StartURL: "http://forms.test/", Source: "mine.csv"},
	} {
		if _, err := store.AddTask(t.Context(), task); err != nil {
			t.Fatal(err)
		}
	}
	var started []dataset.Task
	w := test.NewTempWindow(t, nil)
	loop := &uitest.Loop{}
	tab := New(&ui.Context{App: fyne.CurrentApp(), Window: w, Store: store, Bridge: loop.Bridge()}, func(t dataset.Task) { started = append(started, t) })
	t.Cleanup(tab.Close)
	w.SetContent(tab.Content())
	w.Resize(fyne.NewSize(1100, 700))
	return tab, store, &started, loop
}

func equal(t *testing.T, got, want []string) {
	t.Helper()
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("got  %q\nwant %q", got, want)
	}
}

func goals(tab *Tab) []string {
	var out []string
	for _, it := range tab.tasks {
		out = append(out, it.Goal)
	}
	return out
}

func TestTasksTabFiltersAndCounts(t *testing.T) {
	tab, store, started := newTasksFixture(t)
	if len(tab.tasks) != 3 || !strings.Contains(tab.counts.Text, "Showing 3 of 3 tasks") {
		t.Fatalf("tasks %v counts %q", goals(tab), tab.counts.Text)
	}
	if got := tab.catSel.Options; len(got) != 4 || got[1] != "information (1)" {
		t.Fatalf("category choices %q", got)
	}
	tab.catSel.SetSelected("navigation (1)")
	equal(t, goals(tab), []string{"Open the returns page"})
	tab.catSel.SetSelectedIndex(0)
	tab.srcSel.SetSelected("mine.csv (1)")
	equal(t, goals(tab), []string{"Turn on dark mode"})
	tab.srcSel.SetSelectedIndex(0)
	tab.search.SetText("KETTLE")
	equal(t, goals(tab), []string{"What is the price of the red kettle?"})

	// Record from here.
	tab.list.Select(0)
	if want := "answer check: “12”, “twelve” or “12 euros”"; !strings.Contains(tab.detailMeta.Text, want) {
		t.Errorf("details say %q, want %q", tab.detailMeta.Text, want)
	}
	test.Tap(tab.recordBtn)
	if len(*started) != 1 || (*started)[0].Goal != "What is the price of the red kettle?" {
		t.Fatalf("started %v", *started)
	}
	// Archive hides it from the active list; the archived view shows it.
	test.Tap(tab.archiveBtn)
	equal(t, goals(tab), nil)
	tab.archived.SetChecked(true)
	equal(t, goals(tab), []string{"What is the price of the red kettle?"})
	archived, _ := store.ListTasks(t.Context(), dataset.TaskFilter{Archived: true})
	if len(archived) != 1 {
		t.Fatalf("archived in the store: %d", len(archived))
	}
	tab.archived.SetChecked(false)
	tab.search.SetText("")
	tab.demoSel.SetSelectedIndex(1) // not yet demonstrated
	if len(tab.tasks) != 2 || !strings.HasPrefix(tab.demoSel.Selected, demoNot+" (2)") {
		t.Fatalf("not demonstrated: %v (%q)", goals(tab), tab.demoSel.Selected)
	}
}

func TestTasksTabAddEditAndImportPreview(t *testing.T) {
	tab, store, _ := newTasksFixture(t)
	added, err := tab.SaveTask(dataset.Task{Goal: "Find the wiki page of Ada", Category: dataset.Navigation, StartURL: "http://wiki.test/", Source: "manual"})
	if err != nil {
		t.Fatal(err)
	}
	added.Goal = "Find the wiki page of Ada Lovelace"
	if _, err := tab.SaveTask(added); err != nil {
		t.Fatal(err)
	}
	got, _ := store.GetTask(t.Context(), added.ID)
	if got.Goal != "Find the wiki page of Ada Lovelace" {
		t.Fatalf("edit not stored: %q", got.Goal)
	}
	if _, err := tab.SaveTask(dataset.Task{Goal: "x", Category: "shopping", StartURL: "http://a.test/"}); err == nil {
		t.Fatal("a task with an unknown category was saved")
	}

	csv := "instruction,website,type\nFind the cheapest tent,http://shop.test/,info\nNo url here,,navigation\nBook a workshop,http://forms.test/,weird\n"
	rep, err := store.PreviewImport(t.Context(), bytes.NewReader([]byte(csv)), "batch.csv", dataset.ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := countLine(rep); got != "Will import 1 of 3 rows as tasks (information 1): 2 skipped, 0 duplicates." {
		t.Errorf("count line %q", got)
	}
	rows := previewRows(rep)
	if len(rows) != 3 || rows[0].goal != "Find the cheapest tent" || rows[0].category != dataset.Information || rows[0].issue != "" ||
		!rows[1].skipped || !strings.Contains(rows[1].issue, "start URL") || !strings.Contains(rows[2].issue, `unknown category "weird"`) {
		t.Errorf("preview rows %+v", rows)
	}
	for f, col := range map[string]string{dataset.FieldGoal: "instruction", dataset.FieldURL: "website", dataset.FieldCategory: "type"} {
		if rep.Mapping[f] != col {
			t.Errorf("%s ← %q, want %q", f, rep.Mapping[f], col)
		}
	}
	if n, _ := store.CountTasks(t.Context(), dataset.TaskFilter{}); n.Total != 4 {
		t.Fatalf("a preview wrote tasks: %d", n.Total)
	}
}

// The import dialog lists task files only; every format the importer reads
// by extension is among them.
func TestTaskFileFilter(t *testing.T) {
	f := storage.NewExtensionFileFilter(TaskFileExtensions)
	for _, name := range []string{"a.jsonl", "a.ndjson", "a.json", "a.csv", "a.tsv", "a.tab", "a.parquet", "a.pq", "a.txt", "A.CSV"} {
		if !f.Matches(storage.NewFileURI("/x/" + name)) {
			t.Errorf("%s is not listed", name)
		}
	}
	for _, name := range []string{"r.db", "r.db-wal", "r.db-shm", "shot.png"} {
		if f.Matches(storage.NewFileURI("/x/" + name)) {
			t.Errorf("%s is listed", name)
		}
	}
}

// previewText returns the texts of the import preview the window shows,
// or "" when none shows.
func previewText(w fyne.Window) string {
	return strings.Join(overlayTexts(w), "\n")
}

// A dropped file is read off the Fyne goroutine; the preview shows once it
// has been read, and a file that cannot be read says so.
func TestImportFileShowsThePreviewWhenRead(t *testing.T) {
	tab, _, _, loop := newTasksFixtureLoop(t)
	path := filepath.Join(t.TempDir(), "batch.csv")
	if err := os.WriteFile(path, []byte("instruction,website,type\nFind the cheapest tent,http://shop.test/,info\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tab.ImportFile(path)
	tab.work.Wait()
	if previewText(tab.ctx.Window) != "" || loop.Run() != 1 {
		t.Fatal("the preview was not handed over once to the Fyne goroutine")
	}
	if got := previewText(tab.ctx.Window); !strings.Contains(got, "Import batch.csv") || !strings.Contains(got, "Will import 1 of 1 row as a task") {
		t.Fatalf("preview shows %q", got)
	}
	tab.ctx.Window.Canvas().Overlays().Top().Hide()

	tab.ImportFile(filepath.Join(filepath.Dir(path), "missing.csv"))
	tab.work.Wait()
	loop.Run()
	if top := tab.ctx.Window.Canvas().Overlays().Top(); top == nil || !dialogSays(top, "Cannot read "+filepath.Join(filepath.Dir(path), "missing.csv")) {
		t.Fatal("a missing file shows no error")
	}
}

// dialogSays reports whether a label in o contains text.
func dialogSays(o fyne.CanvasObject, text string) bool {
	for _, c := range test.LaidOutObjects(o) {
		if l, ok := c.(*widget.Label); ok && strings.Contains(l.Text, text) {
			return true
		}
	}
	return false
}
