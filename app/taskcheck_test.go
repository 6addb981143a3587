package app

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Broken graders on the practice sites: one passes before anything is
// done, one never passes, one has no cheat script to check it with.
const brokenManifest = `[
 {"taskId": "broken.always-true", "goal": "Turn off the newsletter, then save.", "setupUrl": "http://forms.waymark.test/settings/notifications",
  "category": "interaction", "validateScript": "({reward: 1, done: true, message: 'always'})",
  "cheatScript": [{"tool": "chrome_click", "params": {"selector": "#save"}}]},
 {"taskId": "broken.wrong-key", "goal": "Switch to the dark theme, then save.", "setupUrl": "http://forms.waymark.test/settings/preferences",
  "category": "interaction", "validateScript": "return {reward: (JSON.parse(localStorage.getItem('wm_prefs') || '{}').theme === 'dark') ? 1 : 0, message: 'reads wm_prefs'};",
  "cheatScript": "document.getElementById('theme-dark').click(); document.getElementById('save').click();"},
 {"taskId": "broken.no-cheat", "goal": "Open the help page.", "setupUrl": "http://forms.waymark.test/help", "category": "navigation",
  "validateScript": "location.pathname === '/help'"}
]`

func TestTasksCheckArguments(t *testing.T) {
	db := filepath.Join(t.TempDir(), "w.db")
	for _, args := range [][]string{{"tasks", "check"}, {"tasks", "check", "a", "b"}, {"tasks", "check", "a", "--all"}} {
		code, _, errs := tasksRun(t, append([]string{"--db", db}, args...)...)
		if code != 2 || !strings.Contains(errs, "give one task id (or a manifest's taskId), or --all") {
			t.Errorf("%v: exit %d, %s", args, code, errs)
		}
	}
	code, out, errs := tasksRun(t, "--db", db, "tasks", "check", "--all")
	if code != 0 || !strings.Contains(out, "No task was imported from a manifest") {
		t.Errorf("no manifest tasks: exit %d\n%s%s", code, out, errs)
	}
	code, _, errs = tasksRun(t, "--db", db, "tasks", "check", "no.such.task")
	if code == 0 || !strings.Contains(errs, `no task has the id or taskId "no.such.task"`) {
		t.Errorf("unknown task: exit %d, %s", code, errs)
	}
}

// The shipped example manifest imports with the CLI and every grader in it
// checks out in one headless browser; deliberately broken graders are
// reported as broken and the command fails.
func TestTasksCheckPracticeManifest(t *testing.T) {
	if testing.Short() {
		t.Skip("starts Chromium")
	}
	dir := t.TempDir()
	db := filepath.Join(dir, "w.db")
	code, manifest, errs := tasksRun(t, "tasks", "example-manifest")
	if code != 0 || !strings.HasPrefix(manifest, "[") {
		t.Fatalf("example-manifest: exit %d\n%s", code, errs)
	}
	file := filepath.Join(dir, "task-manifest.json")
	broken := filepath.Join(dir, "broken.json")
	os.WriteFile(file, []byte(manifest), 0o644)
	os.WriteFile(broken, []byte(brokenManifest), 0o644)
	for _, f := range []string{file, broken} {
		code, out, errs := tasksRun(t, "--db", db, "tasks", "import", f)
		t.Log("\n" + out)
		if code != 0 || !strings.Contains(out, "(format manifest") {
			t.Fatalf("import %s: exit %d\n%s%s", f, code, out, errs)
		}
	}
	code, out, errs := tasksRun(t, "--db", db, "tasks", "check", "--all", "--display", "headless")
	t.Log("\n" + out + errs)
	if code != 1 {
		t.Errorf("exit %d with broken graders, want 1", code)
	}
	for _, want := range []string{
		"OK       waymark.practice.shop.L1.cart-ridgeline: reward 0 before the cheat, 1 after",
		"OK       waymark.practice.shop.L2.cart-trail-runner-42: reward 0 before the cheat, 1 after",
		"OK       waymark.practice.forms.L1.dark-monday: reward 0 before the cheat, 1 after",
		"OK       waymark.practice.forms.L2.2fa-timeout: reward 0 before the cheat, 1 after",
		"OK       waymark.practice.wiki.L1.open-varnholm: reward 0 before the cheat, 1 after",
		"BROKEN   broken.always-true: the validate script gives reward 1 on the untouched start page",
		`BROKEN   broken.wrong-key: the validate script gives reward 0 after the cheat script did the task (it must give 1) (its message: "reads wm_prefs")`,
		"SKIPPED  broken.no-cheat: the task has no cheatScript",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q", want)
		}
	}
	if !strings.Contains(errs, "2 of 8 task graders are broken") {
		t.Errorf("summary: %s", errs)
	}
}

// A manifest task asking for BrowserGym's 1280×720 viewport imports, and
// the import's task list says it is recorded at 800×600.
func TestTasksImportNamesOtherViewport(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "task-manifest.json")
	if err := os.WriteFile(file, []byte(`[{"taskId": "wide.one", "goal": "Open the help page.", "setupUrl": "http://forms.waymark.test/help",
  "category": "navigation", "viewport": {"width": 1280, "height": 720}}]`), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := tasksRun(t, "--db", filepath.Join(dir, "w.db"), "tasks", "import", file)
	if code != 0 || !strings.Contains(out, "wide.one: navigation") ||
		!strings.Contains(out, "asks for a 1280×720 viewport; recorded at 800×600 CSS pixels at scale 1") {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
}
