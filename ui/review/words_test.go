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
	if got := endReasonText(dataset.Episode{Status: dataset.StatusFinished}); got != ui.StatusName(dataset.StatusFinished) {
		t.Errorf("an episode without a reason shows its status: %q", got)
	}
	for _, code := range action.Codes() {
		steps := []dataset.Step{{URL: "https://example.com/"}, {Index: 1, Error: string(code), URL: "https://example.com/"}}
		if got := stepInfo(steps, 1, true); !strings.Contains(got, "\nError: "+ui.ObservationError(code)+"\n") {
			t.Errorf("code %q: %q", code, got)
		}
	}
}

// A step recorded through an OpenEnv server that did not send the page title
// or the timings shows "—" for them, not empty quotes or "0 ms".
func TestPlayerShowsUnknownTitleAndTimingsAsDash(t *testing.T) {
	steps := []dataset.Step{{URL: "https://example.com/"}, {Index: 1, URL: "https://example.com/b"}}
	got := stepInfo(steps, 1, true)
	for _, bad := range []string{"“”", "0 ms"} {
		if strings.Contains(got, bad) {
			t.Errorf("unknown title and timings shown as %q:\n%s", bad, got)
		}
	}
	if !strings.Contains(got, "Result: https://example.com/b  —") || !strings.Contains(got, "Timings: —") {
		t.Errorf("unknown title and timings not shown as —:\n%s", got)
	}
	steps[1].Timings.TotalMS = 342 // measured by the client only
	if got := stepInfo(steps, 1, true); !strings.Contains(got, "Timings: action — · settle — · capture — · total 342 ms") {
		t.Errorf("only the total known:\n%s", got)
	}
	steps[1].Title = "Shop"
	steps[1].Timings = action.Timings{ActionMS: 12, SettleMS: 0, CaptureMS: 30, TotalMS: 42}
	got = stepInfo(steps, 1, true)
	if !strings.Contains(got, "“Shop”") || !strings.Contains(got, "action 12 ms · settle 0 ms · capture 30 ms · total 42 ms") {
		t.Errorf("known title and timings:\n%s", got)
	}
}
