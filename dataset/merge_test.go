package dataset

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"waymark/engine"
	"waymark/engine/action"
	"waymark/engine/har"
)

// mgRecord records one episode of task in s through a Recorder: n clicks
// and a finish. It returns the episode's id.
func mgRecord(t *testing.T, s *Store, taskID, annotator string, n int) string {
	t.Helper()
	rec := NewRecorder(s, newWMEngine(action.SetDefault, 0), RecorderOptions{TaskID: taskID, Annotator: annotator})
	defer rec.Close()
	ctx := context.Background()
	if _, err := rec.Reset(ctx, engine.ResetOptions{}); err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= n; i++ {
		if _, err := rec.Step(ctx, action.ClickAt(10*i, 20*i)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := rec.Step(ctx, action.FinishWith("")); err != nil {
		t.Fatal(err)
	}
	return rec.EpisodeID()
}

// mgStorePath opens a store at a named file in dir.
func mgStorePath(t *testing.T, dir, name string) *Store {
	t.Helper()
	s, err := Open(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// mgCount counts rows of a table.
func mgCount(t *testing.T, s *Store, q string, args ...any) int {
	t.Helper()
	var n int
	if err := s.db.QueryRow(q, args...).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// mgTotals is the number of rows of every merged table.
func mgTotals(t *testing.T, s *Store) map[string]int {
	out := map[string]int{}
	for _, tb := range mergeTables {
		out[tb.name] = mgCount(t, s, `SELECT COUNT(*) FROM `+tb.name)
	}
	return out
}

// closeForMerge closes a store so that another can merge its file (a
// store open in this process is refused).
func closeForMerge(t *testing.T, s *Store) string {
	t.Helper()
	p := s.Path()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	return p
}

// Two annotators record on their own machines: the same practice task with
// ids of their own, a task only one has, a task both define differently;
// one annotator's episodes carry network chunks, a removed step, reviews
// and a replay run. Merging copies every row, maps the shared task by goal
// and start URL, reports the task defined differently field by field, and
// merging again adds nothing.
func TestMergeTwoAnnotators(t *testing.T) {
	dir := t.TempDir()
	a := mgStorePath(t, dir, "alice.db")
	b := mgStorePath(t, dir, "bob.db")
	shared := func(s *Store) Task {
		return wmTask(t, s, "Open the shop's cart", Navigation, "http://shop.waymark.test/")
	}
	ta, tb := shared(a), shared(b)
	if ta.ID == tb.ID {
		t.Fatal("the two stores' tasks should have ids of their own")
	}
	onlyB := wmTask(t, b, "What does the wiki say about owls?", Information, "http://wiki.waymark.test/")
	diffA, err := a.AddTask(t.Context(), Task{Goal: "Book a room", Category: Interaction, StartURL: "http://forms.waymark.test/", Source: "test",
		Check: &action.Check{Kind: action.CheckKindURL, URL: "/booked$"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.AddTask(t.Context(), Task{Goal: "Book a room", Category: Interaction, StartURL: "http://forms.waymark.test/", Source: "test",
		Check: &action.Check{Kind: action.CheckKindURL, URL: "/confirmed$"}}); err != nil {
		t.Fatal(err)
	}

	ea := mgRecord(t, a, ta.ID, "alice", 2)
	eb1 := mgRecord(t, b, tb.ID, "bob", 3)
	eb2 := mgRecord(t, b, onlyB.ID, "bob", 2)
	if err := b.SaveHARChunk(t.Context(), eb1, []har.Entry{{StartedDateTime: "2026-01-01T00:00:01.000Z", Step: 1, Request: har.Request{Method: "GET", URL: "http://shop.waymark.test/api/cart"}}}, har.Summary{Redacted: true, Entries: 1}, nil); err != nil {
		t.Fatal(err)
	}
	if err := b.RemoveStep(context.Background(), eb1, 2, "bob", "clicked the wrong link"); err != nil {
		t.Fatal(err)
	}
	if _, err := b.SaveReview(t.Context(), Review{EpisodeID: eb1, Reviewer: "carol", Outcome: OutcomeSuccess}); err != nil {
		t.Fatal(err)
	}
	if _, err := b.SaveReview(t.Context(), Review{EpisodeID: eb2, Reviewer: "carol", Outcome: OutcomeFailure, FailureStep: action.Int(1), FailureType: "wrong_element"}); err != nil {
		t.Fatal(err)
	}
	if _, err := b.SaveReplayRun(t.Context(), ReplayRun{EpisodeID: eb1, Display: "headless", Steps: []ReplayStep{{Step: 0, Verdict: "match"}}, Matched: 1, Compared: 1}); err != nil {
		t.Fatal(err)
	}
	bSteps, _ := b.Steps(t.Context(), eb1)
	var bShots [][]byte
	for _, st := range bSteps {
		pic, err := b.Screenshot(t.Context(), eb1, st.Index)
		if err != nil || len(pic) == 0 {
			t.Fatalf("source screenshot %d: %v", st.Index, err)
		}
		bShots = append(bShots, pic)
	}
	before := mgTotals(t, b)
	bPath := closeForMerge(t, b)

	rep, err := a.Merge(context.Background(), bPath, MergeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Log(rep.Summary())
	want := map[string]int{"tasks": 1, "episodes": 2, "steps": before["steps"], "har_chunks": 1, "episode_edits": 1, "reviews": 2, "replay_runs": 1}
	for tbl, n := range want {
		if rep.Added[tbl] != n {
			t.Errorf("added %d %s, want %d", rep.Added[tbl], tbl, n)
		}
	}
	if rep.Identical["tasks"] != 1 {
		t.Errorf("identical tasks %d, want 1 (the shared practice task)", rep.Identical["tasks"])
	}
	if len(rep.Issues) != 1 || rep.Issues[0].Kind != "task" || rep.Issues[0].ID != diffA.ID ||
		!strings.Contains(rep.Issues[0].Detail, "/booked$") || !strings.Contains(rep.Issues[0].Detail, "/confirmed$") ||
		!strings.Contains(rep.Issues[0].Detail, "check_json") {
		t.Errorf("issues %+v, want the task defined differently with both checks", rep.Issues)
	}
	// Bob's episode of the shared task is under Alice's task now.
	ep, err := a.GetEpisode(t.Context(), eb1)
	if err != nil || ep.TaskID != ta.ID || ep.Annotator != "bob" {
		t.Fatalf("merged episode %+v %v; want task %s", ep, err, ta.ID)
	}
	got, _ := a.Steps(t.Context(), eb1)
	if len(got) != len(bSteps) {
		t.Fatalf("%d steps merged, want %d", len(got), len(bSteps))
	}
	for i := range got {
		pic, _ := a.Screenshot(t.Context(), eb1, got[i].Index)
		if !bytes.Equal(pic, bShots[i]) || got[i].URL != bSteps[i].URL || got[i].Removed != bSteps[i].Removed {
			t.Errorf("step %d differs after the merge", i)
		}
	}
	if !got[2].Removed {
		t.Error("the removed step came back")
	}
	if revs, _ := a.CurrentReviews(t.Context(), eb2); len(revs) != 1 || revs[0].Outcome != OutcomeFailure || revs[0].Reviewer != "carol" {
		t.Errorf("reviews of the merged episode %+v", revs)
	}
	if runs, _ := a.ReplayRuns(context.Background(), eb1); len(runs) != 1 {
		t.Errorf("%d replay runs merged, want 1", len(runs))
	}
	if ep, _ := a.GetEpisode(t.Context(), ea); ep.Annotator != "alice" {
		t.Error("the target's own episode changed")
	}
	if v, err := a.IntegrityCheck(t.Context()); err != nil || v != "ok" {
		t.Fatalf("integrity %q %v", v, err)
	}

	// Again: nothing added, everything identical.
	after := mgTotals(t, a)
	rep2, err := a.Merge(context.Background(), bPath, MergeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for tbl, n := range rep2.Added {
		if n != 0 {
			t.Errorf("the second merge added %d %s", n, tbl)
		}
	}
	if again := mgTotals(t, a); !mapsEqual(again, after) {
		t.Errorf("the second merge changed the store: %v → %v", after, again)
	}
	if rep2.Identical["episodes"] != 2 || rep2.Identical["steps"] != before["steps"] || rep2.Identical["reviews"] != 2 || rep2.Identical["episode_edits"] != 1 {
		t.Errorf("second merge's identical counts %v", rep2.Identical)
	}
	// The source file was never written.
	b2, err := Open(bPath)
	if err != nil {
		t.Fatal(err)
	}
	defer b2.Close()
	if now := mgTotals(t, b2); !mapsEqual(now, before) {
		t.Errorf("the source changed: %v → %v", before, now)
	}
}

func mapsEqual(a, b map[string]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// The same review edited on two machines after a first merge: both
// versions are kept as history, the newest is current, the report says so,
// and merging the other way gives the other store the same current review.
func TestMergeReviewEditedOnTwoMachines(t *testing.T) {
	dir := t.TempDir()
	a := mgStorePath(t, dir, "a.db")
	b := mgStorePath(t, dir, "b.db")
	task := wmTask(t, b, "Open the cart", Navigation, "http://shop.waymark.test/")
	ep := mgRecord(t, b, task.ID, "bob", 2)
	r1, err := b.SaveReview(t.Context(), Review{EpisodeID: ep, Reviewer: "carol", Outcome: OutcomeSuccess})
	if err != nil {
		t.Fatal(err)
	}
	bPath := closeForMerge(t, b)
	mgMerge2(t, a, bPath)

	// Carol changes her mind on machine A; later on machine B, differently.
	r2, err := a.SaveReview(t.Context(), Review{EpisodeID: ep, Reviewer: "carol", Outcome: OutcomeFailure, FailureStep: action.Int(1), FailureType: "wrong_element"})
	if err != nil {
		t.Fatal(err)
	}
	b, err = Open(bPath)
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(2 * time.Millisecond) // r3 must be the newer: timestamps have millisecond resolution
	r3, err := b.SaveReview(t.Context(), Review{EpisodeID: ep, Reviewer: "carol", Outcome: OutcomeNotExecutable})
	if err != nil {
		t.Fatal(err)
	}
	closeForMerge(t, b)
	rep := mgMerge2(t, a, bPath)
	if rep.Added["reviews"] != 1 {
		t.Errorf("added %d reviews, want 1 (the version edited on B)", rep.Added["reviews"])
	}
	if len(rep.Issues) != 1 || rep.Issues[0].Kind != "review" || rep.Issues[0].ID != r2.ID || !strings.Contains(rep.Issues[0].Resolution, r3.ID) {
		t.Errorf("issues %+v; want r2 %s kept as history of r3 %s", rep.Issues, r2.ID, r3.ID)
	}
	hist, err := a.ReviewHistory(t.Context(), ep, "carol")
	if err != nil {
		t.Fatal(err)
	}
	sup := map[string]string{}
	for _, h := range hist {
		sup[h.ID] = h.SupersededBy
	}
	if len(hist) != 3 || sup[r1.ID] == "" || sup[r2.ID] != r3.ID || sup[r3.ID] != "" {
		t.Fatalf("history %v; want r1 and r2 superseded, r3 current", sup)
	}
	cur, _ := a.CurrentReviews(t.Context(), ep)
	if len(cur) != 1 || cur[0].ID != r3.ID || cur[0].Outcome != OutcomeNotExecutable {
		t.Fatalf("current reviews %+v, want r3", cur)
	}
	// The other way round: B learns r2, as history of r3.
	aPath := closeForMerge(t, a)
	b, err = Open(bPath)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if _, err := b.Merge(context.Background(), aPath, MergeOptions{}); err != nil {
		t.Fatal(err)
	}
	cur, _ = b.CurrentReviews(t.Context(), ep)
	if len(cur) != 1 || cur[0].ID != r3.ID {
		t.Fatalf("B's current reviews after merging A back %+v, want r3", cur)
	}
	if h, _ := b.ReviewHistory(t.Context(), ep, "carol"); len(h) != 3 {
		t.Fatalf("B's history has %d versions, want 3", len(h))
	}
}

func mgMerge2(t *testing.T, dst *Store, path string) MergeReport {
	t.Helper()
	rep, err := dst.Merge(context.Background(), path, MergeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// An episode edited on the other machine after a first merge (a step
// removed there) keeps this store's version; the report names the field
// and the step, and the other file's new review of it is still added.
func TestMergeEpisodeDiffersKeepsThisVersion(t *testing.T) {
	dir := t.TempDir()
	a := mgStorePath(t, dir, "a.db")
	b := mgStorePath(t, dir, "b.db")
	task := wmTask(t, b, "Open the cart", Navigation, "http://shop.waymark.test/")
	ep := mgRecord(t, b, task.ID, "bob", 3)
	bPath := closeForMerge(t, b)
	mgMerge2(t, a, bPath)
	b, err := Open(bPath)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.RemoveStep(context.Background(), ep, 3, "dave", "not needed"); err != nil {
		t.Fatal(err)
	}
	if _, err := b.SaveReview(t.Context(), Review{EpisodeID: ep, Reviewer: "dave", Outcome: OutcomeSuccess}); err != nil {
		t.Fatal(err)
	}
	closeForMerge(t, b)
	rep := mgMerge2(t, a, bPath)
	wantIssue := MergeIssue{Kind: "episode", ID: ep,
		Detail:     `the two files hold different versions: num_steps is "4" here and "3" there; steps 3 differ`,
		Resolution: "this database's episode, steps and audit log are kept; the other file's reviews and replay runs of it are added"}
	if len(rep.Issues) != 1 || rep.Issues[0] != wantIssue {
		t.Fatalf("issues %+v\nwant [%+v]", rep.Issues, wantIssue)
	}
	// Each table's count, both ways: only the other file's review is new.
	for _, tb := range mergeTables {
		tbl := tb.name
		added, identical := 0, 0
		switch tbl {
		case "reviews":
			added = 1
		case "tasks":
			identical = 1
		}
		if rep.Added[tbl] != added || rep.Identical[tbl] != identical {
			t.Errorf("%s: added %d, identical %d; want %d, %d", tbl, rep.Added[tbl], rep.Identical[tbl], added, identical)
		}
	}
	steps, _ := a.Steps(t.Context(), ep)
	if steps[3].Removed {
		t.Error("this store's step was changed by the other file's edit")
	}
	if rep.Added["episode_edits"] != 0 || rep.Added["reviews"] != 1 {
		t.Errorf("added %v; want the review, not the edit", rep.Added)
	}
}

// Every column both schemas share is copied, whatever its name: a column
// added to steps by a later migration (here added by hand to both files)
// comes across with its values; a store of an older schema merges with the
// columns it has.
func TestMergeCarriesSharedColumns(t *testing.T) {
	dir := t.TempDir()
	a := mgStorePath(t, dir, "a.db")
	b := mgStorePath(t, dir, "b.db")
	for _, s := range []*Store{a, b} {
		if _, err := s.db.Exec(`ALTER TABLE steps ADD COLUMN actor_for_test TEXT NOT NULL DEFAULT ''`); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := b.db.Exec(`ALTER TABLE episodes ADD COLUMN only_in_b TEXT`); err != nil {
		t.Fatal(err)
	}
	task := wmTask(t, b, "Open the cart", Navigation, "http://shop.waymark.test/")
	ep := mgRecord(t, b, task.ID, "bob", 2)
	if _, err := b.db.Exec(`UPDATE steps SET actor_for_test = 'human:bob#' || idx WHERE episode_id=?`, ep); err != nil {
		t.Fatal(err)
	}
	bPath := closeForMerge(t, b)
	mgMerge2(t, a, bPath)
	if n := mgCount(t, a, `SELECT COUNT(*) FROM steps WHERE episode_id=? AND actor_for_test = 'human:bob#' || idx`, ep); n != 4 {
		t.Fatalf("%d of 4 steps carry the new column's value", n)
	}

	// Schema 1 (no owner, edits, HAR or replay runs): its rows merge.
	old := oldStore(t, 1, `
INSERT INTO tasks(id,goal,category,start_url,source,created_at,updated_at) VALUES('t-old','Old goal','navigation','http://shop.waymark.test/','file','2024-01-01T00:00:00.000Z','2024-01-01T00:00:00.000Z');
INSERT INTO episodes(id,task_id,annotator,action_set,status,num_steps,started_at,ended_at) VALUES('e-old','t-old','olga','default','finished',1,'2024-01-01T00:00:01.000Z','2024-01-01T00:00:09.000Z');
INSERT INTO steps(episode_id,idx,url,created_at) VALUES('e-old',0,'http://shop.waymark.test/','2024-01-01T00:00:01.000Z');
INSERT INTO steps(episode_id,idx,action_json,op,url,created_at) VALUES('e-old',1,'{"op":"click","x":1,"y":2}','click','http://shop.waymark.test/a','2024-01-01T00:00:02.000Z');
INSERT INTO reviews(id,episode_id,reviewer,outcome,created_at) VALUES('r-old','e-old','olga','success','2024-01-02T00:00:00.000Z');`)
	rep := mgMerge2(t, a, old)
	if rep.Added["episodes"] != 1 || rep.Added["steps"] != 2 || rep.Added["reviews"] != 1 || rep.Added["tasks"] != 1 {
		t.Fatalf("schema-1 merge added %v", rep.Added)
	}
	if e, err := a.GetEpisode(t.Context(), "e-old"); err != nil || e.Owner != "" || e.Annotator != "olga" {
		t.Fatalf("old episode %+v %v", e, err)
	}
}

// What a merge refuses, each with words that say what to do, leaving this
// store as it was: a newer schema, a file that is no database, another
// program's SQLite file, this store itself, a side file, and a store open in
// another process (the write-ahead-log rule: its file is only read through
// SQLite, and only once no one else has it open).
func TestMergeRefusals(t *testing.T) {
	dir := t.TempDir()
	a := mgStorePath(t, dir, "a.db")
	wmTask(t, a, "Mine", Navigation, "http://shop.waymark.test/")
	before := mgTotals(t, a)

	newer := mgStorePath(t, dir, "newer.db")
	wmTask(t, newer, "Theirs", Navigation, "http://shop.waymark.test/x")
	if _, err := newer.db.Exec(`PRAGMA user_version = 999`); err != nil {
		t.Fatal(err)
	}
	newerPath := closeForMerge(t, newer)

	junk := filepath.Join(dir, "notes.db")
	os.WriteFile(junk, bytes.Repeat([]byte("not sqlite "), 500), 0o600)
	foreign := oldStore(t, 0, `CREATE TABLE contacts (name TEXT);`)

	cases := []struct{ path, want string }{
		{newerPath, "update Waymark here"},
		{junk, "not a Waymark database"},
		{foreign, "not a Waymark database"},
		{a.Path(), "the database Waymark has open"},
		{a.Path() + "-wal", ""}, // either "side file" or, absent, no such file
		{filepath.Join(dir, "missing.db"), "no such file"},
		{dir, "it is a folder"},
	}
	for _, c := range cases {
		_, err := a.Merge(context.Background(), c.path, MergeOptions{})
		if err == nil {
			t.Errorf("merge of %s was not refused", c.path)
			continue
		}
		if !strings.Contains(err.Error(), c.want) {
			t.Errorf("merge of %s: %v; want it to say %q", c.path, err, c.want)
		}
	}
	if errors.Is(nil, ErrMergeSelf) {
		t.Fatal("unreachable")
	}

	// A store another process has open: refused until it closes.
	otherPath, other := wmChildStore(t)
	other.Close()
	cmd, out := wmChild(t, otherPath, "hold")
	for out.Scan() {
		if out.Text() == "recorded 0" {
			break
		}
	}
	_, err := a.Merge(context.Background(), otherPath, MergeOptions{})
	if !errors.Is(err, ErrMergeOpenElsewhere) || !strings.Contains(err.Error(), "close it there") {
		t.Fatalf("merge of a store open in another process: %v", err)
	}
	if now := mgTotals(t, a); !mapsEqual(now, before) {
		t.Fatalf("a refused merge changed the store: %v → %v", before, now)
	}
	cmd.Process.Kill()
	cmd.Wait()
	rep, err := a.Merge(context.Background(), otherPath, MergeOptions{})
	if err != nil {
		t.Fatalf("merge after the other process ended: %v", err)
	}
	if rep.Added["episodes"] != 1 {
		t.Fatalf("added %v, want the other process's episode", rep.Added)
	}
}

// A merge that fails part way leaves this store as it was: cancelled after
// its first chunk of steps, and stopped by a row of the other file that
// points to a missing episode.
func TestMergeIsTransactional(t *testing.T) {
	dir := t.TempDir()
	a := mgStorePath(t, dir, "a.db")
	b := mgStorePath(t, dir, "b.db")
	task := wmTask(t, b, "Open the cart", Navigation, "http://shop.waymark.test/")
	mgRecord(t, b, task.ID, "bob", 2)
	bPath := closeForMerge(t, b)
	before := mgTotals(t, a)
	ctx, cancel := context.WithCancel(context.Background())
	calls := 0
	_, err := a.Merge(ctx, bPath, MergeOptions{Progress: func(p MergeProgress) {
		calls++
		if p.Steps == 0 {
			t.Errorf("progress %+v before any step was copied", p)
		}
		cancel()
	}})
	if err == nil || !strings.Contains(err.Error(), "nothing was changed") {
		t.Fatalf("cancelled merge: %v", err)
	}
	if calls != 1 {
		t.Errorf("%d progress reports, want 1", calls)
	}
	if now := mgTotals(t, a); !mapsEqual(now, before) {
		t.Fatalf("a cancelled merge changed the store: %v → %v", before, now)
	}

	broken := oldStore(t, SchemaVersion, `
INSERT INTO tasks(id,goal,category,start_url,source,created_at,updated_at) VALUES('t1','G','navigation','http://shop.waymark.test/','file','2024-01-01T00:00:00.000Z','2024-01-01T00:00:00.000Z');
INSERT INTO reviews(id,episode_id,reviewer,outcome,created_at) VALUES('r1','no-such-episode','olga','success','2024-01-02T00:00:00.000Z');`)
	_, err = a.Merge(context.Background(), broken, MergeOptions{})
	if err == nil || !strings.Contains(err.Error(), "points to a episodes row") || !strings.Contains(err.Error(), "nothing was changed") {
		t.Fatalf("merge of a file with a dangling review: %v", err)
	}
	if now := mgTotals(t, a); !mapsEqual(now, before) {
		t.Fatalf("a failed merge changed the store: %v → %v", before, now)
	}
}

// A merge waits for no recording: while an episode is being recorded into
// this store it is refused (the recording's steps must never wait for the
// merge's transaction), and once the episode ends it goes through.
func TestMergeRefusedWhileRecording(t *testing.T) {
	dir := t.TempDir()
	a := mgStorePath(t, dir, "a.db")
	b := mgStorePath(t, dir, "b.db")
	mgRecord(t, b, wmTask(t, b, "Theirs", Navigation, "http://shop.waymark.test/").ID, "bob", 1)
	bPath := closeForMerge(t, b)
	task := wmTask(t, a, "Mine", Navigation, "http://shop.waymark.test/mine")
	rec := NewRecorder(a, newWMEngine(action.SetDefault, 0), RecorderOptions{TaskID: task.ID, Annotator: "alice"})
	defer rec.Close()
	ctx := context.Background()
	if _, err := rec.Reset(ctx, engine.ResetOptions{}); err != nil {
		t.Fatal(err)
	}
	_, err := a.Merge(ctx, bPath, MergeOptions{})
	if !errors.Is(err, ErrMergeWhileRecording) || !strings.Contains(err.Error(), "finish or stop that episode, then merge") {
		t.Fatalf("merge during a recording: %v", err)
	}
	if _, err := rec.Step(ctx, action.FinishWith("")); err != nil {
		t.Fatal(err)
	}
	if rep := mgMerge2(t, a, bPath); rep.Added["episodes"] != 1 {
		t.Fatalf("after the recording: added %v", rep.Added)
	}
}

// A cancelled merge leaves nothing behind on the store's connections: the
// merges after it attach their source again, many times over (the
// cancellation's rollback once raced the source's detach, and the next
// merge found "database src is already in use").
func TestMergeAfterACancelledMerge(t *testing.T) {
	dir := t.TempDir()
	a := mgStorePath(t, dir, "a.db")
	b := mgStorePath(t, dir, "b.db")
	mgRecord(t, b, wmTask(t, b, "Open the cart", Navigation, "http://shop.waymark.test/").ID, "bob", 2)
	bPath := closeForMerge(t, b)
	for i := range 40 {
		ctx, cancel := context.WithCancel(context.Background())
		_, err := a.Merge(ctx, bPath, MergeOptions{Progress: func(MergeProgress) { cancel() }})
		cancel()
		if err == nil || !strings.Contains(err.Error(), "cancelled: nothing was changed") {
			t.Fatalf("try %d: cancelled merge: %v", i, err)
		}
	}
	if _, err := a.Merge(context.Background(), bPath, MergeOptions{}); err != nil {
		t.Fatalf("merge after cancelled ones: %v", err)
	}
}
