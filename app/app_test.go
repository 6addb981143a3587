package app

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestMainHelpAndUnknownCommand(t *testing.T) {
	var out, errb bytes.Buffer
	if code := Main([]string{"help"}, strings.NewReader(""), &out, &errb); code != 0 {
		t.Fatalf("help: exit %d, stderr %q", code, errb.String())
	}
	for name := range commands {
		if !strings.Contains(out.String(), "waymark "+name) {
			t.Errorf("help does not list %q:\n%s", name, out.String())
		}
	}
	out.Reset()
	errb.Reset()
	if code := Main([]string{"frob"}, strings.NewReader(""), &out, &errb); code != 2 {
		t.Fatalf("unknown command: exit %d, want 2", code)
	}
	if !strings.Contains(errb.String(), `unknown command "frob"`) || !strings.Contains(errb.String(), "waymark help") {
		t.Errorf("unknown command message = %q", errb.String())
	}
}

func TestMainDBFlagWinsOverEnv(t *testing.T) {
	dir := t.TempDir()
	flagDB, envDB := filepath.Join(dir, "flag.db"), filepath.Join(dir, "env.db")
	t.Setenv("WAYMARK_DB", envDB)
	var out, errb bytes.Buffer
	if code := Main([]string{"--db", flagDB, "tasks", "list"}, strings.NewReader(""), &out, &errb); code != 0 {
		t.Fatalf("tasks list: exit %d, stderr %q", code, errb.String())
	}
	if _, err := os.Stat(flagDB); err != nil {
		t.Errorf("--db file not created: %v", err)
	}
	if _, err := os.Stat(envDB); err == nil {
		t.Errorf("WAYMARK_DB was used although --db was given")
	}
	if code := Main([]string{"tasks", "list"}, strings.NewReader(""), &out, &errb); code != 0 {
		t.Fatalf("tasks list: exit %d, stderr %q", code, errb.String())
	}
	if _, err := os.Stat(envDB); err != nil {
		t.Errorf("WAYMARK_DB not used without --db: %v", err)
	}
	errb.Reset()
	if code := Main([]string{"--db", filepath.Join(flagDB, "x.db"), "tasks", "list"}, strings.NewReader(""), &out, &errb); code == 0 {
		t.Fatalf("a database path under a file was accepted")
	}
	if !strings.Contains(errb.String(), flagDB) {
		t.Errorf("the error does not name the chosen path: %q", errb.String())
	}
}

func TestGUIWithoutDisplaySaysWhatToDo(t *testing.T) {
	t.Setenv("DISPLAY", "")
	t.Setenv("WAYLAND_DISPLAY", "")
	var out, errb bytes.Buffer
	code := Main([]string{"--db", filepath.Join(t.TempDir(), "w.db")}, strings.NewReader(""), &out, &errb)
	if code != 1 {
		t.Fatalf("exit %d, want 1; stderr %q", code, errb.String())
	}
	for _, want := range []string{"DISPLAY", "xvfb-run", "play, serve"} {
		if !strings.Contains(errb.String(), want) {
			t.Errorf("message lacks %q: %q", want, errb.String())
		}
	}
	if err := checkDisplay("linux", func(k string) string {
		if k == "WAYLAND_DISPLAY" {
			return "wayland-0"
		}
		return ""
	}); err != nil {
		t.Errorf("a Wayland session was refused: %v", err)
	}
	if err := checkDisplay("windows", func(string) string { return "" }); err != nil {
		t.Errorf("Windows needs no DISPLAY: %v", err)
	}
}

// The global options go before or after the command: every subcommand
// takes --db after its name too, and it means what it means before.
func TestGlobalOptionsAfterTheCommand(t *testing.T) {
	db := filepath.Join(t.TempDir(), "after.db")
	for _, args := range [][]string{
		{"gui"}, {"serve"}, {"play"}, {"replay"}, {"export"}, {"har"}, {"endpoints"}, {"endpoints", "search"},
		{"review", "stats"}, {"tasks", "import"}, {"tasks", "list"}, {"tasks", "check"}, {"merge"}, {"gif"}, {"cut"},
	} {
		var out, errb bytes.Buffer
		code := Main(append(append([]string{}, args...), "--db", db, "-h"), strings.NewReader(""), &out, &errb)
		if code != 0 || strings.Contains(errb.String(), "not defined") {
			t.Errorf("%q --db FILE -h: exit %d, %q", args, code, errb.String())
		}
	}
	for _, name := range []string{"gui", "serve", "play", "replay", "export", "har", "endpoints", "review", "tasks", "merge", "gif", "cut"} {
		if _, ok := commands[name]; !ok {
			t.Errorf("the test misses no command, but %q is not registered", name)
		}
	}
	if len(commands) != 12 {
		t.Errorf("%d commands registered: add the new ones to this test", len(commands))
	}
	var out, errb bytes.Buffer
	if code := Main([]string{"tasks", "list", "--db", db}, strings.NewReader(""), &out, &errb); code != 0 {
		t.Fatalf("tasks list --db: exit %d, %q", code, errb.String())
	}
	if _, err := os.Stat(db); err != nil {
		t.Errorf("tasks list --db did not use the file: %v", err)
	}
	errb.Reset()
	if code := Main([]string{"review", "stats", "--db", filepath.Join(t.TempDir(), "none.db")}, strings.NewReader(""), &out, &errb); code != 1 ||
		!strings.Contains(errb.String(), "none.db") {
		t.Errorf("review stats --db MISSING: exit %d, %q", code, errb.String())
	}
}
