package dataset

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"waymark/engine/action"
)

// wmEpisodeSteps creates an episode with steps 0..n (step k clicks at k,k)
// and leaves it in status.
func wmEpisodeSteps(t *testing.T, s *Store, n int, status Status) string {
	t.Helper()
	task := wmTask(t, s, fmt.Sprintf("Edit %s %d", status, time.Now().UnixNano()), Navigation, "http://shop.waymark.test/")
	e, err := s.CreateEpisode(t.Context(), Episode{TaskID: task.ID, Annotator: "ann"})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i <= n; i++ {
		st := Step{EpisodeID: e.ID, Index: i, URL: fmt.Sprintf("http://shop.waymark.test/%d", i), Screenshot: wmPagePNG(int64(i))}
		if i > 0 {
			a := action.ClickAt(i, i)
			st.Action = &a
		}
		if err := s.AppendStep(t.Context(), st); err != nil {
			t.Fatal(err)
		}
	}
	if status != StatusRecording {
		if err := s.setStatus(t.Context(), e.ID, status, "x"); err != nil {
			t.Fatal(err)
		}
	}
	return e.ID
}

// wmKept lists the indices EditedSteps yields and checks num_steps and
// NumRemoved agree with them and with EpisodeSteps.
func wmKept(t *testing.T, s *Store, id string) []int {
	t.Helper()
	ctx := context.Background()
	var kept []int
	for st, err := range s.EditedSteps(ctx, id) {
		if err != nil {
			t.Fatal(err)
		}
		if st.Removed || len(st.Screenshot) == 0 {
			t.Fatalf("edited step %d: removed %v, %d screenshot bytes", st.Index, st.Removed, len(st.Screenshot))
		}
		kept = append(kept, st.Index)
	}
	var all, removed int
	for st, err := range s.EpisodeSteps(ctx, id) {
		if err != nil {
			t.Fatal(err)
		}
		all++
		if st.Removed {
			removed++
		}
	}
	ep, err := s.GetEpisode(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if ep.NumSteps != len(kept)-1 || ep.NumRemoved != removed || all != len(kept)+removed || ep.Edited() != (removed > 0) {
		t.Fatalf("num_steps %d, NumRemoved %d, kept %v, %d removed of %d", ep.NumSteps, ep.NumRemoved, kept, removed, all)
	}
	return kept
}

func wmEdits(t *testing.T, s *Store, id string) []Edit {
	t.Helper()
	var out []Edit
	for e, err := range s.EpisodeEdits(context.Background(), id) {
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, e)
	}
	return out
}

func wmRefused(t *testing.T, err error, want string) {
	t.Helper()
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("got %v, want an error containing %q", err, want)
	}
}

func TestUndoStepWhileRecording(t *testing.T) {
	s := wmStore(t)
	ctx := context.Background()
	id := wmEpisodeSteps(t, s, 3, StatusRecording)
	before := time.Now().Add(-time.Second)
	for _, want := range []int{3, 2} {
		got, err := s.UndoStep(ctx, id, "ann")
		if err != nil || got != want {
			t.Fatalf("undo: %d %v, want %d", got, err, want)
		}
	}
	if k := wmKept(t, s, id); !slices.Equal(k, []int{0, 1}) {
		t.Fatalf("kept %v", k)
	}
	// The recorder goes on after the removed steps; a new step counts.
	next, err := s.NextStepIndex(ctx, id)
	if err != nil || next != 4 {
		t.Fatalf("next %d %v", next, err)
	}
	a := action.ClickAt(9, 9)
	if err := s.AppendStep(ctx, Step{EpisodeID: id, Index: next, Action: &a, Screenshot: wmPagePNG(9)}); err != nil {
		t.Fatal(err)
	}
	if k := wmKept(t, s, id); !slices.Equal(k, []int{0, 1, 4}) {
		t.Fatalf("kept after a new step %v", k)
	}
	if got, _ := s.UndoStep(ctx, id, "ann"); got != 4 {
		t.Fatalf("undo after the new step took %d", got)
	}
	if got, _ := s.UndoStep(ctx, id, "ann"); got != 1 {
		t.Fatalf("undo took %d", got)
	}
	_, err = s.UndoStep(ctx, id, "ann")
	wmRefused(t, err, "only its start page (step 0) is left")
	if k := wmKept(t, s, id); !slices.Equal(k, []int{0}) {
		t.Fatalf("kept %v", k)
	}
	edits := wmEdits(t, s, id)
	if len(edits) != 4 {
		t.Fatalf("edits %+v", edits)
	}
	for i, want := range []int{3, 2, 4, 1} {
		e := edits[i]
		if e.Step != want || e.Kind != EditUndo || e.Editor != "ann" || e.EpisodeID != id || e.At.Before(before) || e.At.After(time.Now().Add(time.Second)) {
			t.Fatalf("edit %d: %+v", i, e)
		}
		if i > 0 && e.ID <= edits[i-1].ID {
			t.Fatalf("edits not oldest first: %+v", edits)
		}
	}
	if ep, _ := s.GetEpisode(ctx, id); ep.NumEdits != 4 || ep.Resumed {
		t.Fatalf("episode summary %+v", ep)
	}
	_, err = s.UndoStep(ctx, id, "  ")
	wmRefused(t, err, "set your name in the settings")

	// Undo belongs to recording.
	done := wmEpisodeSteps(t, s, 2, StatusFinished)
	_, err = s.UndoStep(ctx, done, "ann")
	wmRefused(t, err, "is finished, not recording: undo works only while recording; remove or trim its steps in Review instead")
	gone := wmEpisodeSteps(t, s, 2, StatusDiscarded)
	_, err = s.UndoStep(ctx, gone, "ann")
	wmRefused(t, err, "was discarded")
	if _, err := s.UndoStep(ctx, "nope", "ann"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("undo of a missing episode: %v", err)
	}
	if k := wmKept(t, s, done); !slices.Equal(k, []int{0, 1, 2}) {
		t.Fatalf("a refused undo changed the episode: %v", k)
	}
}

