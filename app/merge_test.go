package app

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"

	"waymark/assets/practice"
	"waymark/dataset"
	"waymark/dataset/storetest"
	"waymark/engine"
	"waymark/engine/action"
	"waymark/engine/browser"
)

// mergeRecord records one episode of the practice task key into the store
// file db (made, with the practice pack, if new) in a headless Chromium, as
// annotator, and returns the episode's id.
func mergeRecord(t *testing.T, db, annotator, key, hostRules string, actions ...action.Action) string {
	t.Helper()
	env := &Env{DBPath: db, Stderr: os.Stderr}
	st, err := env.OpenStore()
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	p, ok := practiceTask(key)
	if !ok {
		t.Fatalf("no practice task %s", key)
	}
	task, found, err := st.FindTask(t.Context(), p.Goal, p.StartURL)
	if err != nil || !found {
		t.Fatalf("practice task %s not in the store: %v", key, err)
	}
	set := engine.DefaultSettings()
	set.Display = engine.DisplayHeadless
	set.HAR = true
	eng, err := browser.New(browser.Options{Settings: set, HostRules: hostRules})
	if err != nil {
		t.Fatal(err)
	}
	rec := dataset.NewRecorder(st, eng, dataset.RecorderOptions{TaskID: task.ID, Annotator: annotator})
	defer rec.Close()
	ctx := context.Background()
	if _, err := rec.Reset(ctx, engine.ResetOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, a := range actions {
		if _, err := rec.Step(ctx, a); err != nil {
			t.Fatal(err)
		}
	}
	return rec.EpisodeID()
}

// parquetStrings reads one column of every row of the Parquet files of
// an export's config.
func parquetStrings(t *testing.T, dir, cfg, column string) []string {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, cfg, "*.parquet"))
	if len(files) == 0 {
		t.Fatalf("no %s files in %s", cfg, dir)
	}
	var out []string
	for _, path := range files {
		fh, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer fh.Close()
		fi, _ := fh.Stat()
		f, err := parquet.OpenFile(fh, fi.Size())
		if err != nil {
			t.Fatal(err)
		}
		leaf, ok := f.Schema().Lookup(column)
		if !ok {
			t.Fatalf("%s has no column %s", path, column)
		}
		for _, rg := range f.RowGroups() {
			rows := rg.Rows()
			buf := make([]parquet.Row, 16)
			for {
				n, err := rows.ReadRows(buf)
				for _, r := range buf[:n] {
					for _, v := range r {
						if v.Column() == leaf.ColumnIndex {
							out = append(out, v.String())
						}
					}
				}
				if err != nil {
					break
				}
			}
			rows.Close()
		}
	}
	return out
}

