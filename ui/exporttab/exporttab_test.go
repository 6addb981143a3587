package exporttab

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"fyne.io/fyne/v2/test"

	"waymark/dataset"
	"waymark/dataset/hfexport"
	"waymark/dataset/storetest"
	"waymark/ui"
)

// noisyPNG is an 800×600 picture about as heavy as a real screenshot,
// made once per package run.
func noisyPNG(t *testing.T) []byte {
	noisy.Do(func() { noisy.png = makeNoisyPNG(t) })
	return bytes.Clone(noisy.png)
}

var noisy struct {
	sync.Once
	png []byte
}

func makeNoisyPNG(t *testing.T) []byte {
	rng := rand.New(rand.NewSource(7))
	img := image.NewRGBA(image.Rect(0, 0, 800, 600))
	for y := 0; y < 600; y++ {
		for x := 0; x < 800; x++ {
			c := color.RGBA{200, 220, 240, 255}
			if y > 100 && y < 300 && rng.Intn(2) == 0 {
				c = color.RGBA{uint8(rng.Intn(256)), uint8(rng.Intn(256)), 0, 255}
			}
			img.SetRGBA(x, y, c)
		}
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// store makes a real store with episodes of steps, reviewed as success
// (every third one is left unreviewed).
func store(t *testing.T, episodes, steps int) *dataset.Store {
	t.Helper()
	s, err := dataset.Open(filepath.Join(t.TempDir(), "w.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	pic := noisyPNG(t)
	now := "2026-11-02T09:00:00.000Z"
	db := storetest.DB(t, s)
	exec := func(q string, args ...any) {
		if _, err := db.Exec(q, args...); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	for e := 0; e < episodes; e++ {
		task, ep := fmt.Sprintf("t%d", e), fmt.Sprintf("e%03d", e)
		exec(`INSERT INTO tasks (id, goal, category, start_url, created_at, updated_at) VALUES (?,?,?,?,?,?)`,
			task, "goal "+task, dataset.Categories[e%3], "http://127.0.0.1/"+task, now, now)
		exec(`INSERT INTO episodes (id, task_id, annotator, action_set, status, started_at, ended_at, num_steps) VALUES (?,?,?,?,?,?,?,?)`,
			ep, task, []string{"alice", "bob"}[e%2], "default", dataset.StatusFinished, now, now, steps)
		for i := 0; i <= steps; i++ {
			var aj any
			if i > 0 {
				aj = fmt.Sprintf(`{"op":"click","x":%d,"y":%d}`, i, i)
			}
			exec(`INSERT INTO steps (episode_id, idx, action_json, url, screenshot, created_at) VALUES (?,?,?,?,?,?)`,
				ep, i, aj, fmt.Sprintf("http://127.0.0.1/%s/%d", ep, i), pic, now)
		}
		if e%3 != 2 {
			exec(`INSERT INTO reviews (id, episode_id, reviewer, outcome, created_at) VALUES (?,?,?,?,?)`,
				"r"+ep, ep, "rita", dataset.OutcomeSuccess, now)
		}
	}
	return s
}

type notes struct {
	mu   sync.Mutex
	list []string
}

func (n *notes) add(title, body string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.list = append(n.list, title+": "+body)
}

func (n *notes) all() []string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return append([]string(nil), n.list...)
}

type run struct {
	res hfexport.Result
	err error
}

func newTab(t *testing.T, s *dataset.Store) (*Tab, *notes, chan run) {
	test.NewTempApp(t)
	n := &notes{}
	tab := New(&ui.Context{Store: s, Notify: n.add})
	test.NewTempWindow(t, tab.Content())
	ch := make(chan run, 1)
	tab.finished = func(r hfexport.Result, err error) { ch <- run{r, err} }
	return tab, n, ch
}

func wait(t *testing.T, ch chan run) run {
	t.Helper()
	select {
	case r := <-ch:
		return r
	case <-time.After(60 * time.Second):
		t.Fatal("export did not finish")
	}
	return run{}
}

func TestExportTabExports(t *testing.T) {
	s := store(t, 6, 3)
	tab, n, ch := newTab(t, s)
	if tab.Title() != "Export" {
		t.Errorf("title %q", tab.Title())
	}
	if got := strings.Join(tab.annotators.Options, ","); got != "alice,bob" {
		t.Errorf("annotators offered: %s", got)
	}
	dir := filepath.Join(t.TempDir(), "ds")

	// refused before starting: no folder, no licence
	test.Tap(tab.exportBtn)
	if !strings.Contains(tab.status.Text, "folder") || tab.Running() {
		t.Errorf("without a folder: %q", tab.status.Text)
	}
	test.Type(tab.out, dir)
	test.Tap(tab.exportBtn)
	if !strings.Contains(tab.status.Text, "licence") {
		t.Errorf("without a licence: %q", tab.status.Text)
	}
	tab.licence.SetText("cc-by-4.0")
	tab.testFraction.SetText("0")
	tab.annotators.SetSelected([]string{"alice"})
	test.Tap(tab.exportBtn)
	r := wait(t, ch)
	if r.err != nil {
		t.Fatalf("export: %v", r.err)
	}
	// alice has e000, e002, e004; e002 is unreviewed
	if r.res.Episodes != 2 || r.res.Steps != 6 {
		t.Errorf("result %+v", r.res)
	}
	if tab.bar.Value != 1 || !strings.Contains(tab.status.Text, "Exported 2 episodes") || !strings.Contains(tab.counts.Text, "2 / 2 episodes · 6 / 6 steps") {
		t.Errorf("bar %v, status %q, counts %q", tab.bar.Value, tab.status.Text, tab.counts.Text)
	}
	if _, err := os.Stat(filepath.Join(dir, "steps", "train-00000-of-00001.parquet")); err != nil {
		t.Errorf("no steps shard: %v", err)
	}
	if got := n.all(); len(got) != 1 || !strings.HasPrefix(got[0], "Export finished: 2 episodes, 6 steps") {
		t.Errorf("notifications %v", got)
	}
	if tab.exportBtn.Disabled() || !tab.cancelBtn.Disabled() {
		t.Errorf("buttons after the run: export disabled %v, cancel disabled %v", tab.exportBtn.Disabled(), tab.cancelBtn.Disabled())
	}

	// again into the same folder: refused until Replace is ticked
	test.Tap(tab.exportBtn)
	r = wait(t, ch)
	if !errors.Is(r.err, hfexport.ErrOutputExists) || !strings.Contains(tab.status.Text, "Export failed") {
		t.Errorf("second export: %v / %q", r.err, tab.status.Text)
	}
	tab.force.SetChecked(true)
	tab.unreviewed.SetChecked(true)
	test.Tap(tab.exportBtn)
	r = wait(t, ch)
	if r.err != nil || !r.res.Replaced || r.res.Episodes != 3 {
		t.Errorf("forced export with unreviewed: %+v %v", r.res, r.err)
	}
}

func TestExportTabCancel(t *testing.T) {
	s := store(t, 8, 40)
	tab, n, ch := newTab(t, s)
	dir := filepath.Join(t.TempDir(), "ds")
	tab.out.SetText(dir)
	tab.licence.SetText("other")
	test.Tap(tab.exportBtn)
	if !tab.Running() || tab.cancelBtn.Disabled() || !tab.exportBtn.Disabled() {
		t.Fatalf("not running after Export")
	}
	deadline := time.Now().Add(30 * time.Second)
	for tab.Progress().Steps == 0 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	// The Cancel button runs Cancel on the Fyne goroutine; the test driver
	// runs the worker's fyne.Do calls inline on the worker, so a tap from
	// here would race with them in the widgets. stop is Cancel without the
	// label.
	if !tab.stop() {
		t.Fatal("stop: no export running")
	}
	r := wait(t, ch)
	if !errors.Is(r.err, hfexport.ErrCancelled) {
		t.Fatalf("want cancelled, got %+v %v", r.res, r.err)
	}
	if !strings.Contains(tab.status.Text, "cancelled") || tab.Running() {
		t.Errorf("status %q", tab.status.Text)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("the target exists after a cancel")
	}
	entries, _ := os.ReadDir(filepath.Dir(dir))
	if len(entries) != 0 {
		t.Errorf("left behind: %v", entries)
	}
	if len(n.all()) != 0 {
		t.Errorf("a cancel should not notify: %v", n.all())
	}
	// the Cancel button when nothing runs: harmless
	test.Tap(tab.cancelBtn)
	if tab.Running() || !strings.Contains(tab.status.Text, "cancelled") {
		t.Errorf("after an idle Cancel: %q", tab.status.Text)
	}
	if tab.cancelBtn.OnTapped == nil {
		t.Error("Cancel button has no action")
	}
}

func TestSlug(t *testing.T) {
	if got := slug("Waymark browser task demonstrations!"); got != "waymark-browser-task-demonstrations" {
		t.Errorf("slug %q", got)
	}
}
