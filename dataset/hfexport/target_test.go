package hfexport

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// A previous export holding files Waymark did not write is refused even with
// force, and the message names them sorted: all of them up to five, the
// first five and "…" beyond.
func TestCheckTargetListsForeignFiles(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "ds")
	if err := os.MkdirAll(filepath.Join(dir, "steps"), 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(name, body string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(".waymark-export", `{"format":"waymark-hf-dataset","version":1,"files":["steps/train-00000-of-00001.parquet"]}`)
	write("README.md", "card")
	write("steps/train-00000-of-00001.parquet", "x")
	if replace, err := exportKind.Check(dir, true); err != nil || !replace {
		t.Fatalf("a clean previous export: replace %v, err %v", replace, err)
	}
	for _, n := range []string{"e.txt", "b.txt", "d.txt", "a.txt", "c.txt"} {
		write(n, "mine")
	}
	want := func(list string) string {
		return "output folder is not empty: " + dir + " holds a Waymark export plus files Waymark did not write (" + list +
			"); move them away or choose a new folder (nothing was changed)"
	}
	_, err := exportKind.Check(dir, true)
	if !errors.Is(err, ErrOutputExists) || err.Error() != want("a.txt, b.txt, c.txt, d.txt, e.txt") {
		t.Errorf("five foreign files:\n got %v\nwant %s", err, want("a.txt, b.txt, c.txt, d.txt, e.txt"))
	}
	write("0.txt", "mine")
	_, err = exportKind.Check(dir, true)
	if !errors.Is(err, ErrOutputExists) || err.Error() != want("0.txt, a.txt, b.txt, c.txt, d.txt, …") {
		t.Errorf("six foreign files:\n got %v\nwant %s", err, want("0.txt, a.txt, b.txt, c.txt, d.txt, …"))
	}
	if _, err := os.Stat(filepath.Join(dir, "e.txt")); err != nil {
		t.Errorf("a foreign file went away: %v", err)
	}
}

// A folder whose marker file is not Waymark's (another format, or not JSON)
// holds files that are not a Waymark export: refused even with force.
func TestCheckTargetForeignMarker(t *testing.T) {
	for _, body := range []string{`{"format":"other-tool","version":1,"files":[]}`, `not json`} {
		dir := filepath.Join(t.TempDir(), "ds")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, ".waymark-export"), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		want := "output folder is not empty: " + dir + " holds files that are not a Waymark export; choose a new folder (nothing was changed)"
		if _, err := exportKind.Check(dir, true); !errors.Is(err, ErrOutputExists) || err.Error() != want {
			t.Errorf("marker %s:\n got %v\nwant %s", body, err, want)
		}
	}
}