// Two annotators record practice tasks on their own stores in real
// Chromiums; the lead merges both files into a third (each store has the
// practice pack with ids of its own), merges again (nothing added), labels
// the episodes and exports: the dataset holds every episode of both
// annotators with all its steps.
func TestMergeRealRecordings(t *testing.T) {
	if testing.Short() {
		t.Skip("starts Chromium")
	}
	sites, err := practice.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer sites.Close()
	dir := t.TempDir()
	alice, bob, lead := filepath.Join(dir, "alice.db"), filepath.Join(dir, "bob.db"), filepath.Join(dir, "lead.db")
	keys := []string{practice.Tasks()[0].Key, practice.Tasks()[1].Key}
	ea := mergeRecord(t, alice, "alice", keys[0], sites.HostRules(), action.ScrollBy(300), action.FinishWith(""))
	eb1 := mergeRecord(t, bob, "bob", keys[0], sites.HostRules(), action.ScrollBy(200), action.ScrollBy(-200), action.FinishWith(""))
	eb2 := mergeRecord(t, bob, "bob", keys[1], sites.HostRules(), action.FinishWith(""))

	code, stdout, stderr := runMain("--db", lead, "merge", alice, bob)
	t.Logf("exit %d\n%s%s", code, stdout, stderr)
	if code != 0 {
		t.Fatalf("merge: exit %d\n%s%s", code, stdout, stderr)
	}
	n := len(practice.Tasks())
	chunks := func(db string) int {
		st, err := dataset.Open(db)
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		sdb := storetest.DB(t, st)
		defer sdb.Close()
		var c int
		if err := sdb.QueryRow(`SELECT COUNT(*) FROM har_chunks`).Scan(&c); err != nil {
			t.Fatal(err)
		}
		return c
	}
	ca, cb := chunks(alice), chunks(bob)
	if ca == 0 || cb == 0 {
		t.Fatalf("the recordings captured no network traffic (%d, %d chunks)", ca, cb)
	}
	for _, want := range []string{
		fmt.Sprintf("merged %s\n  added: 0 tasks, 1 episodes, 3 steps, %d network chunks", alice, ca),
		fmt.Sprintf("merged %s\n  added: 0 tasks, 2 episodes, 6 steps, %d network chunks", bob, cb),
		fmt.Sprintf("already here (identical): %d tasks, 0 episodes", n),
		"could not reconcile: nothing",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("merge output lacks %q", want)
		}
	}
	code, stdout, stderr = runMain("--db", lead, "merge", alice, bob)
	if code != 0 || strings.Count(stdout, "added: 0 tasks, 0 episodes, 0 steps, 0 network chunks, 0 edits, 0 reviews, 0 replay runs") != 2 ||
		!strings.Contains(stdout, "already here (identical): "+fmt.Sprint(n)+" tasks, 2 episodes, 6 steps") {
		t.Errorf("second merge: exit %d\n%s%s", code, stdout, stderr)
	}

	// The merged capture reads back as the recorded one.
	for _, c := range []struct{ db, ep string }{{alice, ea}, {bob, eb2}} {
		_, here, _ := runMain("--db", lead, "har", c.ep)
		_, there, _ := runMain("--db", c.db, "har", c.ep)
		if here == "" || here != there || !strings.Contains(here, ".waymark.test/") {
			t.Errorf("HAR of %s differs after the merge (%d and %d bytes)", c.ep, len(here), len(there))
		}
	}

	st, err := dataset.Open(lead)
	if err != nil {
		t.Fatal(err)
	}
	for _, ep := range []string{ea, eb1, eb2} {
		e, err := st.GetEpisode(t.Context(), ep)
		if err != nil || e.Status != dataset.StatusFinished {
			t.Fatalf("merged episode %s: %+v %v", ep, e, err)
		}
		steps, _ := st.Steps(t.Context(), ep)
		for _, s := range steps {
			if pic, err := st.Screenshot(t.Context(), ep, s.Index); err != nil || !strings.HasPrefix(string(pic), "\x89PNG") {
				t.Errorf("episode %s step %d has no screenshot", ep, s.Index)
			}
		}
		// The lead marks each episode's first step correct, and the
		// second step of bob's three-step one wrong.
		labels := map[int]string{1: dataset.StepCorrect}
		if ep == eb1 {
			labels[2] = dataset.StepWrong
		}
		if _, err := st.SaveReview(t.Context(), dataset.Review{EpisodeID: ep, Reviewer: "lead", Outcome: dataset.OutcomeSuccess, StepLabels: labels}); err != nil {
			t.Fatal(err)
		}
	}
	st.Close()

	// The practice tasks have automatic checks: review stats measures them
	// against the lead's labels of the merged episodes.
	code, stdout, stderr = runMain("--db", lead, "review", "stats")
	if code != 0 || !strings.Contains(stdout, "Automatic checks against people (episodes with a check result and an outcome: 3)") {
		t.Errorf("review stats: exit %d\n%s%s", code, stdout, stderr)
	}

	out := filepath.Join(dir, "ds")
	code, stdout, stderr = runMain("--db", lead, "export", "--out", out, "--license", "mit", "--test-fraction", "0", "--quiet")
	if code != 0 {
		t.Fatalf("export: exit %d\n%s%s", code, stdout, stderr)
	}
	ids := parquetStrings(t, out, "episodes", "episode_id")
	slices.Sort(ids)
	want := []string{ea, eb1, eb2}
	slices.Sort(want)
	if !slices.Equal(ids, want) {
		t.Errorf("exported episodes %v, want %v", ids, want)
	}
	annotators := parquetStrings(t, out, "episodes", "annotator")
	slices.Sort(annotators)
	if !slices.Equal(annotators, []string{"alice", "bob", "bob"}) {
		t.Errorf("exported annotators %v", annotators)
	}
	// One row per action: alice's 2, bob's 3 and 1.
	if steps := parquetStrings(t, out, "steps", "episode_id"); len(steps) != 6 {
		t.Errorf("%d step rows exported, want 6", len(steps))
	}
	// The step labels read back: three correct, one wrong, the two other
	// rows unlabelled.
	marks := map[string]int{}
	for _, v := range parquetStrings(t, out, "steps", "step_label") {
		marks[v]++
	}
	if marks[dataset.StepCorrect] != 3 || marks[dataset.StepWrong] != 1 || len(marks) != 3 {
		t.Errorf("exported step labels %v, want 3 correct, 1 wrong and 2 nulls", marks)
	}
}

