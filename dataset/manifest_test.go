package dataset_test

import (
	"bytes"
	"database/sql"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"waymark/assets/practice"
	"waymark/dataset"
)

// The practice sites' example manifest imports into a real store: each
// field lands where the manifest says, the rest is kept in manifest_json.
func TestImportPracticeManifest(t *testing.T) {
	path := filepath.Join(t.TempDir(), "w.db")
	s, err := dataset.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()

	prev, err := s.PreviewImport(t.Context(), bytes.NewReader(practice.Manifest), "task-manifest.json", dataset.ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if prev.Format != "manifest" || prev.Imported != 5 || len(prev.Skipped) != 0 {
		t.Fatalf("preview: format %s, %d tasks, skipped %v", prev.Format, prev.Imported, prev.Skipped)
	}
	if got, _ := s.ManifestTasks(t.Context()); len(got) != 0 {
		t.Fatalf("the preview stored %d tasks", len(got))
	}

	rep, err := s.ImportTasks(t.Context(), bytes.NewReader(practice.Manifest), "task-manifest.json", dataset.ImportOptions{})
	if err != nil || rep.Imported != 5 {
		t.Fatalf("import: %v, %d imported, skipped %v", err, rep.Imported, rep.Skipped)
	}
	tasks, err := s.ManifestTasks(t.Context())
	if err != nil || len(tasks) != 5 {
		t.Fatalf("ManifestTasks: %v, %d", err, len(tasks))
	}
	want := []struct{ sourceID, category, from, url string }{
		{"waymark.practice.shop.L1.cart-ridgeline", "interaction", "category", "http://shop.waymark.test/category/backpacks"},
		{"waymark.practice.shop.L2.cart-trail-runner-42", "interaction", "tags", "http://shop.waymark.test/product/trail-runner-x"},
		{"waymark.practice.forms.L1.dark-monday", "interaction", "tags", "http://forms.waymark.test/settings/preferences"},
		{"waymark.practice.forms.L2.2fa-timeout", "interaction", "inferred", "http://forms.waymark.test/settings/security"},
		{"waymark.practice.wiki.L1.open-varnholm", "navigation", "category", "http://wiki.waymark.test/"},
	}
	for i, w := range want {
		got := tasks[i]
		if got.SourceID != w.sourceID || got.Category != w.category || got.StartURL != w.url || got.Manifest == nil ||
			got.Manifest.CategoryFrom != w.from || got.Source != "task-manifest.json" {
			t.Errorf("task %d: %s %s %s (category from %v), want %+v", i, got.SourceID, got.Category, got.StartURL, got.Manifest, w)
		}
	}
	two := tasks[3]
	if two.Locale != "en-GB" || two.Timezone != "Europe/London" || two.Check != nil {
		t.Errorf("locale, time zone, check: %q %q %v", two.Locale, two.Timezone, two.Check)
	}
	m := two.Manifest
	if m.MaxSteps != 10 || m.HumanBaseline == nil || *m.HumanBaseline != 1 || m.Difficulty != "L2" || m.Viewport == nil ||
		!strings.HasPrefix(m.CheatScript, `[{"params":{"selector":"#twoFactor"},"tool":"chrome_click"}`) ||
		!strings.Contains(m.ValidateScript, "sessionTimeout === '30'") || string(m.Extra["site"]) != `"forms"` {
		t.Errorf("2fa manifest: %+v", m)
	}
	wiki := tasks[4]
	if wiki.Goal != "Open the wiki article about the city of Varnholm." {
		t.Errorf("goal from goalObject: %q", wiki.Goal)
	}
	if v := dataset.TaskValidator(wiki); v == nil || !v.EachStep || !strings.Contains(v.Script, "/wiki/Varnholm") {
		t.Errorf("wiki validator: %+v", v)
	}
	if dataset.TaskValidator(dataset.Task{}) != nil {
		t.Error("a task without a manifest has a validator")
	}

	// The stored JSON keeps the manifest's key names.
	db, err := sql.Open("sqlite3", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var mj string
	if err := db.QueryRow(`SELECT manifest_json FROM tasks WHERE source_id=?`, "waymark.practice.shop.L1.cart-ridgeline").Scan(&mj); err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{`"taskId":"waymark.practice.shop.L1.cart-ridgeline"`, `"seed":101`, `"viewport":{"width":800,"height":600}`,
		`"setupUrl":"http://shop.waymark.test/category/backpacks"`, `"actionSubsets":["bid","nav"]`, `"waymarkCategoryFrom":"category"`} {
		if !strings.Contains(mj, key) {
			t.Errorf("manifest_json lacks %s:\n%s", key, mj)
		}
	}
	var n int
	db.QueryRow(`SELECT COUNT(*) FROM tasks WHERE manifest_json IS NULL AND source = 'task-manifest.json'`).Scan(&n)
	if n != 0 {
		t.Errorf("%d imported tasks have no manifest_json", n)
	}

	// Found by taskId as by id; again: all duplicates.
	if got, err := s.FindTaskRef(t.Context(), "waymark.practice.wiki.L1.open-varnholm"); err != nil || got.ID != wiki.ID {
		t.Errorf("FindTaskRef by taskId: %v %v", got.ID, err)
	}
	if got, err := s.FindTaskRef(t.Context(), wiki.ID); err != nil || got.SourceID != wiki.SourceID {
		t.Errorf("FindTaskRef by id: %v %v", got.SourceID, err)
	}
	if _, err := s.FindTaskRef(t.Context(), "nope.L9"); !errors.Is(err, dataset.ErrNotFound) || !strings.Contains(err.Error(), `no task has the id or taskId "nope.L9"`) {
		t.Errorf("FindTaskRef of an unknown id: %v", err)
	}
	again, err := s.ImportTasks(t.Context(), bytes.NewReader(practice.Manifest), "task-manifest.json", dataset.ImportOptions{})
	if err != nil || again.Imported != 0 || len(again.Duplicates) != 5 {
		t.Errorf("re-import: %v, %d imported, %d duplicates", err, again.Imported, len(again.Duplicates))
	}
}

// A pi-chrome manifest: relative setupUrl with placeholders, its 1280×720
// viewport kept (Waymark records at 800×600), the single-object and
// {"tasks": [...]} forms.
func TestImportManifestURLsAndRefusals(t *testing.T) {
	s, err := dataset.Open(filepath.Join(t.TempDir(), "w.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	file := `{"tasks": [
 {"taskId": "choredesk.L1.a", "goal": "Do A", "setupUrl": "scenarios/choredesk/index.html?run=$RUN_ID&seed=${SEED}", "seed": 202},
 {"taskId": "choredesk.L1.b", "goal": "Do B", "setupUrl": "scenarios/choredesk/index.html?b", "viewport": {"width": 1280, "height": 720}},
 {"taskId": "choredesk.L1.c", "goal": "Do C", "setupUrl": "scenarios/c.html", "timezoneId": "Mars/Olympus"},
 {"taskId": "choredesk.L1.d", "goalObject": [{"role": "user", "content": "Tell me the ticket count"}], "startUrl": "https://example.com/d",
  "allowedActions": ["scroll", "send_msg_to_user"], "answer": "7"},
 {"taskId": "choredesk.L1.e", "goal": "Do E", "setupUrl": "https://example.com/e", "validateEachStep": true}
]}`
	rep, err := s.PreviewImport(t.Context(), strings.NewReader(file), "task-manifest.json", dataset.ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	reasons := map[int]string{}
	for _, is := range rep.Skipped {
		reasons[is.Row] = is.Reason
	}
	for row, want := range map[int]string{
		1: `task "choredesk.L1.a", field setupUrl: "scenarios/choredesk/index.html?run=waymark&seed=202" is a relative address; give the address the manifest's pages are served at (waymark tasks import FILE --base-url http://127.0.0.1:8765/)`,
		2: `task "choredesk.L1.b", field setupUrl: "scenarios/choredesk/index.html?b" is a relative address`,
		5: `task "choredesk.L1.e", field validateEachStep: there is no validateScript to run`,
	} {
		if !strings.HasPrefix(reasons[row], want) {
			t.Errorf("row %d:\n got %q\nwant %q…", row, reasons[row], want)
		}
	}
	if rep.Imported != 1 || rep.Tasks[0].Category != dataset.Information || rep.Tasks[0].Manifest.CategoryFrom != "inferred" ||
		rep.Tasks[0].Check == nil || rep.Tasks[0].Check.Answer != "7" || rep.Tasks[0].Goal != "Tell me the ticket count" {
		t.Fatalf("the answer task: %+v", rep.Tasks)
	}

	// With the base URL the relative addresses resolve; a bad base is named.
	rep, err = s.ImportTasks(t.Context(), strings.NewReader(file), "task-manifest.json", dataset.ImportOptions{BaseURL: "http://127.0.0.1:8765/suite/"})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Skipped) != 2 || !strings.Contains(rep.Skipped[0].Reason, `task "choredesk.L1.c", field timezoneId:`) {
		t.Errorf("with the base URL, skipped: %v", rep.Skipped)
	}
	var urls []string
	for _, tk := range rep.Tasks {
		urls = append(urls, tk.StartURL)
		if tk.SourceID == "choredesk.L1.b" && (tk.Manifest == nil || tk.Manifest.Viewport == nil || tk.Manifest.Viewport.Width != 1280 ||
			!strings.HasPrefix(tk.Manifest.ViewportNote(), "asks for a 1280×720 viewport")) {
			t.Errorf("the 1280×720 task's manifest: %+v", tk.Manifest)
		}
	}
	if strings.Join(urls, " ") != "http://127.0.0.1:8765/suite/scenarios/choredesk/index.html?run=waymark&seed=202 http://127.0.0.1:8765/suite/scenarios/choredesk/index.html?b https://example.com/d" {
		t.Errorf("start URLs: %v", urls)
	}
	one := `{"taskId": "x.y", "goal": "Do X", "setupUrl": "x.html"}`
	rep, _ = s.PreviewImport(t.Context(), strings.NewReader(one), "one.json", dataset.ImportOptions{BaseURL: "ftp://host/"})
	if rep.Rows != 1 || len(rep.Skipped) != 1 || !strings.Contains(rep.Skipped[0].Reason, `the base URL "ftp://host/" is not an http(s) address`) {
		t.Errorf("a single task object with a bad base URL: %+v", rep.Skipped)
	}
	rep, _ = s.PreviewImport(t.Context(), strings.NewReader(one), "one.json", dataset.ImportOptions{BaseURL: "http://h:1/", DefaultCategory: "navigation"})
	if rep.Imported != 1 || rep.Tasks[0].Category != dataset.Navigation || rep.Tasks[0].Manifest.CategoryFrom != "default" {
		t.Errorf("default category: %+v", rep.Tasks)
	}
}
