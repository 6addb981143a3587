package hfexport

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The card states the automatic checks' agreement with the exported
// outcomes. Every episode of the standard store passed its check (reward
// 1); of the 17 exported, 2 are invalid_task (left out), 9 success and 6
// failure or not_executable: precision 9/15, recall 1, kappa 0 (the check
// always says yes), AC1 (0.6−0.32)/0.68 = 0.41.
func TestCardCheckAgreement(t *testing.T) {
	out, _ := exportStandard(t)
	b, err := os.ReadFile(filepath.Join(out, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	card := string(b)
	for _, want := range []string{
		"### Automatic checks against people\n\n15 episodes have both an automatic check result (`auto_reward`, passed when 1) and an outcome (2 episodes labelled `invalid_task` left out).",
		"| all | 15 | 9 | 6 | 0 | 0 | 60% | 0.60 | 1.00 | 0.00 | 0.41 |\n",
		"\nTasks whose check disagrees with people most:\n\n- \"Goal of task-",
	} {
		if !strings.Contains(card, want) {
			i := strings.Index(card, "### Automatic checks")
			t.Errorf("card lacks %q; it says:\n%s", want, card[max(i, 0):min(max(i, 0)+1500, len(card))])
		}
	}

	// Without check results the card says the figures cannot be given.
	f := standard(t)
	f.exec(`UPDATE episodes SET auto_reward = NULL`)
	out = filepath.Join(t.TempDir(), "ds")
	mustExport(t, f, opts(out))
	b, _ = os.ReadFile(filepath.Join(out, "README.md"))
	if !strings.Contains(string(b), "No exported episode has both an automatic check result (`auto_reward`) and an outcome") {
		t.Error("the card does not say the checks' agreement cannot be stated")
	}
}
