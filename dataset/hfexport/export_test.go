package hfexport

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"syscall"
	"testing"

	"waymark/dataset"
	"waymark/engine/action"
)

func opts(out string) Options {
	return Options{Out: out, TestFraction: 0.3, License: "cc-by-4.0", Name: "Test set"}
}

func mustExport(t *testing.T, f *fixture, o Options) Result {
	t.Helper()
	res, err := Export(context.Background(), f.store, o, nil)
	if err != nil {
		t.Fatalf("export: %v", err)
	}
	return res
}

// dbStep is a step as stored, for comparing with what was exported.
type dbStep struct {
	url, actionJSON string
	shot            []byte
}

func loadSteps(t *testing.T, f *fixture, ep string) []dbStep {
	var out []dbStep
	for st, err := range f.store.EpisodeSteps(context.Background(), ep) {
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, dbStep{url: st.URL, actionJSON: st.ActionJSON, shot: st.Screenshot})
	}
	return out
}

func TestExportStandard(t *testing.T) {
	f := standard(t)
	out := filepath.Join(t.TempDir(), "ds")
	var last Progress
	calls := 0
	res, err := Export(context.Background(), f.store, opts(out), func(p Progress) { last = p; calls++ })
	if err != nil {
		t.Fatal(err)
	}
	fo := checkFolder(t, out)
	if d := os.Getenv("HFEXPORT_KEEP"); d != "" { // for a look by hand
		o := opts(d)
		o.Force = true
		mustExport(t, f, o)
	}

	// which episodes: finished with an outcome (single, agreeing, settled),
	// and the interrupted one a reviewer labelled
	var want []string
	for i := 0; i < 10; i++ {
		want = append(want, fmt.Sprintf("ep-%02d-a", i))
		if i%2 == 0 {
			want = append(want, fmt.Sprintf("ep-%02d-b", i))
		}
	}
	want = append(want, "ep-04-c", "ep-07-c")
	sort.Strings(want)
	var got []string
	epSplit := map[string]string{}
	taskSplit := map[string]string{}
	episodeRows := map[string]episodeRow{}
	for split, rows := range fo.episodes {
		for _, r := range rows {
			got = append(got, *r.EpisodeID)
			epSplit[*r.EpisodeID] = split
			episodeRows[*r.EpisodeID] = r
			if s, ok := taskSplit[*r.TaskID]; ok && s != split {
				t.Errorf("task %s is in both %s and %s", *r.TaskID, s, split)
			}
			taskSplit[*r.TaskID] = split
			if splitOf(*r.TaskID, 0.3) != split {
				t.Errorf("task %s in %s, hash says %s", *r.TaskID, split, splitOf(*r.TaskID, 0.3))
			}
		}
	}
	sort.Strings(got)
	if !slices.Equal(got, want) {
		t.Fatalf("exported episodes\n got %v\nwant %v", got, want)
	}
	if len(fo.episodes["train"]) == 0 || len(fo.episodes["test"]) == 0 {
		t.Fatalf("want both splits with 10 tasks at 0.3; got train %d, test %d", len(fo.episodes["train"]), len(fo.episodes["test"]))
	}
	if res.Episodes != len(want) || last.Episodes != len(want) || last.Steps != res.Steps || calls < 2 || last.Bytes == 0 {
		t.Errorf("result %+v, last progress %+v after %d calls", res, last, calls)
	}

	// outcomes and review figures
	for id, r := range episodeRows {
		var wantOutcome dataset.Outcome
		switch {
		case strings.HasSuffix(id, "-b"):
			wantOutcome = dataset.OutcomeSuccess
		case id == "ep-04-c":
			wantOutcome = dataset.OutcomeFailure
		case id == "ep-07-c":
			wantOutcome = dataset.OutcomeSuccess
		default:
			var i int
			fmt.Sscanf(id, "ep-%02d-a", &i)
			wantOutcome = dataset.Outcomes[i%4]
		}
		if r.Outcome == nil || dataset.Outcomes[*r.Outcome] != wantOutcome {
			t.Errorf("%s: outcome %v, want %s", id, r.Outcome, wantOutcome)
		}
		if wantOutcome == dataset.OutcomeFailure && (r.FailureStep == nil || *r.FailureStep != 2 || r.FailureType == nil || *r.FailureType != "wrong_element") {
			t.Errorf("%s: failure step/type %v %v", id, r.FailureStep, r.FailureType)
		}
		wantReviews := int64(1)
		if strings.HasSuffix(id, "-b") || id == "ep-04-c" {
			wantReviews = 2
		}
		if *r.NumReviews != wantReviews {
			t.Errorf("%s: num_reviews %d, want %d", id, *r.NumReviews, wantReviews)
		}
		wantStatus := dataset.StatusFinished
		if id == "ep-07-c" {
			wantStatus = dataset.StatusInterrupted
		}
		if r.Status == nil || *r.Status != string(wantStatus) || r.EndReason == nil || *r.EndReason != string(wantStatus) {
			t.Errorf("%s: status %v, end_reason %v, want %s", id, r.Status, r.EndReason, wantStatus)
		}
		if r.ReviewReason == nil || *r.ReviewReason != "" { // the fixture's reviews give no reason
			t.Errorf("%s: review_reason %v, want an empty string", id, r.ReviewReason)
		}
		if r.Category == nil || dataset.Categories[*r.Category] == "" || r.StartedAt == nil || r.DurationMS == nil || *r.DurationMS <= 0 {
			t.Errorf("%s: category/started_at/duration missing: %+v", id, r)
		}
		db := loadSteps(t, f, id)
		if *r.NumSteps != int64(len(db)-1) || len(r.Steps) != len(db)-1 {
			t.Errorf("%s: num_steps %d, %d summaries, want %d", id, *r.NumSteps, len(r.Steps), len(db)-1)
		}
		if !bytes.Equal(r.FinalScreenshot.Bytes, db[len(db)-1].shot) {
			t.Errorf("%s: final screenshot is not the last step's", id)
		}
		for k, s := range r.Steps {
			if *s.StepIndex != int64(k+1) || *s.URL != db[k].url || s.Op == nil {
				t.Errorf("%s: summary %d = %+v", id, k, s)
			}
		}
	}

	// steps: step k = action k + observation k-1
	seen := map[string]int{}
	for split, rows := range fo.steps {
		for _, r := range rows {
			id := *r.EpisodeID
			if epSplit[id] != split {
				t.Errorf("step of %s in %s, its episode in %s", id, split, epSplit[id])
			}
			db := loadSteps(t, f, id)
			k := int(*r.StepIndex)
			seen[id]++
			if k != seen[id] {
				t.Errorf("%s: rows out of order: step %d at position %d", id, k, seen[id])
			}
			if !bytes.Equal(r.Screenshot.Bytes, db[k-1].shot) {
				t.Errorf("%s step %d: screenshot is not step %d's", id, k, k-1)
			}
			if *r.Screenshot.Path != fmt.Sprintf("%s/step_%04d.png", id, k-1) {
				t.Errorf("%s step %d: path %s", id, k, *r.Screenshot.Path)
			}
			if *r.URL != db[k-1].url || *r.NextURL != db[k].url || *r.ActionJSON != db[k].actionJSON {
				t.Errorf("%s step %d: url %s next %s json %s", id, k, *r.URL, *r.NextURL, *r.ActionJSON)
			}
			a := stepActionOf(k, len(db)-1)
			if *r.Action.Op != string(a.Op) || *r.BrowserGymAction != BrowserGymAction(a) {
				t.Errorf("%s step %d: action %s / %s, want %s", id, k, *r.Action.Op, *r.BrowserGymAction, a)
			}
			switch a.Op {
			case action.Click:
				if r.Action.X == nil || *r.Action.X != int64(*a.X) || r.Action.Text != nil || r.Action.DY != nil {
					t.Errorf("%s step %d: click fields %+v", id, k, r.Action)
				}
			case action.Scroll:
				if r.Action.DY == nil || *r.Action.DY != 300 || r.Action.X != nil {
					t.Errorf("%s step %d: scroll fields %+v", id, k, r.Action)
				}
			}
			if r.ReviewFlags == nil || len(r.ReviewFlags) != 0 { // labelled, no flags
				t.Errorf("%s step %d: review_flags %v, want an empty list", id, k, r.ReviewFlags)
			}
			if *r.Done != (k == len(db)-1) || r.Timestamp == nil || *r.DurationMS != int64(60+k) {
				t.Errorf("%s step %d: done %v ts %v dur %d", id, k, *r.Done, r.Timestamp, *r.DurationMS)
			}
			if dataset.Categories[*r.Category] != dataset.Categories[*episodeRows[id].Category] || *r.Goal != *episodeRows[id].Goal {
				t.Errorf("%s step %d: category/goal differ from the episode's", id, k)
			}
		}
	}
	for id := range episodeRows {
		if seen[id] != int(*episodeRows[id].NumSteps) {
			t.Errorf("%s: %d step rows, episode says %d", id, seen[id], *episodeRows[id].NumSteps)
		}
	}

	// the card
	c := fo.card
	if c.raw["license"] != "cc-by-4.0" || c.raw["pretty_name"] != "Test set" {
		t.Errorf("card license/pretty_name: %v %v", c.raw["license"], c.raw["pretty_name"])
	}
	if sc := c.raw["size_categories"].([]any); sc[0] != "n<1K" {
		t.Errorf("size_categories %v", sc)
	}
	for _, s := range []string{
		"## How to load", `load_dataset("path/or/hub-id", "episodes")`, "800×600",
		fmt.Sprintf("%d episodes (%d steps)", res.Episodes, res.Steps),
		"| success | ", "3 reviewers", "reviewed by two or more people",
		"1 disagreement was settled", "mouse_click(x, y)", "3 annotators recorded the episodes (2 people, 1 agent)",
	} {
		if !strings.Contains(c.body, s) {
			t.Errorf("card prose lacks %q", s)
		}
	}
	// counts per category match the files
	for _, cat := range dataset.Categories {
		n := 0
		for _, r := range episodeRows {
			if dataset.Categories[*r.Category] == cat {
				n++
			}
		}
		if !strings.Contains(c.body, fmt.Sprintf("| %s | %d |", cat, n)) {
			t.Errorf("card: no row for %s with %d episodes", cat, n)
		}
	}
	// nothing else left beside the target
	entries, _ := os.ReadDir(filepath.Dir(out))
	if len(entries) != 1 {
		t.Errorf("beside the export: %v", entries)
	}
}