func TestReviewEditsAndAuditLog(t *testing.T) {
	s := wmStore(t)
	ctx := context.Background()
	id := wmEpisodeSteps(t, s, 6, StatusFinished)
	if err := s.RemoveStep(ctx, id, 2, "rev", "  clicked the wrong tab  "); err != nil {
		t.Fatal(err)
	}
	if k := wmKept(t, s, id); !slices.Equal(k, []int{0, 1, 3, 4, 5, 6}) {
		t.Fatalf("kept %v", k)
	}
	if err := s.TrimAfter(ctx, id, 4, "rev2", "wandered off after the answer"); err != nil {
		t.Fatal(err)
	}
	if k := wmKept(t, s, id); !slices.Equal(k, []int{0, 1, 3, 4}) {
		t.Fatalf("kept after trim %v", k)
	}
	if err := s.RestoreStep(ctx, id, 6, "rev", "the last click was needed"); err != nil {
		t.Fatal(err)
	}
	if err := s.RestoreStep(ctx, id, 2, "rev", ""); err != nil {
		t.Fatal(err)
	}
	if k := wmKept(t, s, id); !slices.Equal(k, []int{0, 1, 2, 3, 4, 6}) {
		t.Fatalf("kept after restores %v", k)
	}
	// The steps themselves are all still stored, removed ones flagged.
	steps, err := s.Steps(ctx, id)
	if err != nil || len(steps) != 7 || !steps[5].Removed || steps[6].Removed || steps[2].Removed {
		t.Fatalf("steps %+v %v", steps, err)
	}
	edits := wmEdits(t, s, id)
	type row struct {
		step           int
		kind           EditKind
		editor, reason string
	}
	var got []row
	for _, e := range edits {
		got = append(got, row{e.Step, e.Kind, e.Editor, e.Reason})
	}
	want := []row{{2, EditRemove, "rev", "clicked the wrong tab"}, {4, EditTrim, "rev2", "wandered off after the answer"},
		{6, EditRestore, "rev", "the last click was needed"}, {2, EditRestore, "rev", ""}}
	if !slices.Equal(got, want) {
		t.Fatalf("audit log\n got %+v\nwant %+v", got, want)
	}
	if ep, _ := s.GetEpisode(ctx, id); ep.NumEdits != 4 || ep.NumRemoved != 1 || !ep.Edited() {
		t.Fatalf("summary %+v", ep)
	}
	if l, _ := s.ListEpisodes(ctx, EpisodeFilter{TaskID: mustEpisode(t, s, id).TaskID}); len(l) != 1 || l[0].NumEdits != 4 || l[0].NumRemoved != 1 || l[0].NumSteps != 5 {
		t.Fatalf("list %+v", l)
	}

	// Refusals, each leaving the episode as it was.
	n := len(edits)
	wmRefused(t, s.RemoveStep(ctx, id, 0, "rev", ""), "step 0 of episode "+id+" is its start page and cannot be removed")
	wmRefused(t, s.RestoreStep(ctx, id, 0, "rev", ""), "is its start page")
	wmRefused(t, s.RemoveStep(ctx, id, 5, "rev", ""), "step 5 of episode "+id+" is already removed; restore it")
	wmRefused(t, s.RestoreStep(ctx, id, 3, "rev", ""), "step 3 of episode "+id+" is not removed: there is nothing to restore")
	err = s.RemoveStep(ctx, id, 9, "rev", "")
	wmRefused(t, err, "has no step 9 (its steps are 0 to 6)")
	if !errors.Is(err, ErrNotFound) {
		t.Fatalf("unknown step: %v", err)
	}
	wmRefused(t, s.TrimAfter(ctx, id, 0, "rev", ""), "would leave no action")
	wmRefused(t, s.TrimAfter(ctx, id, 5, "rev", ""), "step 5 of episode "+id+" is removed: trim after a kept step")
	wmRefused(t, s.TrimAfter(ctx, id, 6, "rev", ""), "nothing to trim")
	wmRefused(t, s.TrimAfter(ctx, id, 8, "rev", ""), "has no step 8")
	wmRefused(t, s.RemoveStep(ctx, id, 1, "", ""), "set your name in the settings")
	wmRefused(t, s.RemoveStep(ctx, id, 1, "rev", strings.Repeat("x", MaxReasonRunes+1)), "shorten it")
	wmRefused(t, s.RemoveStep(ctx, "nope", 1, "rev", ""), "not found")
	rec := wmEpisodeSteps(t, s, 2, StatusRecording)
	for _, err := range []error{s.RemoveStep(ctx, rec, 1, "rev", ""), s.TrimAfter(ctx, rec, 1, "rev", ""), s.RestoreStep(ctx, rec, 1, "rev", "")} {
		wmRefused(t, err, "is still being recorded: undo its last step on the Record screen")
	}
	gone := wmEpisodeSteps(t, s, 2, StatusDiscarded)
	wmRefused(t, s.RemoveStep(ctx, gone, 1, "rev", ""), "was discarded: it is not exported, so its steps cannot be edited")
	if len(wmEdits(t, s, id)) != n || len(wmEdits(t, s, rec)) != 0 || len(wmEdits(t, s, gone)) != 0 {
		t.Fatal("a refused edit wrote to the audit log")
	}
	if k := wmKept(t, s, id); !slices.Equal(k, []int{0, 1, 2, 3, 4, 6}) {
		t.Fatalf("a refused edit changed the episode: %v", k)
	}

	// Interrupted episodes are edited in review too.
	intr := wmEpisodeSteps(t, s, 3, StatusInterrupted)
	if err := s.TrimAfter(ctx, intr, 1, "rev", ""); err != nil {
		t.Fatal(err)
	}
	if k := wmKept(t, s, intr); !slices.Equal(k, []int{0, 1}) {
		t.Fatalf("kept %v", k)
	}
}

