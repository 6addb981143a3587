package replay

import (
	"fmt"
	"image"
	"strings"

	"waymark/dataset"
	"waymark/engine/action"
)

// One step's comparison: what the stored step and the replayed observation
// showed (Seen), and the step's verdict and why (StepResult); motion.go
// leaves moving regions out of it, similar.go compares the screenshots.

// Seen is what a step showed, besides its screenshot.
type Seen struct {
	URL   string `json:"url"`
	Title string `json:"title"`
	Error string `json:"error"`
	Done  bool   `json:"done"`
}

// StepResult is one step's comparison.
type StepResult struct {
	Step int `json:"step"`
	// Action is the stored action as people read it (`click 312,188`,
	// `type "red shoes"`; "reset" for step 0).
	Action  string          `json:"action"`
	Verdict dataset.Verdict `json:"verdict"`
	// Score is the screenshots' similarity (1 − the share of differing
	// pixels; see Compare), DiffPixels the count; both absent when the
	// screenshots were not compared.
	Score      *float64 `json:"score,omitempty"`
	DiffPixels *int     `json:"diff_pixels,omitempty"`
	// Why says what differed (or, for a match after a secret, that it
	// matched; for a match with regions left out, which); empty for a
	// plain match.
	Why string `json:"why,omitempty"`
	// Ignored are the regions of the viewport left out of the screenshot
	// comparison, each with why (see Motion).
	Ignored  []Ignored `json:"ignored,omitempty"`
	Stored   Seen      `json:"stored"`
	Replayed *Seen     `json:"replayed,omitempty"`
	// Requests is what the step was served by an offline replay's archive
	// (nil for a replay from the network).
	Requests *dataset.StepFidelity `json:"requests,omitempty"`

	// shotOnly: the screenshot is all that differed.
	shotOnly bool
}

// Ignored is a region of the viewport left out of a screenshot comparison.
type Ignored struct {
	X   int    `json:"x"`
	Y   int    `json:"y"`
	W   int    `json:"w"`
	H   int    `json:"h"`
	Why string `json:"why"`
}

// Rect is the region as an image rectangle.
func (g Ignored) Rect() image.Rectangle { return image.Rect(g.X, g.Y, g.X+g.W, g.Y+g.H) }

// compareStep compares a stored step with the replayed observation.
func compareStep(stored dataset.Step, obs action.Observation) StepResult {
	r := StepResult{Step: stored.Index, Stored: seenOf(stored), Replayed: seenPtr(obs)}
	var why []string
	field := func(name, want, got string) {
		if want != got {
			why = append(why, fmt.Sprintf("%s %q, stored %q", name, got, want))
		}
	}
	field("url", stored.URL, obs.URL)
	field("title", stored.Title, obs.Title)
	field("error", stored.Error, string(obs.Error))
	if stored.Done != obs.Done {
		why = append(why, fmt.Sprintf("done %v, stored %v", obs.Done, stored.Done))
	}
	switch {
	case len(stored.Screenshot) == 0 && len(obs.Screenshot) == 0:
	case len(stored.Screenshot) == 0:
		why = append(why, "screenshot: the stored step has none")
	case len(obs.Screenshot) == 0:
		why = append(why, "screenshot: the replayed step has none")
	default:
		s, err := ComparePNG(stored.Screenshot, obs.Screenshot)
		if err != nil {
			why = append(why, "screenshot: "+err.Error())
			break
		}
		r.Score, r.DiffPixels = &s.Score, &s.DiffPixels
		if !s.Same() {
			why = append(why, fmt.Sprintf("screenshot: %d pixels differ (%.3f%%, more than the %.3f%% allowed)%s", s.DiffPixels, 100*s.Share, 100*MaxDiffShare, s.whereText()))
		}
	}
	r.shotOnly = len(why) == 1 && strings.HasPrefix(why[0], "screenshot: ") && r.DiffPixels != nil
	if len(why) == 0 {
		r.Verdict = dataset.VerdictMatch
	} else {
		r.Verdict = dataset.VerdictDiverged
		r.Why = strings.Join(why, "; ")
	}
	return r
}

func whyOrMatch(r StepResult) string {
	if r.Verdict == dataset.VerdictMatch {
		return "matched"
	}
	return r.Why
}

func seenOf(s dataset.Step) Seen {
	return Seen{URL: s.URL, Title: s.Title, Error: s.Error, Done: s.Done}
}

func seenPtr(o action.Observation) *Seen {
	return &Seen{URL: o.URL, Title: o.Title, Error: string(o.Error), Done: o.Done}
}

// actionLabel is a step's action as people read it (`click 312,188`).
func actionLabel(s dataset.Step) string {
	if s.Action == nil {
		return s.ActionJSON
	}
	return s.Action.String()
}

func orNone(s string) string {
	if s == "" {
		return "no reason given"
	}
	return s
}
