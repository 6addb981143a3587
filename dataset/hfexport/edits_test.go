package hfexport

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"waymark/dataset"
	"waymark/engine/action"
)

// Edited episodes are exported edited: removed steps are left out, the kept
// actions are numbered without gaps in step_index and keep their stored
// index in recorded_step, the review's flags and failure step (keyed by
// stored index) follow the renumbering, and the episodes config says what
// was edited, resumed and branched. Rows are read back with structs of this
// file, by column name.

type editedStep struct {
	EpisodeID    *string `parquet:"episode_id"`
	StepIndex    *int64  `parquet:"step_index"`
	RecordedStep *int64  `parquet:"recorded_step"`
	Screenshot   *struct {
		Bytes []byte  `parquet:"bytes"`
		Path  *string `parquet:"path"`
	} `parquet:"screenshot"`
	URL         *string   `parquet:"url"`
	NextURL     *string   `parquet:"next_url"`
	ReviewFlags []*string `parquet:"review_flags,optional,list"`
	Note        *string   `parquet:"note"`
}

type editedEpisode struct {
	EpisodeID       *string `parquet:"episode_id"`
	NumSteps        *int64  `parquet:"num_steps"`
	FailureStep     *int64  `parquet:"failure_step"`
	FailureType     *string `parquet:"failure_type"`
	FinalScreenshot *struct {
		Bytes []byte  `parquet:"bytes"`
		Path  *string `parquet:"path"`
	} `parquet:"final_screenshot"`
	Steps []*struct {
		StepIndex    *int64 `parquet:"step_index"`
		RecordedStep *int64 `parquet:"recorded_step"`
	} `parquet:"steps,optional,list"`
	Edited          *bool    `parquet:"edited"`
	NumEdits        *int64   `parquet:"num_edits"`
	RemovedSteps    []*int64 `parquet:"removed_steps,optional,list"`
	ResumedAt       []*int64 `parquet:"resumed_at,optional,list"`
	ParentEpisodeID *string  `parquet:"parent_episode_id"`
	BranchStep      *int64   `parquet:"branch_step"`
	ReferenceTime   *string  `parquet:"reference_time"`
	Timezone        *string  `parquet:"timezone"`
	Locale          *string  `parquet:"locale"`
}

func ints(ps []*int64) []int64 {
	out := []int64{}
	for _, p := range ps {
		out = append(out, *p)
	}
	return out
}

func strs(ps []*string) []string {
	out := []string{}
	for _, p := range ps {
		out = append(out, *p)
	}
	return out
}

