package hfexport

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"

	"waymark/dataset"
	"waymark/engine/action"
)

// Interrupted episodes a reviewer labelled are exported with their status
// and end reason; the settled review's step flags, reason and failure fields
// reach the Parquet files. The rows are read back with structs of this file
// (by column name, not the writer's rows) and the flags straight from the
// column's pages, where a null list and an empty one differ.

// readEpisode and readStep name only the columns this test looks at.
type readEpisode struct {
	EpisodeID    *string `parquet:"episode_id"`
	Outcome      *int64  `parquet:"outcome"`
	FailureStep  *int64  `parquet:"failure_step"`
	FailureType  *string `parquet:"failure_type"`
	ReviewReason *string `parquet:"review_reason"`
	Status       *string `parquet:"status"`
	EndReason    *string `parquet:"end_reason"`
	NumSteps     *int64  `parquet:"num_steps"`
}

type readStep struct {
	EpisodeID *string `parquet:"episode_id"`
	StepIndex *int64  `parquet:"step_index"`
}

// listCell is one row's list<string> value: null, or its elements.
type listCell struct {
	null  bool
	elems []string
}

func (c listCell) String() string {
	if c.null {
		return "null"
	}
	return "[" + strings.Join(c.elems, ",") + "]"
}

// stringLists decodes a list<string> column from its data pages by
// repetition and definition levels: level 0 is a null list, 1 an empty
// list, the leaf's maximum a present element.
func stringLists(t *testing.T, path, col string) []listCell {
	t.Helper()
	f := openParquet(t, path)
	leaf, ok := f.Schema().Lookup(col, "list", "element")
	if !ok {
		t.Fatalf("%s: no column %s.list.element", path, col)
	}
	if leaf.MaxDefinitionLevel != 3 || leaf.MaxRepetitionLevel != 1 {
		t.Fatalf("%s: %s levels def %d rep %d, want an optional list of optional strings", path, col, leaf.MaxDefinitionLevel, leaf.MaxRepetitionLevel)
	}
	var out []listCell
	for _, rg := range f.RowGroups() {
		pages := rg.ColumnChunks()[leaf.ColumnIndex].Pages()
		for {
			p, err := pages.ReadPage()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			vals := make([]parquet.Value, p.NumValues())
			n, err := p.Values().ReadValues(vals)
			if err != nil && !errors.Is(err, io.EOF) {
				t.Fatalf("%s: %v", path, err)
			}
			for _, v := range vals[:n] {
				if v.RepetitionLevel() == 0 {
					out = append(out, listCell{null: v.DefinitionLevel() == 0})
				}
				switch d := v.DefinitionLevel(); {
				case d == 3:
					c := &out[len(out)-1]
					c.elems = append(c.elems, v.String())
				case d == 2:
					t.Errorf("%s: a null element in %s", path, col)
				}
			}
		}
		pages.Close()
	}
	return out
}

// reviewExport reads every shard of an export: episodes by id, and each
// step's flags by "episode/step".
func reviewExport(t *testing.T, dir string) (map[string]readEpisode, map[string]listCell) {
	t.Helper()
	checkFolder(t, dir)
	eps := map[string]readEpisode{}
	for _, p := range parquetFiles(t, dir, "episodes") {
		for _, r := range readRows[readEpisode](t, p) {
			eps[*r.EpisodeID] = r
		}
	}
	flags := map[string]listCell{}
	for _, p := range parquetFiles(t, dir, "steps") {
		rows := readRows[readStep](t, p)
		cells := stringLists(t, p, "review_flags")
		if len(cells) != len(rows) {
			t.Fatalf("%s: %d review_flags cells for %d rows", p, len(cells), len(rows))
		}
		for i, r := range rows {
			flags[fmt.Sprintf("%s/%d", *r.EpisodeID, *r.StepIndex)] = cells[i]
		}
	}
	return eps, flags
}