func TestExportDeterministic(t *testing.T) {
	f := standard(t)
	dir := t.TempDir()
	o1, o2 := opts(filepath.Join(dir, "a")), opts(filepath.Join(dir, "b"))
	o1.MaxShardBytes, o2.MaxShardBytes = 40<<10, 40<<10 // several shards
	r1 := mustExport(t, f, o1)
	r2 := mustExport(t, f, o2)
	if !slices.Equal(r1.Files, r2.Files) {
		t.Fatalf("files differ: %v vs %v", r1.Files, r2.Files)
	}
	nshards := 0
	for _, name := range append(r1.Files, MarkerFile) {
		a, err1 := os.ReadFile(filepath.Join(dir, "a", name))
		b, err2 := os.ReadFile(filepath.Join(dir, "b", name))
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		if !bytes.Equal(a, b) {
			t.Errorf("%s differs between two exports", name)
		}
		if strings.HasPrefix(name, "steps/") {
			nshards++
		}
	}
	if nshards < 3 {
		t.Errorf("want several step shards at 40 KB, got %v", r1.Files)
	}
	// shards hold whole episodes
	fo := checkFolder(t, filepath.Join(dir, "a"))
	_ = fo
	where := map[string]string{}
	for _, name := range r1.Files {
		if !strings.HasPrefix(name, "steps/") {
			continue
		}
		for _, r := range readRows[stepRow](t, filepath.Join(dir, "a", name)) {
			if w, ok := where[*r.EpisodeID]; ok && w != name {
				t.Errorf("episode %s split over %s and %s", *r.EpisodeID, w, name)
			}
			where[*r.EpisodeID] = name
		}
	}
}