func mustEpisode(t *testing.T, s *Store, id string) Episode {
	t.Helper()
	e, err := s.GetEpisode(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func TestMarkResumedAndNextStepIndex(t *testing.T) {
	s := wmStore(t)
	ctx := context.Background()
	id := wmEpisodeSteps(t, s, 3, StatusInterrupted)
	if err := s.MarkResumed(ctx, id, 3, "ann"); err != nil {
		t.Fatal(err)
	}
	ep := mustEpisode(t, s, id)
	if !ep.Resumed || ep.NumEdits != 0 || ep.NumSteps != 3 || ep.Status != StatusInterrupted {
		t.Fatalf("after resume %+v", ep)
	}
	if e := wmEdits(t, s, id); len(e) != 1 || e[0].Kind != EditResume || e[0].Step != 3 || e[0].Editor != "ann" {
		t.Fatalf("edits %+v", e)
	}
	wmRefused(t, s.MarkResumed(ctx, id, 7, "ann"), "has no step 7")
	wmRefused(t, s.MarkResumed(ctx, id, 1, ""), "set your name")
	if next, err := s.NextStepIndex(ctx, id); err != nil || next != 4 {
		t.Fatalf("next %d %v", next, err)
	}
	if _, err := s.NextStepIndex(ctx, "nope"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("next of a missing episode: %v", err)
	}
	task := wmTask(t, s, "Empty", Navigation, "http://shop.waymark.test/")
	empty, _ := s.CreateEpisode(ctx, Episode{TaskID: task.ID, Annotator: "ann"})
	if next, err := s.NextStepIndex(ctx, empty.ID); err != nil || next != 0 {
		t.Fatalf("next of an empty episode %d %v", next, err)
	}
}

func TestSetStepNote(t *testing.T) {
	s := wmStore(t)
	ctx := context.Background()
	id := wmEpisodeSteps(t, s, 2, StatusRecording)
	if err := s.SetStepNote(ctx, id, 1, "  the menu opened slowly \n"); err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("é", MaxNoteRunes)
	if err := s.SetStepNote(ctx, id, 0, long); err != nil {
		t.Fatalf("a note of %d characters: %v", MaxNoteRunes, err)
	}
	wmRefused(t, s.SetStepNote(ctx, id, 2, long+"x"), "the note is 1001 characters long; shorten it to 1000 or fewer")
	wmRefused(t, s.SetStepNote(ctx, id, 2, "a\x00b"), "contains a NUL character")
	wmRefused(t, s.SetStepNote(ctx, id, 2, "a\xffb"), "not valid UTF-8")
	if err := s.SetStepNote(ctx, id, 5, "x"); !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), "has no step 5") {
		t.Fatalf("note on a missing step: %v", err)
	}
	if err := s.SetStepNote(ctx, "nope", 1, "x"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("note on a missing episode: %v", err)
	}
	// After the episode ends, and on a removed step, notes still work.
	if err := s.setStatus(ctx, id, StatusFinished, "x"); err != nil {
		t.Fatal(err)
	}
	if err := s.RemoveStep(ctx, id, 2, "rev", ""); err != nil {
		t.Fatal(err)
	}
	if err := s.SetStepNote(ctx, id, 2, "why this was removed"); err != nil {
		t.Fatal(err)
	}
	steps, _ := s.Steps(ctx, id)
	if steps[0].Note != long || steps[1].Note != "the menu opened slowly" || steps[2].Note != "why this was removed" {
		t.Fatalf("notes %q %q %q", steps[0].Note[:4], steps[1].Note, steps[2].Note)
	}
	if err := s.SetStepNote(ctx, id, 1, "   "); err != nil {
		t.Fatal(err)
	}
	// AppendStep keeps a note given with the step, and refuses a removed one.
	a := action.ClickAt(1, 1)
	rec := wmEpisodeSteps(t, s, 0, StatusRecording)
	if err := s.AppendStep(ctx, Step{EpisodeID: rec, Index: 1, Action: &a, Note: " typed by hand "}); err != nil {
		t.Fatal(err)
	}
	wmRefused(t, s.AppendStep(ctx, Step{EpisodeID: rec, Index: 2, Action: &a, Removed: true}), "remove it afterwards with RemoveStep")
	for st, err := range s.EpisodeSteps(ctx, rec) {
		if err != nil {
			t.Fatal(err)
		}
		if st.Index == 1 && st.Note != "typed by hand" {
			t.Fatalf("appended note %q", st.Note)
		}
	}
	if steps, _ := s.Steps(ctx, id); steps[1].Note != "" {
		t.Fatalf("a blank note was kept: %q", steps[1].Note)
	}
}

