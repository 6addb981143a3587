package app

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"waymark/dataset"
	"waymark/engine/action"
)

// waymark export --format writes a benchmark's layout, and review stats
// --judge reads a judge's verdicts on it back and prints the judge's
// agreement with the reviewers.
func TestExportFormatAndJudgeStats(t *testing.T) {
	db := filepath.Join(t.TempDir(), "w.db")
	s, err := dataset.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	task, err := s.AddTask(ctx, dataset.Task{Goal: "Find the opening hours", Category: dataset.Information, StartURL: "http://127.0.0.1:7770/"})
	if err != nil {
		t.Fatal(err)
	}
	var eps []string
	for i, outcome := range []dataset.Outcome{dataset.OutcomeSuccess, dataset.OutcomeFailure, dataset.OutcomeNotExecutable} {
		ep, err := s.CreateEpisode(ctx, dataset.Episode{TaskID: task.ID, Annotator: "agent:gpt", StartedAt: time.Now().Add(time.Duration(i-10) * time.Minute)})
		if err != nil {
			t.Fatal(err)
		}
		fin := action.FinishWith("9-17")
		for k, a := range []*action.Action{nil, &fin} {
			if err := s.AppendStep(ctx, dataset.Step{EpisodeID: ep.ID, Index: k, URL: "http://127.0.0.1:7770/", Action: a, Screenshot: onePNG(t), CreatedAt: time.Now()}); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.FinishEpisode(ctx, ep.ID, dataset.EpisodeEnd{Answer: "9-17"}); err != nil {
			t.Fatal(err)
		}
		r := dataset.Review{EpisodeID: ep.ID, Reviewer: "rita", Outcome: outcome}
		if outcome == dataset.OutcomeFailure {
			r.FailureStep, r.FailureType = new(int), "wrong_answer"
		}
		if _, err := s.SaveReview(ctx, r); err != nil {
			t.Fatal(err)
		}
		eps = append(eps, ep.ID)
	}
	s.Close()

	run := func(args ...string) (string, string, int) {
		var out, errb bytes.Buffer
		code := Main(append([]string{"--db", db}, args...), nil, &out, &errb)
		return out.String(), errb.String(), code
	}
	dir := filepath.Join(t.TempDir(), "om2w")
	out, errs, code := run("export", "--format", "online-mind2web", "--out", dir, "--quiet")
	if code != 0 || !strings.Contains(out, "(Online-Mind2Web): 3 episodes (3 with a settled label), 3 reviewers' labels") {
		t.Fatalf("export: exit %d\n%s%s", code, out, errs)
	}
	if _, err := os.Stat(filepath.Join(dir, "agent_gpt", eps[0], "result.json")); err != nil {
		t.Fatal(err)
	}
	if _, errs, code := run("export", "--format", "arb", "--out", dir+"2", "--license", "mit"); code == 0 || !strings.Contains(errs, "--license belong to the Hugging Face dataset") {
		t.Errorf("--license with a benchmark format: exit %d: %s", code, errs)
	}
	if _, errs, code := run("export", "--format", "mind2web-v1", "--out", dir+"3"); code == 0 || !strings.Contains(errs, "or hf for the Hugging Face dataset") {
		t.Errorf("an unknown format: exit %d: %s", code, errs)
	}

	// The judge says success on all three: right on the success, wrong on
	// the failure and the not executable one.
	res := filepath.Join(t.TempDir(), "results.json")
	var lines []string
	for _, ep := range eps {
		lines = append(lines, `{"task_id": "`+ep+`", "predicted_label": 1}`)
	}
	os.WriteFile(res, []byte(strings.Join(lines, "\n")), 0o600)
	out, errs, code = run("review", "stats", "--judge", res)
	if code != 0 {
		t.Fatalf("review stats --judge: exit %d: %s", code, errs)
	}
	t.Log("\n" + out)
	for _, want := range []string{"3 read, 3 on episodes people labelled", "Success: the judge against people's settled labels (episodes: 3)",
		"information", "33%", "NPV", "TNR"} {
		if !strings.Contains(out, want) {
			t.Errorf("review stats --judge does not say %q", want)
		}
	}
	// all: 3 episodes, TP 1, FP 2, FN 0, TN 0; precision 0.33, recall 1.00, F1 0.50, NPV n/a, TNR 0.00.
	var all []string
	for _, l := range strings.Split(out, "\n") {
		if f := strings.Fields(l); len(f) > 0 && f[0] == "all" {
			all = f
		}
	}
	if strings.Join(all, " ") != "all 3 1 2 0 0 33% 0.33 1.00 0.50 n/a 0.00 0.00 -0.20" {
		t.Errorf("the overall row is %q: want TP 1, FP 2, precision 0.33, recall 1, F1 0.5, NPV n/a, TNR 0, kappa 0, AC1 -0.2", all)
	}
}

func onePNG(t *testing.T) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "assets", "icon.png"))
	if err == nil {
		return b
	}
	t.Skip("no PNG to store: assets/icon.png is missing")
	return nil
}