func TestExportEditedEpisodes(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, makePNGs(t, 8, false))
	s := f.store
	f.task("task-clock", dataset.Interaction)
	f.exec(`UPDATE tasks SET reference_time='2024-03-15T10:30:00+01:00', timezone='Europe/Paris', locale='fr-FR' WHERE id='task-clock'`)
	f.task("task-plain", dataset.Navigation)
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	step := func(ep string, i int) {
		t.Helper()
		st := dataset.Step{EpisodeID: ep, Index: i, URL: stepURL(ep, i), Screenshot: f.pngs[i]}
		if i > 0 {
			a := action.ClickAt(10*i, 10*i)
			st.Action = &a
		}
		must(s.AppendStep(ctx, st))
	}

	// "edit-a": step 3 undone while recording, then steps 4-6; in review
	// step 5 removed. Kept: 0 1 2 4 6.
	a, err := s.CreateEpisode(ctx, dataset.Episode{ID: "edit-a", TaskID: "task-clock", Annotator: "ann"})
	must(err)
	for i := 0; i <= 3; i++ {
		step(a.ID, i)
	}
	if k, err := s.UndoStep(ctx, a.ID, "ann"); err != nil || k != 3 {
		t.Fatalf("undo %d %v", k, err)
	}
	next, err := s.NextStepIndex(ctx, a.ID)
	must(err)
	for i := next; i <= 6; i++ {
		step(a.ID, i)
	}
	must(s.SetStepNote(ctx, a.ID, 4, "the list loaded late"))
	must(s.FinishEpisode(ctx, a.ID, dataset.EpisodeEnd{Answer: "done"}))
	must(s.RemoveStep(ctx, a.ID, 5, "rev", "a detour"))
	four := 4
	_, err = s.SaveReview(ctx, dataset.Review{EpisodeID: a.ID, Reviewer: "rita", Outcome: dataset.OutcomeFailure, FailureStep: &four,
		FailureType: "wrong_element", StepFlags: map[int][]string{2: {dataset.FlagMistake}, 5: {dataset.FlagUnnecessary}, 6: {dataset.FlagMistake}}})
	must(err)

	// "edit-b": a branch of edit-a at its step 2, resumed at its step 2,
	// labelled a failure at step 3, then trimmed after step 2.
	two := 2
	b, err := s.CreateEpisode(ctx, dataset.Episode{ID: "edit-b", TaskID: "task-plain", Annotator: "ann", ParentEpisodeID: a.ID, BranchStep: &two})
	must(err)
	for i := 0; i <= 3; i++ {
		step(b.ID, i)
	}
	must(s.MarkResumed(ctx, b.ID, 2, "ann"))
	must(s.FinishEpisode(ctx, b.ID, dataset.EpisodeEnd{}))
	three := 3
	_, err = s.SaveReview(ctx, dataset.Review{EpisodeID: b.ID, Reviewer: "rita", Outcome: dataset.OutcomeFailure, FailureStep: &three, FailureType: "gave_up"})
	must(err)
	must(s.TrimAfter(ctx, b.ID, 2, "rev", "wandered off"))

	// "plain": never edited.
	f.episode("plain", "task-plain", "bob", dataset.StatusFinished, 2)
	f.review("plain", "rita", dataset.OutcomeSuccess, false)

	out := filepath.Join(t.TempDir(), "ds")
	o := opts(out)
	o.TestFraction = 0
	res := mustExport(t, f, o)
	if res.Steps != 4+2+2 || res.Episodes != 3 || res.FailureStepsRemoved != 1 {
		t.Fatalf("result %+v", res)
	}
	checkFolder(t, out)

	var steps []editedStep
	for _, p := range parquetFiles(t, out, "steps") {
		steps = append(steps, readRows[editedStep](t, p)...)
	}
	type got struct {
		ep            string
		index, stored int64
		shot          int // which stored step's screenshot, -1 none
		url, nextURL  string
		flags         string
		note          string
	}
	shotOf := func(b []byte) int {
		for i, p := range f.pngs {
			if bytes.Equal(p, b) {
				return i
			}
		}
		return -1
	}
	var rows []got
	for _, r := range steps {
		g := got{ep: *r.EpisodeID, index: *r.StepIndex, stored: *r.RecordedStep, shot: -1, url: *r.URL, nextURL: *r.NextURL,
			flags: strings.Join(strs(r.ReviewFlags), ","), note: *r.Note}
		if r.Screenshot != nil {
			g.shot = shotOf(r.Screenshot.Bytes)
			// The path names the stored step shown (in the edit-* episodes
			// step i shows pngs[i]).
			if want := fmt.Sprintf("%s/step_%04d.png", g.ep, g.shot); g.ep != "plain" && *r.Screenshot.Path != want {
				t.Errorf("%s step %d: screenshot path %s, want %s", g.ep, g.index, *r.Screenshot.Path, want)
			}
		}
		rows = append(rows, g)
	}
	u := stepURL
	want := []got{
		// The observation of recorded step 4 is step 2's page (step 3 was
		// undone and the page brought back); that of recorded step 6 is
		// step 5's, which the annotator saw before a reviewer removed it.
		{"edit-a", 1, 1, 0, u("edit-a", 0), u("edit-a", 1), "", ""},
		{"edit-a", 2, 2, 1, u("edit-a", 1), u("edit-a", 2), "mistake", ""},
		{"edit-a", 3, 4, 2, u("edit-a", 2), u("edit-a", 4), "", "the list loaded late"},
		{"edit-a", 4, 6, 5, u("edit-a", 5), u("edit-a", 6), "mistake", ""},
		{"edit-b", 1, 1, 0, u("edit-b", 0), u("edit-b", 1), "", ""},
		{"edit-b", 2, 2, 1, u("edit-b", 1), u("edit-b", 2), "", ""},
		{"plain", 1, 1, 5, u("plain", 0), u("plain", 1), "", ""},
		{"plain", 2, 2, 6, u("plain", 1), u("plain", 2), "", ""},
	}
	// The fixture's plain episode takes pngs[(i+len(id))%len]: step i of
	// "plain" shows pngs[i+5].
	if !slices.Equal(rows, want) {
		t.Errorf("steps\n got %+v\nwant %+v", rows, want)
	}

	eps := map[string]editedEpisode{}
	for _, p := range parquetFiles(t, out, "episodes") {
		for _, r := range readRows[editedEpisode](t, p) {
			eps[*r.EpisodeID] = r
		}
	}
	type epGot struct {
		numSteps            int64
		failure, ftype      string
		final               int
		indices, recorded   string
		edited              bool
		numEdits            int64
		removed, resumed    string
		parent, branch      string
		refTime, tz, locale string
	}
	orNull := func(p any) string {
		switch v := p.(type) {
		case *string:
			if v != nil {
				return *v
			}
		case *int64:
			if v != nil {
				return fmt.Sprint(*v)
			}
		}
		return "<null>"
	}
	summarize := func(id string) epGot {
		r, ok := eps[id]
		if !ok {
			t.Fatalf("%s not exported", id)
		}
		g := epGot{numSteps: *r.NumSteps, failure: orNull(r.FailureStep), ftype: orNull(r.FailureType), final: -1, edited: *r.Edited, numEdits: *r.NumEdits,
			removed: fmt.Sprint(ints(r.RemovedSteps)), resumed: fmt.Sprint(ints(r.ResumedAt)),
			parent: orNull(r.ParentEpisodeID), branch: orNull(r.BranchStep), refTime: *r.ReferenceTime, tz: *r.Timezone, locale: *r.Locale}
		if r.FinalScreenshot != nil {
			g.final = shotOf(r.FinalScreenshot.Bytes)
		}
		var idx, rec []int64
		for _, st := range r.Steps {
			idx, rec = append(idx, *st.StepIndex), append(rec, *st.RecordedStep)
		}
		g.indices, g.recorded = fmt.Sprint(idx), fmt.Sprint(rec)
		return g
	}
	for id, w := range map[string]epGot{
		// Failure at stored step 4 is the 3rd exported action.
		"edit-a": {4, "3", "wrong_element", 6, "[1 2 3 4]", "[1 2 4 6]", true, 2, "[3 5]", "[]", "<null>", "<null>", "2024-03-15T10:30:00+01:00", "Europe/Paris", "fr-FR"},
		// Failure at stored step 3, which the trim removed: null, and so
		// is its type (never a failure type without its step).
		"edit-b": {2, "<null>", "<null>", 2, "[1 2]", "[1 2]", true, 1, "[3]", "[2]", "edit-a", "2", "", "", ""},
		"plain":  {2, "<null>", "<null>", 7, "[1 2]", "[1 2]", false, 0, "[]", "[]", "<null>", "<null>", "", "", ""},
	} {
		g := summarize(id)
		if g != w {
			t.Errorf("%s\n got %+v\nwant %+v", id, g, w)
		}
	}

	card, err := os.ReadFile(filepath.Join(out, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{
		"Episodes are exported as edited.",
		"In this export: 2 edited, 1 resumed, 1 branch.",
		"`recorded_step` is the step's number in the recording",
		"`note` is the annotator's note on the step",
		"`removed_steps` lists the `recorded_step` numbers left out",
		"1 failure's first failing step was removed by an edit after it was labelled: its `failure_step` and `failure_type` are null",
		"`reference_time` (ISO 8601 with its UTC offset)",
	} {
		if !strings.Contains(string(card), s) {
			t.Errorf("card lacks %q", s)
		}
	}
}
