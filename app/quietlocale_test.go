package app

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// A command-line command prints nothing of the GUI toolkit, whatever the
// locale: Debian and Ubuntu containers default to LANG=C.UTF-8, which the
// toolkit cannot parse, and some environments leave LANG unset.
func TestCommandsPrintNothingOfTheToolkit(t *testing.T) {
	bin := buildBinary(t)
	db := filepath.Join(t.TempDir(), "w.db")
	cases := map[string][]string{
		"LANG=C.UTF-8":     {"LANG=C.UTF-8"},
		"LC_ALL=C.UTF-8":   {"LC_ALL=C.UTF-8", "LANG=en_US.UTF-8"},
		"LANG unset":       nil,
		"LANG=POSIX":       {"LANG=POSIX"},
		"LANG=de_DE.UTF-8": {"LANG=de_DE.UTF-8"},
	}
	for name, vars := range cases {
		t.Run(name, func(t *testing.T) {
			cmd := exec.Command(bin, "--db", db, "tasks", "list")
			for _, kv := range os.Environ() {
				switch strings.SplitN(kv, "=", 2)[0] {
				case "LANG", "LC_ALL", "LC_MESSAGES", "LANGUAGE":
					continue
				}
				cmd.Env = append(cmd.Env, kv)
			}
			cmd.Env = append(cmd.Env, vars...)
			var stderr strings.Builder
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("tasks list: %v\n%s", err, stderr.String())
			}
			if !strings.Contains(string(out), "waymark-practice") {
				t.Fatalf("tasks list printed no practice task:\n%s", out)
			}
			if s := stderr.String(); s != "" {
				t.Fatalf("tasks list wrote to stderr:\n%s", s)
			}
		})
	}
}