func TestBranchEpisodes(t *testing.T) {
	s := wmStore(t)
	parent := wmEpisodeSteps(t, s, 4, StatusFinished)
	task := mustEpisode(t, s, parent).TaskID
	k := 2
	b, err := s.CreateEpisode(t.Context(), Episode{TaskID: task, Annotator: "ann", ParentEpisodeID: parent, BranchStep: &k})
	if err != nil {
		t.Fatal(err)
	}
	k = 3 // the stored episode keeps its own copy
	got := mustEpisode(t, s, b.ID)
	if got.ParentEpisodeID != parent || got.BranchStep == nil || *got.BranchStep != 2 || *b.BranchStep != 2 {
		t.Fatalf("branch %+v", got)
	}
	if mustEpisode(t, s, parent).ParentEpisodeID != "" || mustEpisode(t, s, parent).BranchStep != nil {
		t.Fatal("the parent became a branch")
	}
	l, err := s.ListEpisodes(t.Context(), EpisodeFilter{ParentID: parent})
	if err != nil || len(l) != 1 || l[0].ID != b.ID || *l[0].BranchStep != 2 {
		t.Fatalf("branches %+v %v", l, err)
	}
	if l, _ := s.ListEpisodes(t.Context(), EpisodeFilter{ParentID: b.ID}); len(l) != 0 {
		t.Fatalf("branches of the branch %+v", l)
	}
	five, zero, neg := 5, 0, -1
	_, err = s.CreateEpisode(t.Context(), Episode{TaskID: task, Annotator: "ann", ParentEpisodeID: "gone", BranchStep: &zero})
	wmRefused(t, err, "cannot branch from episode gone: not found")
	if !errors.Is(err, ErrNotFound) {
		t.Fatal(err)
	}
	_, err = s.CreateEpisode(t.Context(), Episode{TaskID: task, Annotator: "ann", ParentEpisodeID: parent, BranchStep: &five})
	wmRefused(t, err, "cannot branch from step 5 of episode "+parent+": it has no such step (its last is 4)")
	_, err = s.CreateEpisode(t.Context(), Episode{TaskID: task, Annotator: "ann", ParentEpisodeID: parent, BranchStep: &neg})
	wmRefused(t, err, "is negative")
	_, err = s.CreateEpisode(t.Context(), Episode{TaskID: task, Annotator: "ann", ParentEpisodeID: parent})
	wmRefused(t, err, "has no branch step")
	_, err = s.CreateEpisode(t.Context(), Episode{TaskID: task, Annotator: "ann", BranchStep: &zero})
	wmRefused(t, err, "no parent episode")
	if _, err := s.CreateEpisode(t.Context(), Episode{TaskID: task, Annotator: "ann", ParentEpisodeID: parent, BranchStep: &zero}); err != nil {
		t.Fatalf("a branch from step 0: %v", err)
	}
}

