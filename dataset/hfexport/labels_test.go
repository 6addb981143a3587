package hfexport

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"waymark/dataset"
)

// The Hugging Face export carries every reviewer's own label beside the
// settled one: labels.jsonl, read back here as plain JSON (not through the
// code that wrote it) and compared field by field with what the reviewers
// saved, and the text of each guidelines version the labels name.
//
//	ep-buy    sam: success, no side effect, no loop, optimality 3, key step
//	          3, steps 1 and 2 correct (guidelines v1); the guidelines are
//	          edited (v2); rita: failure at step 2, side effect, key steps 1
//	          and 3, step 2 wrong; lead settles: failure (rita's label is
//	          the primary)
//	ep-look   rita and sam: success (agreement), optimality 4 from both,
//	          side effect no from rita only, step 2 correct from sam
//	ep-split  rita success, sam failure, never settled (null outcome)
//	ep-none   never reviewed: no line
func TestExportRawLabels(t *testing.T) {
	f := newFixture(t, makePNGs(t, 4, false))
	ctx := t.Context()
	f.task("task-buy", dataset.Interaction)
	f.task("task-look", dataset.Information)
	f.episode("ep-buy", "task-buy", "agent:gpt", dataset.StatusFinished, 3)
	f.episode("ep-look", "task-look", "alice", dataset.StatusFinished, 2)
	f.episode("ep-split", "task-look", "bob", dataset.StatusFinished, 2)
	f.episode("ep-none", "task-look", "bob", dataset.StatusFinished, 2)
	// save stores a review through the Review screen's calls and gives it
	// a fixed time; it returns the review's id and time as labels.jsonl
	// writes them.
	save := func(r dataset.Review, settle bool) (id, at string) {
		t.Helper()
		var err error
		if settle {
			r, err = f.store.Settle(ctx, r)
		} else {
			r, err = f.store.SaveReview(ctx, r)
		}
		if err != nil {
			t.Fatal(err)
		}
		tick := f.tick()
		f.exec(`UPDATE reviews SET created_at=? WHERE id=?`, tick, r.ID)
		return r.ID, dataset.ParseTime(tick).UTC().Format("2006-01-02T15:04:05.000Z")
	}
	two := 2
	samBuy, samBuyAt := save(dataset.Review{EpisodeID: "ep-buy", Reviewer: "sam", Outcome: dataset.OutcomeSuccess, SideEffect: dataset.JudgeNo,
		Looping: dataset.JudgeNo, Optimality: 3, KeySteps: []int{3}, StepLabels: map[int]string{1: dataset.StepCorrect, 2: dataset.StepCorrect}}, false)
	rules := "# House rules\nA purchase counts only when the cart shows it."
	if err := f.store.SetGuidelinesAs(ctx, rules, "lead"); err != nil {
		t.Fatal(err)
	}
	ritaBuy, ritaBuyAt := save(dataset.Review{EpisodeID: "ep-buy", Reviewer: "rita", Outcome: dataset.OutcomeFailure, FailureStep: &two, FailureType: "wrong_text",
		Reason: "typed into a button", SideEffect: dataset.JudgeYes, Looping: dataset.JudgeNo, Optimality: 2, KeySteps: []int{1, 3},
		StepLabels: map[int]string{2: dataset.StepWrong}}, false)
	leadBuy, leadBuyAt := save(dataset.Review{EpisodeID: "ep-buy", Reviewer: "lead", Outcome: dataset.OutcomeFailure, FailureStep: &two, FailureType: "wrong_text",
		Reason: "the cart was never filled", SideEffect: dataset.JudgeYes, Looping: dataset.JudgeNo, Optimality: 2, KeySteps: []int{1},
		StepLabels: map[int]string{2: dataset.StepWrong}}, true)
	ritaLook, ritaLookAt := save(dataset.Review{EpisodeID: "ep-look", Reviewer: "rita", Outcome: dataset.OutcomeSuccess, SideEffect: dataset.JudgeNo, Optimality: 4}, false)
	samLook, samLookAt := save(dataset.Review{EpisodeID: "ep-look", Reviewer: "sam", Outcome: dataset.OutcomeSuccess, Reason: "the hours are on the page",
		Optimality: 4, KeySteps: []int{2}, StepLabels: map[int]string{2: dataset.StepCorrect}}, false)
	ritaSplit, ritaSplitAt := save(dataset.Review{EpisodeID: "ep-split", Reviewer: "rita", Outcome: dataset.OutcomeSuccess}, false)
	samSplit, samSplitAt := save(dataset.Review{EpisodeID: "ep-split", Reviewer: "sam", Outcome: dataset.OutcomeFailure, FailureStep: &two, FailureType: "wrong_answer"}, false)

	vs, err := f.store.GuidelineVersions(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(vs) != 2 || vs[1].Text != rules {
		t.Fatalf("guidelines versions %+v, want the default then the house rules", vs)
	}
	v1, v2 := vs[0].ID, vs[1].ID

	out := filepath.Join(t.TempDir(), "ds")
	o := Options{Out: out, License: "cc-by-4.0", IncludeUnreviewed: true}
	res, err := Export(ctx, f.store, o, nil)
	if err != nil {
		t.Fatal(err)
	}

	// A reader written from the card's description: one JSON object a line.
	b, err := os.ReadFile(filepath.Join(out, "labels.jsonl"))
	if err != nil {
		t.Fatalf("the export has no labels.jsonl: %v (files %v)", err, res.Files)
	}
	var got []map[string]any
	for _, line := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("labels.jsonl line %q: %v", line, err)
		}
		got = append(got, m)
	}
	// label is a line as the card documents it; JSON numbers decode as
	// float64, lists as []any.
	type L = map[string]any
	nums := func(ns ...float64) []any {
		out := []any{}
		for _, n := range ns {
			out = append(out, n)
		}
		return out
	}
	want := []L{
		{"kind": "reviewer", "episode_id": "ep-buy", "task_id": "task-buy", "primary": true, "reviewer": "rita", "review_id": ritaBuy, "time": ritaBuyAt,
			"guidelines_version": 2.0, "guidelines_sha256": v2, "outcome": "failure", "failure_step": 2.0, "failure_type": "wrong_text",
			"reason": "typed into a button", "side_effect": "yes", "looping": "no", "optimality": 2.0, "key_steps": nums(1, 3),
			"step_labels": L{"2": "wrong"}},
		{"kind": "reviewer", "episode_id": "ep-buy", "task_id": "task-buy", "reviewer": "sam", "review_id": samBuy, "time": samBuyAt,
			"guidelines_version": 1.0, "guidelines_sha256": v1, "outcome": "success", "failure_step": nil, "failure_type": "",
			"reason": "", "side_effect": "no", "looping": "no", "optimality": 3.0, "key_steps": nums(3),
			"step_labels": L{"1": "correct", "2": "correct"}},
		{"kind": "settled", "episode_id": "ep-buy", "task_id": "task-buy", "reviewer": "lead", "review_id": leadBuy, "settled_by": "settling_label", "time": leadBuyAt,
			"guidelines_version": 2.0, "guidelines_sha256": v2, "outcome": "failure", "failure_step": 2.0, "failure_type": "wrong_text",
			"reason": "the cart was never filled", "side_effect": "yes", "looping": "no", "optimality": 2.0, "key_steps": nums(1),
			"step_labels": L{"1": "correct", "2": "wrong"}},
		{"kind": "reviewer", "episode_id": "ep-look", "task_id": "task-look", "primary": true, "reviewer": "rita", "review_id": ritaLook, "time": ritaLookAt,
			"guidelines_version": 2.0, "guidelines_sha256": v2, "outcome": "success", "failure_step": nil, "failure_type": "",
			"reason": "", "side_effect": "no", "looping": "", "optimality": 4.0, "key_steps": nums(), "step_labels": L{}},
		{"kind": "reviewer", "episode_id": "ep-look", "task_id": "task-look", "reviewer": "sam", "review_id": samLook, "time": samLookAt,
			"guidelines_version": 2.0, "guidelines_sha256": v2, "outcome": "success", "failure_step": nil, "failure_type": "",
			"reason": "the hours are on the page", "side_effect": "", "looping": "", "optimality": 4.0, "key_steps": nums(2),
			"step_labels": L{"2": "correct"}},
		// Agreement: the newest review's reason, key steps and time; each
		// answer the reviewers who gave one agree on.
		{"kind": "settled", "episode_id": "ep-look", "task_id": "task-look", "reviewer": "", "settled_by": "agreement", "time": samLookAt,
			"guidelines_version": 2.0, "guidelines_sha256": v2, "outcome": "success", "failure_step": nil, "failure_type": "",
			"reason": "the hours are on the page", "side_effect": "no", "looping": "", "optimality": 4.0, "key_steps": nums(2),
			"step_labels": L{"2": "correct"}},
		{"kind": "reviewer", "episode_id": "ep-split", "task_id": "task-look", "primary": true, "reviewer": "rita", "review_id": ritaSplit, "time": ritaSplitAt,
			"guidelines_version": 2.0, "guidelines_sha256": v2, "outcome": "success", "failure_step": nil, "failure_type": "",
			"reason": "", "side_effect": "", "looping": "", "optimality": nil, "key_steps": nums(), "step_labels": L{}},
		{"kind": "reviewer", "episode_id": "ep-split", "task_id": "task-look", "reviewer": "sam", "review_id": samSplit, "time": samSplitAt,
			"guidelines_version": 2.0, "guidelines_sha256": v2, "outcome": "failure", "failure_step": 2.0, "failure_type": "wrong_answer",
			"reason": "", "side_effect": "", "looping": "", "optimality": nil, "key_steps": nums(), "step_labels": L{}},
		// An unsettled conflict: a settled line with no outcome.
		{"kind": "settled", "episode_id": "ep-split", "task_id": "task-look", "reviewer": "",
			"guidelines_version": 0.0, "guidelines_sha256": "", "outcome": "", "failure_step": nil, "failure_type": "",
			"reason": "", "side_effect": "", "looping": "", "optimality": nil, "key_steps": nums(), "step_labels": L{}},
	}
	if len(got) != len(want) {
		t.Fatalf("labels.jsonl has %d lines, want %d:\n%s", len(got), len(want), b)
	}
	for i := range want {
		g, w := got[i], want[i]
		for k, wv := range w {
			gv, ok := g[k]
			if !ok {
				t.Errorf("line %d (%s %s %s): no %q", i+1, w["episode_id"], w["kind"], w["reviewer"], k)
			} else if !reflect.DeepEqual(gv, wv) {
				t.Errorf("line %d (%s %s %s): %s = %#v, want %#v", i+1, w["episode_id"], w["kind"], w["reviewer"], k, gv, wv)
			}
		}
		for k := range g {
			if _, ok := w[k]; !ok {
				t.Errorf("line %d (%s %s %s): unexpected field %s = %#v", i+1, w["episode_id"], w["kind"], w["reviewer"], k, g[k])
			}
		}
	}

	// The guidelines texts the labels name, and the files list.
	for _, v := range vs {
		name := "guidelines/v" + map[string]string{v1: "1", v2: "2"}[v.ID] + "-" + v.ID[:12] + ".md"
		text, err := os.ReadFile(filepath.Join(out, filepath.FromSlash(name)))
		if err != nil || string(text) != v.Text {
			t.Errorf("%s: %q, %v; want the text of guidelines version %d", name, text, err, v.Version)
		}
		if !slices.Contains(res.Files, name) {
			t.Errorf("%s not among the export's files %v", name, res.Files)
		}
	}
	if !slices.Contains(res.Files, "labels.jsonl") {
		t.Errorf("labels.jsonl not among the export's files %v", res.Files)
	}

	// The card says what the file holds.
	card, err := os.ReadFile(filepath.Join(out, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"`labels.jsonl`", "6 reviewers' own labels of 3 episodes", "2 settled with an outcome", "`guidelines/v1-" + v1[:12] + ".md`", "every step number (`failure_step`, `key_steps`, the keys of `step_labels`) is a `recorded_step`"} {
		if !strings.Contains(string(card), s) {
			t.Errorf("the card does not say %q", s)
		}
	}

	// A second export replaces the first (its guidelines folder is its own).
	o.Force = true
	if _, err := Export(ctx, f.store, o, nil); err != nil {
		t.Fatalf("exporting again with Force: %v", err)
	}
}