func TestExportFilters(t *testing.T) {
	f := standard(t)
	dir := t.TempDir()
	ids := func(fo folder) []string {
		var out []string
		for _, rows := range fo.episodes {
			for _, r := range rows {
				out = append(out, *r.EpisodeID)
			}
		}
		sort.Strings(out)
		return out
	}
	cases := []struct {
		name string
		set  func(*Options)
		want []string
	}{
		{"category", func(o *Options) { o.Categories = []string{dataset.Navigation} },
			[]string{"ep-01-a", "ep-04-a", "ep-04-b", "ep-04-c", "ep-07-a", "ep-07-c"}},
		{"outcome", func(o *Options) {
			o.Outcomes = []string{string(dataset.OutcomeFailure), string(dataset.OutcomeInvalidTask)}
		},
			[]string{"ep-01-a", "ep-03-a", "ep-04-c", "ep-05-a", "ep-07-a", "ep-09-a"}},
		{"annotator", func(o *Options) { o.Annotators = []string{"agent:gpt"}; o.Categories = []string{dataset.Interaction} },
			[]string{"ep-02-a", "ep-05-a", "ep-08-a"}},
		{"unreviewed", func(o *Options) {
			o.IncludeUnreviewed = true
			o.Outcomes = []string{string(dataset.OutcomeNotExecutable)}
			o.Annotators = []string{"bob", "alice"}
			o.Categories = []string{dataset.Information}
		}, []string{"ep-03-c", "ep-06-a"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			o := opts(filepath.Join(dir, c.name))
			c.set(&o)
			mustExport(t, f, o)
			fo := checkFolder(t, o.Out)
			if got := ids(fo); !slices.Equal(got, c.want) {
				t.Errorf("got %v, want %v", got, c.want)
			}
			if c.name == "unreviewed" {
				for _, rows := range fo.episodes {
					for _, r := range rows {
						if (*r.EpisodeID == "ep-03-c") != (r.Outcome == nil) {
							t.Errorf("%s: outcome %v", *r.EpisodeID, r.Outcome)
						}
					}
				}
				if !strings.Contains(fo.card.body, "| (none: null) | 1 |") {
					t.Errorf("card does not count the null outcome")
				}
			}
		})
	}
}

