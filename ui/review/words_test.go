package review

import (
	"strings"
	"testing"

	"waymark/dataset"
	"waymark/engine/action"
	"waymark/ui"
)

// The player says why an episode ended and what a step's error was in the
// words of the shared kit (ui.EndedBy, ui.ObservationError), not its own.
func TestPlayerUsesTheSharedWords(t *testing.T) {
	for _, r := range action.EndReasons() {
		ep := dataset.Episode{EndReason: r, Status: dataset.StatusFinished}
		if got := endReasonText(ep); got != ui.EndedBy(r) {
			t.Errorf("end reason %q: %q, want %q", r, got, ui.EndedBy(r))
		}
	}
	if got := endReasonText(dataset.Episode{Status: dataset.StatusInterrupted}); got != ui.EndedBy(action.EndInterrupted) {
		t.Errorf("an interrupted episode without a reason: %q", got)
	}
	if got := endReasonText(dataset.Episode{Status: dataset.StatusFinished}); got != dataset.StatusFinished {
		t.Errorf("an episode without a reason shows its status: %q", got)
	}
	for _, code := range action.Codes() {
		steps := []dataset.Step{{URL: "https://example.com/"}, {Index: 1, Error: code, URL: "https://example.com/"}}
		if got := stepInfo(steps, 1, true); !strings.Contains(got, "\nError: "+ui.ObservationError(code)+"\n") {
			t.Errorf("code %q: %q", code, got)
		}
	}
}
