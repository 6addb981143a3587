package browser

import (
	"context"
	"strings"
	"testing"

	"waymark/engine"
	"waymark/engine/action"
)

// A validate script whose result is too large to read (50 MB of info) is
// reported as too large, at once, and the episode goes on: it is not taken
// for a renderer that stopped answering.
func TestValidateResultTooLarge(t *testing.T) {
	site := newSite(t)
	e := newEngine(t, engine.DisplayHeadless, nil)
	ctx := context.Background()
	v := &action.Validator{Script: `({reward: 1, done: true, message: 'big', info: {blob: 'x'.repeat(50 * 1000 * 1000)}})`}
	if _, err := e.Reset(ctx, engine.ResetOptions{StartURL: site.URL + "/page2", Validate: v}); err != nil {
		t.Fatal(err)
	}
	obs, err := e.Step(ctx, action.FinishWith(""))
	if err != nil {
		t.Fatal(err)
	}
	got := obs.Validation
	if got == nil || !strings.Contains(got.Error, "too large") || !strings.Contains(got.Error, "50000") || got.Reward != 0 {
		if got == nil {
			t.Fatal("no validation")
		}
		t.Fatalf("validation: error %q, reward %v, %d bytes of info; want an error saying the result is too large (its size named)", got.Error, got.Reward, len(got.Info))
	}
	if obs.Error != "" {
		t.Errorf("the step's error: %q, want none (the page is fine)", obs.Error)
	}
	// The engine still works: a small result is read.
	res, err := e.Validate(ctx, action.Validator{Script: `({reward: 1, done: true, info: {n: 'x'.repeat(1000)}})`})
	if err != nil || res.Error != "" || res.Reward != 1 {
		t.Fatalf("a small result after it: error %q, reward %v: %v", res.Error, res.Reward, err)
	}
}