func TestExportRefusals(t *testing.T) {
	f := standard(t)
	dir := t.TempDir()
	ctx := context.Background()

	// a folder with someone else's files is never touched
	foreign := filepath.Join(dir, "photos")
	os.MkdirAll(foreign, 0o755)
	os.WriteFile(filepath.Join(foreign, "cat.jpg"), []byte("meow"), 0o644)
	for _, force := range []bool{false, true} {
		o := opts(foreign)
		o.Force = force
		_, err := Export(ctx, f.store, o, nil)
		if !errors.Is(err, ErrOutputExists) || !strings.Contains(err.Error(), "not a Waymark export") {
			t.Errorf("force=%v: %v", force, err)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(foreign, "cat.jpg")); string(b) != "meow" {
		t.Fatalf("foreign file changed")
	}
	// a file in place of the folder
	file := filepath.Join(dir, "file")
	os.WriteFile(file, []byte("x"), 0o644)
	if _, err := Export(ctx, f.store, opts(file), nil); !errors.Is(err, ErrOutputExists) {
		t.Errorf("file target: %v", err)
	}

	// an empty folder is fine
	empty := filepath.Join(dir, "empty")
	os.MkdirAll(empty, 0o755)
	mustExport(t, f, opts(empty))

	// a previous export: refused without force, replaced with it
	o := opts(empty)
	if _, err := Export(ctx, f.store, o, nil); !errors.Is(err, ErrOutputExists) || !strings.Contains(err.Error(), "--force") {
		t.Errorf("second export without force: %v", err)
	}
	o.Force = true
	o.Categories = []string{dataset.Information}
	res, err := Export(ctx, f.store, o, nil)
	if err != nil || !res.Replaced {
		t.Fatalf("force: %+v %v", res, err)
	}
	fo := checkFolder(t, empty)
	for _, rows := range fo.episodes {
		for _, r := range rows {
			if dataset.Categories[*r.Category] != dataset.Information {
				t.Errorf("old episode %s survived the replacement", *r.EpisodeID)
			}
		}
	}
	// a previous export with a file of the user's inside: refused even with force
	os.WriteFile(filepath.Join(empty, "notes.txt"), []byte("mine"), 0o644)
	if _, err := Export(ctx, f.store, o, nil); !errors.Is(err, ErrOutputExists) || !strings.Contains(err.Error(), "notes.txt") {
		t.Errorf("export with a user file: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(empty, "notes.txt")); string(b) != "mine" {
		t.Fatalf("user file changed")
	}

	// nothing to export
	o = opts(filepath.Join(dir, "none"))
	o.Annotators = []string{"nobody"}
	_, err = Export(ctx, f.store, o, nil)
	if !errors.Is(err, ErrNothingToExport) || !strings.Contains(err.Error(), "annotator nobody") {
		t.Errorf("nothing to export: %v", err)
	}
	if _, serr := os.Stat(o.Out); !os.IsNotExist(serr) {
		t.Errorf("an empty dataset was created")
	}
	empty2 := newFixture(t, makePNGs(t, 1, false))
	_, err = Export(ctx, empty2.store, opts(filepath.Join(dir, "none")), nil)
	if !errors.Is(err, ErrNothingToExport) || !strings.Contains(err.Error(), "record and finish") {
		t.Errorf("empty store: %v", err)
	}

	// bad options
	for _, set := range []func(*Options){
		func(o *Options) { o.Categories = []string{"shopping"} },
		func(o *Options) { o.Outcomes = []string{"ok"} },
		func(o *Options) { o.TestFraction = 1.5 },
		func(o *Options) { o.License = "" },
		func(o *Options) { o.License = "CC BY" },
	} {
		o := opts(filepath.Join(dir, "bad"))
		set(&o)
		if _, err := Export(ctx, f.store, o, nil); !errors.Is(err, ErrBadOptions) {
			t.Errorf("%+v: %v", o, err)
		}
	}
}

// failAfter is a writer that fails with ENOSPC after n bytes.
type failAfter struct {
	w io.Writer
	n *int64
}

func (f failAfter) Write(p []byte) (int, error) {
	if *f.n-int64(len(p)) < 0 {
		return 0, &os.PathError{Op: "write", Path: "shard", Err: syscall.ENOSPC}
	}
	*f.n -= int64(len(p))
	return f.w.Write(p)
}

func assertNothingLeft(t *testing.T, dir, target string) {
	t.Helper()
	if _, err := os.Stat(target); !os.IsNotExist(err) {
		t.Errorf("%s exists after a failed export", target)
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.Contains(e.Name(), "waymark") {
			t.Errorf("left behind: %s", e.Name())
		}
	}
}

func TestExportDiskFullInjected(t *testing.T) {
	f := standard(t)
	dir := t.TempDir()
	budget := int64(150 << 10)
	wrapFile = func(w io.Writer) io.Writer { return failAfter{w, &budget} }
	defer func() { wrapFile = nil }()
	target := filepath.Join(dir, "ds")
	_, err := Export(context.Background(), f.store, opts(target), nil)
	if !errors.Is(err, ErrDiskFull) || !strings.Contains(err.Error(), "nothing was written to "+target) {
		t.Fatalf("want a disk-full error, got %v", err)
	}
	assertNothingLeft(t, dir, target)
}

// TestExportDiskFullTmpfs fills a real 2 MB tmpfs (needs root; skipped
// otherwise), with a previous export in place that must survive.
func TestExportDiskFullTmpfs(t *testing.T) {
	dir := t.TempDir()
	if err := exec.Command("mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", dir).Run(); err != nil {
		t.Skipf("cannot mount a tmpfs here: %v", err)
	}
	defer exec.Command("umount", dir).Run()
	small := newFixture(t, makePNGs(t, 7, false))
	small.task("t1", dataset.Information)
	small.episode("e1", "t1", "alice", dataset.StatusFinished, 2)
	small.review("e1", "rita", dataset.OutcomeSuccess, false)
	target := filepath.Join(dir, "ds")
	mustExport(t, small, opts(target))
	before, _ := os.ReadFile(filepath.Join(target, "README.md"))

	big := newFixture(t, makePNGs(t, 3, true)) // ~600 KB a picture
	big.task("t2", dataset.Navigation)
	big.episode("e2", "t2", "bob", dataset.StatusFinished, 10)
	big.review("e2", "rita", dataset.OutcomeSuccess, false)
	o := opts(target)
	o.Force = true
	_, err := Export(context.Background(), big.store, o, nil)
	if !errors.Is(err, ErrDiskFull) {
		t.Fatalf("want a disk-full error, got %v", err)
	}
	after, _ := os.ReadFile(filepath.Join(target, "README.md"))
	if !bytes.Equal(before, after) {
		t.Errorf("the previous export was changed by the failed one")
	}
	checkFolder(t, target)
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("left behind on the tmpfs: %v", entries)
	}
}

func TestExportCancel(t *testing.T) {
	f := standard(t)
	dir := t.TempDir()
	target := filepath.Join(dir, "ds")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	reportEvery = 0
	defer func() { reportEvery = defaultReportEvery }()
	_, err := Export(ctx, f.store, opts(target), func(p Progress) {
		if p.Steps >= 5 {
			cancel()
		}
	})
	if !errors.Is(err, ErrCancelled) || !strings.Contains(err.Error(), "nothing was written") {
		t.Fatalf("want cancelled, got %v", err)
	}
	assertNothingLeft(t, dir, target)
}

// TestExportCrashLeftovers: a crash leaves only a hidden partial folder,
// which the next export of the same target removes.
func TestExportCrashLeftovers(t *testing.T) {
	f := standard(t)
	dir := t.TempDir()
	stale := filepath.Join(dir, ".ds.waymark-partial-123")
	os.MkdirAll(filepath.Join(stale, "steps"), 0o755)
	os.WriteFile(filepath.Join(stale, "steps", "train.partial-00000.parquet"), []byte("PAR1"), 0o644)
	// a partial folder of an export still running (its lock is held) is kept
	busy := filepath.Join(dir, ".ds.waymark-partial-456")
	os.MkdirAll(busy, 0o755)
	lf, err := os.Create(filepath.Join(busy, ".lock"))
	if err != nil {
		t.Fatal(err)
	}
	defer lf.Close()
	if err := syscall.Flock(int(lf.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(dir, ".other-hidden")
	os.MkdirAll(other, 0o755)
	mustExport(t, f, opts(filepath.Join(dir, "ds")))
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("stale partial export not removed")
	}
	if _, err := os.Stat(other); err != nil {
		t.Errorf("an unrelated folder was removed")
	}
	if _, err := os.Stat(busy); err != nil {
		t.Errorf("the folder of a running export was removed")
	}
}

func TestRowGroupImageCap(t *testing.T) {
	f := standard(t)
	old := maxGroupImageBytes
	smallest := len(f.pngs[0])
	for _, p := range f.pngs {
		smallest = min(smallest, len(p))
	}
	maxGroupImageBytes = int64(3 * smallest)
	defer func() { maxGroupImageBytes = old }()
	o := opts(filepath.Join(t.TempDir(), "ds"))
	o.TestFraction = 0
	mustExport(t, f, o)
	fc := checkParquet(t, filepath.Join(o.Out, "steps", "train-00000-of-00001.parquet"), "screenshot")
	if len(fc.groupRows) < 10 || slices.Max(fc.groupRows) > 3 {
		t.Errorf("row groups %v: want groups of ≤ 3 rows under a 3-picture cap", fc.groupRows)
	}
}

func TestRowGroupsOf100(t *testing.T) {
	f := newFixture(t, makePNGs(t, 3, false))
	f.task("t", dataset.Interaction)
	for i := 0; i < 5; i++ {
		id := fmt.Sprintf("e%d", i)
		f.episode(id, "t", "alice", dataset.StatusFinished, 50)
		f.review(id, "rita", dataset.OutcomeSuccess, false)
	}
	o := opts(filepath.Join(t.TempDir(), "ds"))
	o.TestFraction = 0
	res := mustExport(t, f, o)
	if res.Steps != 250 || len(res.Splits) != 1 || res.Splits[0].Name != "train" {
		t.Fatalf("result %+v", res)
	}
	fo := checkFolder(t, o.Out)
	fc := checkParquet(t, filepath.Join(o.Out, "steps", "train-00000-of-00001.parquet"), "screenshot")
	if !slices.Equal(fc.groupRows, []int64{100, 100, 50}) {
		t.Errorf("row groups %v, want 100,100,50", fc.groupRows)
	}
	// with no test split, the card declares only train
	if strings.Contains(fmt.Sprint(fo.card.raw["configs"]), "test") {
		t.Errorf("an empty test split is declared: %v", fo.card.raw["configs"])
	}
}

func TestBrowserGymAction(t *testing.T) {
	for _, c := range []struct {
		a    action.Action
		want string
	}{
		{action.ClickAt(312, 188), "mouse_click(312, 188)"},
		{action.TypeText(`red "shoes"`), `keyboard_type("red \"shoes\"")`},
		{action.PressKey("ENTER"), `keyboard_press("Enter")`},
		{action.PressKey("CTRL+A"), `keyboard_press("ControlOrMeta+a")`},
		{action.PressKey("SHIFT+TAB"), `keyboard_press("Shift+Tab")`},
		{action.ScrollBy(-300), "scroll(0, -300)"},
		{action.Action{Op: action.Back}, "go_back()"},
		{action.Action{Op: action.Wait}, "noop(3000)"},
		{action.FinishWith("42"), `send_msg_to_user("42")`},
		{action.Action{Op: action.Goto, URL: "http://127.0.0.1/a?b=<c>"}, `goto("http://127.0.0.1/a?b=<c>")`},
		{action.Action{Op: action.DoubleClick, X: action.Int(1), Y: action.Int(2)}, "mouse_dblclick(1, 2)"},
		{action.Action{Op: action.Drag, X: action.Int(1), Y: action.Int(2), X2: action.Int(3), Y2: action.Int(4)}, "mouse_drag_and_drop(1, 2, 3, 4)"},
		{action.Action{Op: action.Click}, ""},
		{action.Action{Op: "teleport"}, ""},
	} {
		if got := BrowserGymAction(c.a); got != c.want {
			t.Errorf("%v: got %s, want %s", c.a, got, c.want)
		}
	}
}

func TestSplitOf(t *testing.T) {
	n := 0
	for i := 0; i < 2000; i++ {
		if splitOf(fmt.Sprintf("task-%d", i), 0.1) == "test" {
			n++
		}
	}
	if n < 150 || n > 250 {
		t.Errorf("%d of 2000 tasks in test at 0.1", n)
	}
	if splitOf("x", 0) != "train" || splitOf("x", 1) != "test" {
		t.Errorf("fractions 0 and 1")
	}
}

// TestExportDamagedSteps: a step whose screenshot is missing (a renderer
// timeout) and one whose action JSON does not parse are exported with nulls,
// never dropped and never failing the export.
func TestExportDamagedSteps(t *testing.T) {
	f := newFixture(t, makePNGs(t, 3, false))
	f.task("t", dataset.Information)
	f.episode("e", "t", "alice", dataset.StatusFinished, 3)
	f.review("e", "rita", dataset.OutcomeSuccess, false)
	f.exec(`UPDATE steps SET screenshot = NULL WHERE episode_id = 'e' AND idx = 1`)
	f.exec(`UPDATE steps SET screenshot = x'' WHERE episode_id = 'e' AND idx = 3`)
	f.exec(`UPDATE steps SET action_json = '{"op":' WHERE episode_id = 'e' AND idx = 2`)
	f.exec(`UPDATE steps SET screenshot = x'ffd8ffe000104a464946' WHERE episode_id = 'e' AND idx = 2`) // a JPEG header
	o := opts(filepath.Join(t.TempDir(), "ds"))
	o.TestFraction = 0
	o.License = " CC-BY-4.0 "
	res := mustExport(t, f, o)
	if res.BadImages != 1 {
		t.Errorf("BadImages %d, want 1", res.BadImages)
	}
	fo := checkFolder(t, o.Out)
	rows := fo.steps["train"]
	if len(rows) != 3 {
		t.Fatalf("%d rows", len(rows))
	}
	if rows[0].Screenshot == nil || rows[1].Screenshot != nil || rows[2].Screenshot != nil {
		t.Errorf("screenshots: %v %v %v, want only the first", rows[0].Screenshot != nil, rows[1].Screenshot != nil, rows[2].Screenshot != nil)
	}
	if !strings.Contains(fo.card.body, "1 screenshot stored by the recorder was not a PNG") {
		t.Errorf("card does not mention the bad screenshot")
	}
	if fo.card.raw["license"] != "cc-by-4.0" {
		t.Errorf("license %v", fo.card.raw["license"])
	}
	if rows[1].Action != nil || rows[1].BrowserGymAction != nil || *rows[1].ActionJSON != `{"op":` {
		t.Errorf("malformed action: %+v %v %q", rows[1].Action, rows[1].BrowserGymAction, *rows[1].ActionJSON)
	}
	ep := fo.episodes["train"][0]
	if ep.FinalScreenshot != nil || len(ep.Steps) != 3 || ep.Steps[1].Op != nil {
		t.Errorf("episode row: final %v, steps %d", ep.FinalScreenshot != nil, len(ep.Steps))
	}
}

func TestFleiss(t *testing.T) {
	// Two raters, 4 items: agree on 3 (2× success, 1× failure), disagree on 1.
	counts := map[string]map[dataset.Outcome]int{
		"a": {"success": 2}, "b": {"success": 2}, "c": {"failure": 2}, "d": {"success": 1, "failure": 1},
		"single": {"success": 1},
	}
	k, ok := fleiss([]string{"a", "b", "c", "d", "single"}, counts)
	// P̄ = 3/4; p(success) = 5/8, p(failure) = 3/8; Pe = 34/64; κ = (0.75-0.53125)/(0.46875)
	if !ok || k < 0.4666 || k > 0.4667 {
		t.Errorf("kappa %v %v, want 0.4667", k, ok)
	}
	if _, ok := fleiss([]string{"a", "b"}, counts); ok {
		t.Errorf("kappa defined with one class only")
	}
}
