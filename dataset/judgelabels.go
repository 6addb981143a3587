package dataset

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// What a team calibrating an LLM judge asks of its human experts beside the
// outcome (AgentRewardBench's questions): did the episode cause an unwanted
// side effect, did it loop, how optimal was it; and which screenshots are
// the key evidence (WebJudge's key screenshots). All are optional parts of
// a review, stored in its row (reviews.side_effect, looping, optimality,
// key_steps_json).

// Answers to the side-effect and looping questions ("" is not answered).
const (
	JudgeYes    = "yes"
	JudgeNo     = "no"
	JudgeUnsure = "unsure"
)

// JudgeAnswers lists the answers in the order the form cycles through them.
var JudgeAnswers = []string{JudgeNo, JudgeYes, JudgeUnsure}

// OptimalityNames names the optimality grades 1…4 (index 0 is grade 1), in
// AgentRewardBench's words.
var OptimalityNames = []string{"complete failure", "suboptimal", "somewhat optimal", "completely optimal"}

// validateJudgeLabels checks and normalises a review's judge labels.
func validateJudgeLabels(r *Review) error {
	for _, f := range []struct {
		name string
		v    *string
	}{{"side effect", &r.SideEffect}, {"looping", &r.Looping}} {
		*f.v = strings.ToLower(strings.TrimSpace(*f.v))
		if *f.v != "" && !slices.Contains(JudgeAnswers, *f.v) {
			return fmt.Errorf("unknown %s answer %q: use yes, no or unsure (or leave it unanswered)", f.name, *f.v)
		}
	}
	if r.Optimality < 0 || r.Optimality > len(OptimalityNames) {
		return fmt.Errorf("optimality %d is not a grade: use 1 (complete failure) to 4 (completely optimal), or 0 for unanswered", r.Optimality)
	}
	for _, k := range r.KeySteps {
		if k < 0 {
			return fmt.Errorf("key screenshot on step %d: not a step of the episode", k)
		}
	}
	r.KeySteps = normSteps(r.KeySteps)
	return nil
}

// normSteps sorts steps and drops repeats (nil for none).
func normSteps(s []int) []int {
	if len(s) == 0 {
		return nil
	}
	c := slices.Clone(s)
	slices.Sort(c)
	return slices.Compact(c)
}

func encodeSteps(s []int) string {
	if len(s) == 0 {
		return "[]"
	}
	b, _ := json.Marshal(normSteps(s))
	return string(b)
}

func decodeSteps(s string) []int {
	var out []int
	_ = json.Unmarshal([]byte(s), &out)
	return normSteps(out)
}
