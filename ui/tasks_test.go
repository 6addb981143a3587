package ui

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/storage"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"waymark/dataset"
	"waymark/engine/action"
)

func newTasksFixture(t *testing.T) (*TasksTab, *dataset.Store, *[]dataset.Task) {
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
		if _, err := store.AddTask(task); err != nil {
			t.Fatal(err)
		}
	}
	var started []dataset.Task
	w := test.NewTempWindow(t, nil)
	tab := NewTasksTab(&Context{App: fyne.CurrentApp(), Window: w, Store: store}, func(t dataset.Task) { started = append(started, t) })
	w.SetContent(tab.Content())
	w.Resize(fyne.NewSize(1100, 700))
	return tab, store, &started
}

func goals(tab *TasksTab) []string {
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
	archived, _ := store.ListTasks(dataset.TaskFilter{Archived: true})
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
	got, _ := store.GetTask(added.ID)
	if got.Goal != "Find the wiki page of Ada Lovelace" {
		t.Fatalf("edit not stored: %q", got.Goal)
	}
	if _, err := tab.SaveTask(dataset.Task{Goal: "x", Category: "shopping", StartURL: "http://a.test/"}); err == nil {
		t.Fatal("a task with an unknown category was saved")
	}

	csv := "instruction,website,type\nFind the cheapest tent,http://shop.test/,info\nNo url here,,navigation\nBook a workshop,http://forms.test/,weird\n"
	rep, err := store.PreviewImport(bytes.NewReader([]byte(csv)), "batch.csv", dataset.ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	text := ImportPreviewText(rep)
	for _, want := range []string{"goal         ← instruction", "url          ← website", "category     ← type", "Will import 1 task(s)", "2 row(s) will be skipped", "row 2", "row 3"} {
		if !strings.Contains(text, want) {
			t.Errorf("preview lacks %q:\n%s", want, text)
		}
	}
	if n, _ := store.CountTasks(dataset.TaskFilter{}); n.Total != 4 {
		t.Fatalf("a preview wrote tasks: %d", n.Total)
	}
}

func TestSettingsRoundTripAndValidation(t *testing.T) {
	a := test.NewTempApp(t)
	p := a.Preferences()
	s := LoadSettings(p)
	if s.MaxSteps != 20 || s.ActionSet != action.SetDefault || s.Annotator != "" {
		t.Fatalf("defaults %+v", s)
	}
	if err := s.Validate(); err == nil || !strings.Contains(err.Error(), "name") {
		t.Fatalf("an empty name must be refused with a reason, got %v", err)
	}
	s.Annotator, s.MaxSteps, s.ActionSet, s.Display = "Ada", 150, action.SetExtended, "headless"
	s.Save(p)
	if got := LoadSettings(p); got != s {
		t.Fatalf("round trip %+v != %+v", got, s)
	}
	p.SetInt(prefMaxSteps, 999) // out of range: back to the default
	if got := LoadSettings(p); got.MaxSteps != 20 {
		t.Fatalf("max steps %d", got.MaxSteps)
	}
	items, read := settingsForm(s)
	items[3].Widget.(interface{ SetText(string) }).SetText("abc")
	if _, err := read(); err == nil {
		t.Fatal("a non-number of steps was accepted")
	}
	items[3].Widget.(interface{ SetText(string) }).SetText("50")
	got, err := read()
	if err != nil || got.MaxSteps != 50 {
		t.Fatalf("%+v %v", got, err)
	}
	items[7].Widget.(interface{ SetText(string) }).SetText("ftp://example.org")
	if _, err := read(); err == nil || !strings.Contains(err.Error(), "OpenEnv server") {
		t.Fatalf("a bad OpenEnv server address was accepted: %v", err)
	}
	items[7].Widget.(interface{ SetText(string) }).SetText("http://127.0.0.1:8000")
	if got, err := read(); err != nil || got.Server != "http://127.0.0.1:8000" {
		t.Fatalf("%+v %v", got, err)
	}
}

// A wrong value keeps the Settings dialog open with the error under the
// field (Save stays off), so no edit is lost; the server's printed
// ws://…/ws address is accepted; the database field says which file is in
// use and when a change applies.
func TestSettingsDialogKeepsEditsAndNamesTheDatabase(t *testing.T) {
	test.NewTempApp(t).Settings().SetTheme(theme.DefaultTheme())
	cur := DefaultSettings()
	cur.Annotator = "Ada"
	cur.DBInUse, cur.DBFromCommandLine = "/data/r/r.db", true
	items, read := settingsForm(cur)
	var db, srv *widget.FormItem
	for _, it := range items {
		switch it.Text {
		case "Database file":
			db = it
		case "OpenEnv server":
			srv = it
		}
	}
	if !strings.Contains(db.HintText, "/data/r/r.db") || !strings.Contains(db.HintText, "--db") || strings.Contains(db.Widget.(*widget.Entry).PlaceHolder, "default location") {
		t.Errorf("database field: hint %q, placeholder %q", db.HintText, db.Widget.(*widget.Entry).PlaceHolder)
	}
	e := srv.Widget.(*widget.Entry)
	e.SetText("ftp://nowhere")
	if err := e.Validate(); err == nil || !strings.Contains(err.Error(), "OpenEnv server") {
		t.Fatalf("a bad server address passes the field's check: %v", err)
	}
	w := test.NewTempWindow(t, nil)
	w.Resize(fyne.NewSize(900, 700))
	d := dialog.NewForm("Settings", "Save", "Cancel", items, func(bool) {}, w)
	d.Show()
	saved := false
	for _, o := range test.LaidOutObjects(w.Canvas().Overlays().Top()) {
		if b, ok := o.(*widget.Button); ok && b.Text == "Save" {
			saved = true
			if !b.Disabled() {
				t.Error("Save is enabled while the server address is wrong")
			}
		}
	}
	if !saved {
		t.Fatal("no Save button in the dialog")
	}
	e.SetText("ws://127.0.0.1:8000/ws")
	if err := e.Validate(); err != nil {
		t.Fatalf("the address the server prints is refused: %v", err)
	}
	got, err := read()
	if err != nil || got.Server != "http://127.0.0.1:8000" {
		t.Fatalf("ws form read as %q, %v", got.Server, err)
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