// A schema-4 store upgrades to 5 with its steps kept: no note, not removed,
// num_steps unchanged, and the episodes can be edited after.
func TestMigrationAddsStepEdits(t *testing.T) {
	path := oldStore(t, 4, `
		INSERT INTO tasks (id, goal, category, start_url, created_at, updated_at) VALUES ('t1', 'Buy socks', 'interaction', 'http://shop.waymark.test/', '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z');
		INSERT INTO episodes (id, task_id, annotator, action_set, status, end_reason, num_steps, started_at, ended_at)
			VALUES ('e1', 't1', 'ann', 'default', 'finished', 'finished', 2, '2026-01-01T00:00:00.000Z', '2026-01-01T00:01:00.000Z');
		INSERT INTO steps (episode_id, idx, action_json, op, url, screenshot, created_at) VALUES
			('e1', 0, NULL, '', 'http://shop.waymark.test/', x'89504e47', '2026-01-01T00:00:00.000Z'),
			('e1', 1, '{"op":"click","x":1,"y":2}', 'click', 'http://shop.waymark.test/a', x'89504e47', '2026-01-01T00:00:01.000Z'),
			('e1', 2, '{"op":"click","x":3,"y":4}', 'click', 'http://shop.waymark.test/b', x'89504e47', '2026-01-01T00:00:02.000Z');`)
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var v int
	s.db.QueryRow(`PRAGMA user_version`).Scan(&v)
	if v != SchemaVersion || SchemaVersion < 5 {
		t.Fatalf("schema %d after the upgrade, want %d", v, SchemaVersion)
	}
	steps, err := s.Steps(t.Context(), "e1")
	if err != nil || len(steps) != 3 {
		t.Fatalf("steps %+v %v", steps, err)
	}
	for _, st := range steps {
		if st.Note != "" || st.Removed {
			t.Fatalf("old step %d: note %q removed %v", st.Index, st.Note, st.Removed)
		}
	}
	ep := mustEpisode(t, s, "e1")
	if ep.NumSteps != 2 || ep.NumEdits != 0 || ep.NumRemoved != 0 || ep.Resumed || ep.ParentEpisodeID != "" || ep.BranchStep != nil {
		t.Fatalf("old episode %+v", ep)
	}
	ctx := context.Background()
	if err := s.RemoveStep(ctx, "e1", 1, "rev", "old mistake"); err != nil {
		t.Fatal(err)
	}
	if k := wmKept(t, s, "e1"); !slices.Equal(k, []int{0, 2}) {
		t.Fatalf("kept %v", k)
	}
}
