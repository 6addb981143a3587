package replay

import (
	"strings"
	"testing"
)

// A cut's replay warning names the steps that bring its start state, and
// a span that starts at step 1 has none before it: the warning said "its
// steps before the span (1–0)".
func TestCutWarningWords(t *testing.T) {
	if got := cutWarning("E", 0, 1, 3); strings.Contains(got, "1–0") || !strings.Contains(got, "its start page is the start state, then the span's steps 1–3") {
		t.Errorf("a span from step 1: %q", got)
	}
	if got := cutWarning("E", 4, 5, 6); !strings.Contains(got, "its steps before the span (1–4) bring the start state, then the span's steps 5–6") {
		t.Errorf("a span from step 5: %q", got)
	}
}