// The command line reports a line per 1,000 steps copied, and refuses
// what it must with the file named.
func TestMergeCommandProgressAndRefusals(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "big.db")
	st, err := dataset.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	db := storetest.DB(t, st)
	tx, err := db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	const now = "2026-11-02T09:00:00.000Z"
	mustExec := func(q string, args ...any) {
		t.Helper()
		if _, err := tx.Exec(q, args...); err != nil {
			t.Fatal(err)
		}
	}
	mustExec(`INSERT INTO tasks (id, goal, category, start_url, created_at, updated_at) VALUES ('t1','Find it','information','http://127.0.0.1/',?,?)`, now, now)
	for e := 0; e < 25; e++ {
		id := fmt.Sprintf("e%02d", e)
		mustExec(`INSERT INTO episodes (id, task_id, annotator, action_set, status, num_steps, started_at, ended_at) VALUES (?,'t1','ann','default','finished',99,?,?)`, id, now, now)
		for i := 0; i < 100; i++ {
			mustExec(`INSERT INTO steps (episode_id, idx, url, screenshot, created_at) VALUES (?,?,'http://127.0.0.1/',x'89504e47',?)`, id, i, now)
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	db.Close()
	st.Close()
	lead := filepath.Join(dir, "lead.db")
	code, stdout, stderr := runMain("--db", lead, "merge", src)
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	var lines []string
	for _, l := range strings.Split(strings.TrimSpace(stderr), "\n") {
		if strings.Contains(l, "steps copied") {
			lines = append(lines, l)
		}
	}
	want := []string{src + ": 1000 of 2500 steps copied", src + ": 2000 of 2500 steps copied", src + ": 2500 of 2500 steps copied"}
	if !slices.Equal(lines, want) {
		t.Errorf("progress lines %q, want %q", lines, want)
	}
	if !strings.Contains(stdout, "added: 1 tasks, 25 episodes, 2500 steps") {
		t.Errorf("report:\n%s", stdout)
	}

	// Usage; the store itself; a missing file next to a good one: the good
	// one is merged, the bad one named, exit 1.
	if code, _, stderr := runMain("--db", lead, "merge"); code != 2 || !strings.Contains(stderr, "waymark merge OTHER.db") {
		t.Errorf("no files: exit %d %q", code, stderr)
	}
	other := filepath.Join(dir, "other.db")
	if s, err := dataset.Open(other); err == nil {
		s.Close()
	}
	code, stdout, stderr = runMain("--db", lead, "merge", lead, filepath.Join(dir, "nope.db"), other)
	if code != 1 || !strings.Contains(stderr, "the database Waymark has open") || !strings.Contains(stderr, "nope.db: no such file") ||
		!strings.Contains(stdout, "merged "+other) || !strings.Contains(stderr, "not merged: "+lead+", "+filepath.Join(dir, "nope.db")) {
		t.Errorf("bad files: exit %d\n%s%s", code, stdout, stderr)
	}
}
