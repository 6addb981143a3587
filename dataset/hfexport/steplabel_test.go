package hfexport

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"waymark/dataset"
)

// readStepLabel names the columns this file reads back, by name.
type readStepLabel struct {
	EpisodeID    *string `parquet:"episode_id"`
	RecordedStep *int64  `parquet:"recorded_step"`
	StepLabel    *string `parquet:"step_label"`
}

// Each step row carries the reviewers' label of the step: agreed labels,
// the settling label's where reviewers disagree, null where nobody
// labelled the step or the labels disagree unsettled. Read back from the
// Parquet files by column name.
func TestExportStepLabelColumn(t *testing.T) {
	f := newFixture(t, makePNGs(t, 3, false))
	f.task("task-a", dataset.Interaction)
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
	// Agreed on steps 1 and 2, disagreeing on 3, step 4 unlabelled.
	f.episode("ep-agreed", "task-a", "alice", dataset.StatusFinished, 4)
	save(dataset.Review{EpisodeID: "ep-agreed", Reviewer: "rita", Outcome: dataset.OutcomeSuccess,
		StepLabels: map[int]string{1: dataset.StepCorrect, 2: dataset.StepUnnecessary, 3: dataset.StepCorrect}}, false)
	save(dataset.Review{EpisodeID: "ep-agreed", Reviewer: "sam", Outcome: dataset.OutcomeSuccess,
		StepLabels: map[int]string{1: dataset.StepCorrect, 2: dataset.StepUnnecessary, 3: dataset.StepWrong}}, false)
	// The same disagreement, settled: the settling label's mark on step 3.
	f.episode("ep-settled", "task-a", "alice", dataset.StatusFinished, 3)
	save(dataset.Review{EpisodeID: "ep-settled", Reviewer: "rita", Outcome: dataset.OutcomeSuccess,
		StepLabels: map[int]string{1: dataset.StepCorrect, 3: dataset.StepCorrect}}, false)
	save(dataset.Review{EpisodeID: "ep-settled", Reviewer: "sam", Outcome: dataset.OutcomeSuccess,
		StepLabels: map[int]string{1: dataset.StepCorrect, 3: dataset.StepWrong}}, false)
	save(dataset.Review{EpisodeID: "ep-settled", Reviewer: "lead", Outcome: dataset.OutcomeSuccess,
		StepLabels: map[int]string{3: dataset.StepWrong}}, true)
	// Reviewed without step labels.
	f.episode("ep-plain", "task-a", "bob", dataset.StatusFinished, 2)
	save(dataset.Review{EpisodeID: "ep-plain", Reviewer: "rita", Outcome: dataset.OutcomeFailure, FailureStep: new(int), FailureType: "gave_up"}, false)

	out := filepath.Join(t.TempDir(), "ds")
	mustExport(t, f, opts(out))
	checkFolder(t, out)
	got := map[string]string{}
	for _, p := range parquetFiles(t, out, "steps") {
		for _, r := range readRows[readStepLabel](t, p) {
			v := "<null>"
			if r.StepLabel != nil {
				v = *r.StepLabel
			}
			got[fmt.Sprintf("%s/%d", *r.EpisodeID, *r.RecordedStep)] = v
		}
	}
	want := map[string]string{
		"ep-agreed/1": "correct", "ep-agreed/2": "unnecessary", "ep-agreed/3": "<null>", "ep-agreed/4": "<null>",
		"ep-settled/1": "correct", "ep-settled/2": "<null>", "ep-settled/3": "wrong",
		"ep-plain/1": "<null>", "ep-plain/2": "<null>",
	}
	if len(got) != len(want) {
		t.Errorf("%d step rows, want %d: %v", len(got), len(want), got)
	}
	for k, w := range want {
		if got[k] != w {
			t.Errorf("%s: step_label %s, want %s", k, got[k], w)
		}
	}
	body := readCard(t, out).body
	if !strings.Contains(body, "`step_label`") {
		t.Error("the card does not describe step_label")
	}
}