func TestExportInterruptedLabelledWithReviewFields(t *testing.T) {
	f := newFixture(t, makePNGs(t, 3, false))
	f.task("task-a", dataset.Information)
	f.task("task-b", dataset.Navigation)
	save := func(r dataset.Review, settle bool) {
		t.Helper()
		var err error
		if settle {
			_, err = f.store.Settle(t.Context(), r)
		} else {
			_, err = f.store.SaveReview(t.Context(), r)
		}
		if err != nil {
			t.Fatalf("review %+v: %v", r, err)
		}
	}
	two := 2
	one := 1

	// Interrupted (the browser crashed), labelled a failure at step 2, with
	// both flags on step 2 and a reason.
	f.episode("ep-int-labelled", "task-a", "alice", dataset.StatusInterrupted, 4)
	f.exec(`UPDATE episodes SET end_reason=? WHERE id=?`, action.EndCrashed, "ep-int-labelled")
	save(dataset.Review{EpisodeID: "ep-int-labelled", Reviewer: "rita", Outcome: dataset.OutcomeFailure, FailureStep: &two,
		FailureType: "wrong_element", Reason: "clicked the advert, not the product",
		StepFlags: map[int][]string{2: {dataset.FlagUnnecessary, dataset.FlagMistake}}}, false)
	// Interrupted, never reviewed: never exported.
	f.episode("ep-int-unlabelled", "task-a", "alice", dataset.StatusInterrupted, 3)
	// Interrupted, reviews disagree and nobody settled: no label, not exported.
	f.episode("ep-int-conflict", "task-b", "bob", dataset.StatusInterrupted, 2)
	save(dataset.Review{EpisodeID: "ep-int-conflict", Reviewer: "rita", Outcome: dataset.OutcomeSuccess}, false)
	save(dataset.Review{EpisodeID: "ep-int-conflict", Reviewer: "sam", Outcome: dataset.OutcomeInvalidTask}, false)
	// Finished, two agreeing reviews: the newest one (sam's) is the label.
	f.episode("ep-fin-agreed", "task-b", "bob", dataset.StatusFinished, 3)
	save(dataset.Review{EpisodeID: "ep-fin-agreed", Reviewer: "rita", Outcome: dataset.OutcomeSuccess, Reason: "rita's reason",
		StepFlags: map[int][]string{1: {dataset.FlagMistake}}}, false)
	save(dataset.Review{EpisodeID: "ep-fin-agreed", Reviewer: "sam", Outcome: dataset.OutcomeSuccess, Reason: "sam's reason",
		StepFlags: map[int][]string{3: {dataset.FlagUnnecessary}}}, false)
	// Finished, a conflict settled: the settling label's fields and flags.
	f.episode("ep-fin-settled", "task-b", "alice", dataset.StatusFinished, 3)
	save(dataset.Review{EpisodeID: "ep-fin-settled", Reviewer: "rita", Outcome: dataset.OutcomeSuccess,
		StepFlags: map[int][]string{1: {dataset.FlagMistake}}}, false)
	save(dataset.Review{EpisodeID: "ep-fin-settled", Reviewer: "sam", Outcome: dataset.OutcomeFailure, FailureStep: &two, FailureType: "gave_up"}, false)
	save(dataset.Review{EpisodeID: "ep-fin-settled", Reviewer: "lead", Outcome: dataset.OutcomeFailure, FailureStep: &one,
		FailureType: "wrong_text", Reason: "typed the wrong city", StepFlags: map[int][]string{1: {dataset.FlagMistake}, 2: {dataset.FlagUnnecessary}}}, true)
	// Finished, unsettled conflict: exported only with IncludeUnreviewed.
	f.episode("ep-fin-conflict", "task-a", "bob", dataset.StatusFinished, 2)
	save(dataset.Review{EpisodeID: "ep-fin-conflict", Reviewer: "rita", Outcome: dataset.OutcomeSuccess, Reason: "fine",
		StepFlags: map[int][]string{1: {dataset.FlagMistake}}}, false)
	save(dataset.Review{EpisodeID: "ep-fin-conflict", Reviewer: "sam", Outcome: dataset.OutcomeFailure, FailureStep: &one, FailureType: "other"}, false)

	str := func(p *string) string {
		if p == nil {
			return "<null>"
		}
		return *p
	}
	num := func(p *int64) string {
		if p == nil {
			return "<null>"
		}
		return fmt.Sprint(*p)
	}
	checkEpisode := func(eps map[string]readEpisode, id, outcome, failStep, failType, reason, status, endReason string) {
		t.Helper()
		r, ok := eps[id]
		if !ok {
			t.Errorf("%s: not exported", id)
			return
		}
		gotOutcome := "<null>"
		if r.Outcome != nil {
			gotOutcome = wantOutcomes[*r.Outcome]
		}
		got := strings.Join([]string{gotOutcome, num(r.FailureStep), str(r.FailureType), str(r.ReviewReason), str(r.Status), str(r.EndReason)}, " | ")
		want := strings.Join([]string{outcome, failStep, failType, reason, status, endReason}, " | ")
		if got != want {
			t.Errorf("%s: outcome | failure_step | failure_type | review_reason | status | end_reason\n got %s\nwant %s", id, got, want)
		}
	}
	checkFlags := func(flags map[string]listCell, id string, n int, want map[int]string) {
		t.Helper()
		for k := 1; k <= n; k++ {
			key := fmt.Sprintf("%s/%d", id, k)
			c, ok := flags[key]
			if !ok {
				t.Errorf("%s: no step row", key)
				continue
			}
			w, has := want[k]
			if !has {
				w = "[]"
			}
			if got := c.String(); got != w {
				t.Errorf("%s: review_flags %s, want %s", key, got, w)
			}
		}
	}

	// Default options: labelled episodes only.
	out := filepath.Join(t.TempDir(), "ds")
	mustExport(t, f, opts(out))
	eps, flags := reviewExport(t, out)
	var ids []string
	for id := range eps {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	if want := []string{"ep-fin-agreed", "ep-fin-settled", "ep-int-labelled"}; !slices.Equal(ids, want) {
		t.Errorf("exported %v, want %v", ids, want)
	}
	checkEpisode(eps, "ep-int-labelled", "failure", "2", "wrong_element", "clicked the advert, not the product", "interrupted", "crashed")
	checkFlags(flags, "ep-int-labelled", 4, map[int]string{2: "[mistake,unnecessary]"})
	checkEpisode(eps, "ep-fin-agreed", "success", "<null>", "<null>", "sam's reason", "finished", "finished")
	checkFlags(flags, "ep-fin-agreed", 3, map[int]string{3: "[unnecessary]"})
	checkEpisode(eps, "ep-fin-settled", "failure", "1", "wrong_text", "typed the wrong city", "finished", "finished")
	checkFlags(flags, "ep-fin-settled", 3, map[int]string{1: "[mistake]", 2: "[unnecessary]"})
	for k := range flags {
		if strings.HasPrefix(k, "ep-int-unlabelled/") || strings.HasPrefix(k, "ep-int-conflict/") {
			t.Errorf("step row %s of an unlabelled interrupted episode", k)
		}
	}
	if r, ok := eps["ep-int-labelled"]; ok && (r.NumSteps == nil || *r.NumSteps != 4) {
		t.Errorf("ep-int-labelled: num_steps %s, want 4", num(r.NumSteps))
	}
	body := readCard(t, out).body
	for _, s := range []string{"interrupted", "`end_reason`", "`status`", "`review_flags`", "`review_reason`"} {
		if !strings.Contains(body, s) {
			t.Errorf("card prose lacks %q", s)
		}
	}

	// With unreviewed episodes: the unsettled conflict comes with null
	// label fields and null flags; unlabelled interrupted ones stay out.
	o := opts(filepath.Join(t.TempDir(), "ds"))
	o.IncludeUnreviewed = true
	mustExport(t, f, o)
	eps, flags = reviewExport(t, o.Out)
	ids = ids[:0]
	for id := range eps {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	if want := []string{"ep-fin-agreed", "ep-fin-conflict", "ep-fin-settled", "ep-int-labelled"}; !slices.Equal(ids, want) {
		t.Errorf("exported with unreviewed %v, want %v", ids, want)
	}
	checkEpisode(eps, "ep-fin-conflict", "<null>", "<null>", "<null>", "<null>", "finished", "finished")
	checkFlags(flags, "ep-fin-conflict", 2, map[int]string{1: "null", 2: "null"})
	checkFlags(flags, "ep-int-labelled", 4, map[int]string{2: "[mistake,unnecessary]"})
}

// A store whose only episode is an unlabelled interrupted one has nothing to
// export, and the message says why.
func TestExportNothingButUnlabelledInterrupted(t *testing.T) {
	f := newFixture(t, makePNGs(t, 1, false))
	f.task("task-a", dataset.Information)
	f.episode("ep-int", "task-a", "alice", dataset.StatusInterrupted, 2)
	o := opts(filepath.Join(t.TempDir(), "ds"))
	o.IncludeUnreviewed = true
	_, err := Export(context.Background(), f.store, o, nil)
	want := "nothing to export: the store has 0 finished episodes, 0 with an outcome, and 1 interrupted episode, 0 with an outcome " +
		"(interrupted episodes without one are never exported); record and finish some episodes first, or review the interrupted ones"
	if !errors.Is(err, ErrNothingToExport) || err.Error() != want {
		t.Errorf("got %v\nwant %s", err, want)
	}
}
