package hfexport

import (
	"strings"
	"testing"
)

// The grounding section's closing figures: none when no step was exported
// (episodes ended at once), and the damaged-extras sentence only when some
// extras could not be read.
func TestGroundingCardFigures(t *testing.T) {
	const base = "null when observation extras were off during recording."
	for _, c := range []struct {
		name string
		s    groundingStats
		tail string
	}{
		{"no step", groundingStats{}, base + "\n\n"},
		{"one step, nothing damaged", groundingStats{steps: 1, targets: 1, elements: 1, axtrees: 1},
			base + " In this export, of 1 step: 1 has a `target`, 1 a `browsergym_element_action` and 1 an `axtree_txt`.\n\n"},
		{"five steps, one damaged", groundingStats{steps: 5, targets: 3, elements: 2, axtrees: 4, badExtras: 1},
			base + " In this export, of 5 steps: 3 have a `target`, 2 a `browsergym_element_action` and 4 an `axtree_txt`." +
				" Observation extras of 1 step could not be read (damaged in the store): the action taken on it has a null `axtree_txt`.\n\n"},
		{"no step, two damaged", groundingStats{badExtras: 2},
			base + " Observation extras of 2 steps could not be read (damaged in the store): the actions taken on them have a null `axtree_txt`.\n\n"},
	} {
		var b strings.Builder
		writeGroundingCard(&b, &c.s)
		got := b.String()
		if !strings.HasPrefix(got, "## Element grounding and BrowserGym actions\n\n") || !strings.HasSuffix(got, c.tail) {
			i := max(0, len(got)-len(c.tail)-40)
			t.Errorf("%s: section ends\n %q\nwant\n %q", c.name, got[i:], c.tail)
		}
	}
}
