package benchexport

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 || math.IsNaN(a) && math.IsNaN(b) }

// A judge's AgentRewardBench judgments (one file per trajectory, named by
// its task id, as run_judge.py writes them) measured against the people:
// on buy the judge says success where the settled label is failure, on look
// it agrees on success, on again (not executable) it says failure. Its
// side-effect answers are compared where people answered yes or no. A file
// for an episode this store lacks, and an error file of a failed judge
// call, are reported, not counted.
func TestJudgeAgreementAgentRewardBench(t *testing.T) {
	g := newGolden(t)
	dir := filepath.Join(t.TempDir(), "judgments", "waymark", "agent_gpt-4o", "gpt-4o-noaxtree")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	write := func(name, content string) {
		j := map[string]any{"benchmark": "waymark", "agent": "agent_gpt-4o", "judge": "gpt-4o-noaxtree",
			"response":        map[string]any{"choices": []any{map[string]any{"message": map[string]any{"content": content}}}},
			"trajectory_info": map[string]any{"summary_info": map[string]any{"cum_reward": 0}}}
		b, _ := json.Marshal(j)
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("waymark."+g.buy+".json", "<reasoning>The cart shows shoes.</reasoning><success>Successful</success><side>No</side><optimal>3. Somewhat Optimal</optimal><loop>No</loop>")
	write("waymark."+g.look+".json", "<reasoning>9-17 is on the page.</reasoning><success>Successful</success><side>No</side><optimal>4</optimal><loop>No</loop>")
	write("waymark."+g.again+".json", "Thoughts: the site did not load.\nStatus: failure")
	write("waymark.no-such-episode.json", "<success>Successful</success>")
	os.WriteFile(filepath.Join(dir, "waymark.x_error.json"), []byte(`{"error": "context length exceeded"}`), 0o600)

	vs, problems, err := ReadVerdicts(filepath.Dir(filepath.Dir(dir)))
	if err != nil {
		t.Fatal(err)
	}
	if len(vs) != 4 || len(problems) != 1 || !strings.Contains(problems[0], "no response.choices") {
		t.Fatalf("read %d verdicts, problems %q: want 4 and the error file named", len(vs), problems)
	}
	ja, err := Agree(t.Context(), g.store, vs)
	if err != nil {
		t.Fatal(err)
	}
	if ja.Matched != 3 || len(ja.Unknown) != 1 || ja.Unknown[0] != "no-such-episode" {
		t.Fatalf("matched %d, unknown %v", ja.Matched, ja.Unknown)
	}
	s := ja.Questions[0]
	f := Extend(s.Agreement.Overall)
	if s.Name != "success" || f.N != 3 || f.TP != 1 || f.FP != 1 || f.FN != 0 || f.TN != 1 {
		t.Fatalf("success figures %+v", f)
	}
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"agreement", f.Agreement, 2.0 / 3}, {"precision", f.Precision, 0.5}, {"recall", f.Recall, 1}, {"F1", f.F1, 2.0 / 3},
		{"NPV", f.NPV, 1}, {"TNR", f.TNR, 0.5}, {"kappa", f.Kappa, 0.4}, {"AC1", f.AC1, 1.0 / 3},
	} {
		if !near(c.got, c.want) {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
	if c := Extend(s.Agreement.ByCategory["interaction"]); c.N != 2 || c.FP != 1 || c.TN != 1 {
		t.Errorf("interaction figures %+v: want buy (judge yes, people no) and again (both no)", c)
	}
	if len(s.Agreement.ByTask) != 2 || s.Agreement.ByTask[0].TaskID != g.shoes {
		t.Errorf("per task: %+v, want the shoes task (which the judge gets wrong once) first", s.Agreement.ByTask)
	}
	if len(ja.Questions) != 3 || ja.Questions[1].Name != "side effect" {
		t.Fatalf("questions %+v: want success, side effect and looping", ja.Questions)
	}
	se := ja.Questions[1].Agreement.Overall
	if se.N != 2 || se.FN != 1 || se.TN != 1 { // buy: people yes, judge no; look: both no
		t.Errorf("side effect figures %+v", se)
	}
	lp := ja.Questions[2].Agreement.Overall
	if lp.N != 1 || lp.TN != 1 { // only buy has a settled looping answer (no)
		t.Errorf("looping figures %+v", lp)
	}
}

// Online-Mind2Web's auto-evaluation results (JSON lines with task_id and
// predicted_label) measured the same way.
func TestJudgeAgreementOnlineMind2Web(t *testing.T) {
	g := newGolden(t)
	p := filepath.Join(t.TempDir(), "WebJudge_Online_Mind2Web_eval_o4-mini_score_threshold_3_auto_eval_results.json")
	lines := []string{
		`{"task_id": "` + g.buy + `", "predicted_label": 0, "evaluation_details": {"response": "Thoughts: no\nStatus: failure"}}`,
		`{"task_id": "` + g.look + `", "predicted_label": 1}`,
		`{"task_id": "` + g.again + `", "predicted_label": 1}`,
		`{"task_id": "` + g.look + `", "predicted_label": 0}`,
		`not json`,
	}
	os.WriteFile(p, []byte(strings.Join(lines, "\n")+"\n"), 0o600)
	vs, problems, err := ReadVerdicts(p)
	if err != nil {
		t.Fatal(err)
	}
	if len(vs) != 4 || len(problems) != 1 || !strings.Contains(problems[0], "not JSON") {
		t.Fatalf("verdicts %d, problems %q", len(vs), problems)
	}
	ja, err := Agree(t.Context(), g.store, vs)
	if err != nil {
		t.Fatal(err)
	}
	f := Extend(ja.Questions[0].Agreement.Overall)
	if ja.Duplicates != 1 || f.N != 3 || f.TP != 1 || f.FP != 1 || f.TN != 1 || !near(f.NPV, 1) || !near(f.TNR, 0.5) || len(ja.Questions) != 1 {
		t.Errorf("duplicates %d, figures %+v, questions %d", ja.Duplicates, f, len(ja.Questions))
	}
	if _, _, err := ReadVerdicts(filepath.Join(t.TempDir())); err == nil || !strings.Contains(err.Error(), "no judge verdict found") {
		t.Errorf("an empty folder: %v", err)
	}
}
