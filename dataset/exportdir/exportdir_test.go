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

// syncDir passes on the reason a folder cannot be opened (the export's
// message then says the folder is missing, not "invalid argument").
func TestSyncDirMissingFolder(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "gone")
	err := syncDir(missing)
	if !errors.Is(err, os.ErrNotExist) || err.Error() != "open "+missing+": no such file or directory" {
		t.Errorf("syncDir of a missing folder: %v", err)
	}
	if err := syncDir(t.TempDir()); err != nil {
		t.Errorf("syncDir of a folder: %v", err)
	}
}

// An export is written beside its target and appears there only on
// Commit; Abort leaves nothing; the next Begin removes what a crashed
// export left, but not the folder of one still running; a replaced
// export leaves no hidden folder behind.
func TestPartialFolders(t *testing.T) {
	parent := filepath.Join(t.TempDir(), "exports")
	target := filepath.Join(parent, "ds")
	names := func() []string {
		t.Helper()
		ents, err := os.ReadDir(parent)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, e := range ents {
			out = append(out, e.Name())
		}
		return out
	}
	running, err := Begin(target, 0o700)
	if err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(parent); err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("the parent made: %v, %v", fi, err)
	}
	crashed := filepath.Join(parent, ".ds.waymark-partial-1")
	if err := os.MkdirAll(filepath.Join(crashed, "steps"), 0o700); err != nil {
		t.Fatal(err)
	}
	p, err := Begin(target, 0o700)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(crashed); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the crashed export's folder is still there: %v", err)
	}
	if _, err := os.Stat(running.Dir); err != nil {
		t.Errorf("the running export's folder went away: %v", err)
	}
	running.Abort()
	if err := os.WriteFile(filepath.Join(p.Dir, "a.json"), []byte("1"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := p.Commit(false); err != nil {
		t.Fatal(err)
	}
	if got := names(); strings.Join(got, " ") != "ds" {
		t.Errorf("after the first export the folder holds %q, want [ds]", got)
	}
	p, err = Begin(target, 0o700)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(p.Dir, "b.json"), []byte("2"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := p.Commit(true); err != nil {
		t.Fatal(err)
	}
	if got := names(); strings.Join(got, " ") != "ds" {
		t.Errorf("after the replacing export the folder holds %q, want [ds]", got)
	}
	if ents, _ := os.ReadDir(target); len(ents) != 1 || ents[0].Name() != "b.json" {
		t.Errorf("the export holds %v, want b.json only", ents)
	}
}
