package exportdir

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The folder rules, each answer literal: a missing or empty folder is
// taken, a file or another tool's folder is refused even with force, a
// previous export only with force and only while it holds nothing but its
// marker, its files and Also.
func TestCheck(t *testing.T) {
	k := Kind{Format: "waymark-test", Name: "Waymark test export", Also: []string{"README.md"}}
	base := t.TempDir()
	write := func(name, body string) {
		t.Helper()
		p := filepath.Join(base, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	check := func(dir string, force, wantReplace bool, wantErr string) {
		t.Helper()
		replace, err := k.Check(filepath.Join(base, dir), force)
		switch {
		case wantErr == "" && (err != nil || replace != wantReplace):
			t.Errorf("%s (force %v): replace %v, err %v; want replace %v", dir, force, replace, err, wantReplace)
		case wantErr != "" && (!errors.Is(err, ErrOutputExists) || err.Error() != "output folder is not empty: "+filepath.Join(base, dir)+wantErr):
			t.Errorf("%s (force %v):\n got %v\nwant …%s", dir, force, err, wantErr)
		}
	}
	check("missing", true, false, "")
	if err := os.Mkdir(filepath.Join(base, "empty"), 0o755); err != nil {
		t.Fatal(err)
	}
	check("empty", false, false, "")
	write("file", "x")
	check("file", true, false, " is a file, not a folder; choose a new folder name")
	write("other/"+MarkerFile, `{"format":"waymark-hf-dataset","files":[]}`)
	check("other", true, false, " holds files that are not a Waymark test export; choose a new folder (nothing was changed)")
	write("prev/"+MarkerFile, `{"format":"waymark-test","files":["a/b.json","c.json"]}`)
	write("prev/a/b.json", "{}")
	write("prev/c.json", "{}")
	write("prev/README.md", "card")
	check("prev", false, false, " holds a previous Waymark export; replace it with --force (Force), or choose a new folder")
	check("prev", true, true, "")
	t.Chdir(base)
	if target, replace, err := k.Target("prev", true); target != filepath.Join(base, "prev") || !replace || err != nil {
		t.Errorf("Target(prev) from its parent: %q, replace %v, err %v", target, replace, err)
	}
	for _, n := range []string{"f.txt", "a/e.txt", "d/x.txt", "b.txt", "c.txt", "0.txt"} {
		write("prev/"+n, "mine")
	}
	check("prev", true, false, " holds a Waymark test export plus files Waymark did not write ("+
		strings.Join([]string{"0.txt", "a/e.txt", "b.txt", "c.txt", "d", "…"}, ", ")+"); move them away or choose a new folder (nothing was changed)")
	if _, err := os.Stat(filepath.Join(base, "prev", "f.txt")); err != nil {
		t.Errorf("a file of someone's went away: %v", err)
	}
}
