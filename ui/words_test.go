package ui

import (
	"context"
	"errors"
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"

	"waymark/dataset"
	"waymark/engine"
	"waymark/engine/action"
	"waymark/engine/openenv"
)

// Every observation error code and every end reason has words of its own:
// a code or reason added to engine/action without words here fails.
func TestEveryCodeAndEndReasonHasWords(t *testing.T) {
	seen := map[string]string{}
	for _, code := range action.Codes() {
		w := ObservationError(code)
		if w == "" || strings.Contains(w, string(code)) || !strings.HasSuffix(w, ".") {
			t.Errorf("code %q has no sentence of its own: %q", code, w)
		}
		if other, dup := seen[w]; dup {
			t.Errorf("codes %q and %q read the same: %q", other, code, w)
		}
		seen[w] = string(code)
	}
	if w := ObservationError("net::ERR_NAME_NOT_RESOLVED"); w != "The action did not work on the page: net::ERR_NAME_NOT_RESOLVED." {
		t.Errorf("an error that is no code: %q", w)
	}
	if ObservationError("") != "" {
		t.Error("no error must have no words")
	}
	for _, r := range action.EndReasons() {
		if w := EndReason(r); w == "" || strings.Contains(w, "("+string(r)+")") || !strings.HasSuffix(w, ".") {
			t.Errorf("end reason %q has no sentence of its own: %q", r, w)
		}
		if w := EndedBy(r); w == "" || w == string(r) {
			t.Errorf("end reason %q has no summary words: %q", r, w)
		}
	}
	if EndReason("gone_fishing") != "The episode ended (gone_fishing)." || EndedBy("gone_fishing") != "gone_fishing" {
		t.Error("an unknown end reason must be shown as it is")
	}
}

// Every episode status, review outcome and replay verdict has words of its
// own, each different: one added to dataset without words here fails.
func TestEveryStatusOutcomeAndVerdictHasWords(t *testing.T) {
	distinct := func(what string, values []string, words func(string) string) {
		t.Helper()
		seen := map[string]string{}
		for _, v := range values {
			w := words(v)
			if w == "" || w == v && strings.Contains(v, "_") {
				t.Errorf("%s %q has no words of its own: %q", what, v, w)
			}
			if other, dup := seen[w]; dup {
				t.Errorf("%ss %q and %q read the same: %q", what, other, v, w)
			}
			seen[w] = v
		}
		if got := words("gone_fishing"); got != "gone_fishing" {
			t.Errorf("an unknown %s must be shown as it is: %q", what, got)
		}
	}
	distinct("status", strs(dataset.Statuses()), func(v string) string { return StatusName(dataset.Status(v)) })
	distinct("outcome", strs(dataset.Outcomes), func(v string) string { return OutcomeName(dataset.Outcome(v)) })
	distinct("verdict", strs(dataset.Verdicts()), func(v string) string { return VerdictMark(dataset.Verdict(v)) })
	for _, v := range dataset.Verdicts() {
		if w := VerdictMark(v); w == string(v) {
			t.Errorf("verdict %q has no words of its own", v)
		}
	}
	for _, o := range dataset.Outcomes {
		if w := OutcomeName(o); w != strings.ToLower(w) || strings.Contains(w, "_") {
			t.Errorf("outcome %q reads %q: lower-case words are wanted", o, w)
		}
	}
}

func strs[S ~string](l []S) []string {
	out := make([]string, len(l))
	for i, s := range l {
		out[i] = string(s)
	}
	return out
}

// A refused step reads the same whichever layer refused it, and the words
// come from errors.Is, not from the error's text.
func TestStepErrorMatchesTheSentinel(t *testing.T) {
	for _, err := range []error{
		engine.ErrResetBeforeStepping,
		fmt.Errorf("%w: the last observation showed no visible content", engine.ErrResetBeforeStepping),
		errors.Join(engine.ErrResetBeforeStepping, errors.New("the answer could not be kept")),
	} {
		if got := StepError(err); got != episodeOver {
			t.Errorf("StepError(%v) = %q", err, got)
		}
	}
	if got := StepError(errors.New("reset before stepping")); got == episodeOver {
		t.Error("StepError matched the words of an error that is not engine.ErrResetBeforeStepping")
	}
}

// refusing resets and then refuses every step as an engine whose episode
// is over does.
type refusing struct{ state engine.State }

func (e *refusing) Reset(_ context.Context, o engine.ResetOptions) (engine.Observation, error) {
	e.state = engine.State{EpisodeID: "ep", MaxSteps: 20}
	return engine.Observation{URL: o.StartURL}, nil
}
func (e *refusing) Step(context.Context, engine.Action) (engine.Observation, error) {
	return engine.Observation{}, fmt.Errorf("%w: the last observation showed no visible content", engine.ErrResetBeforeStepping)
}
func (e *refusing) State() engine.State { return e.state }
func (e *refusing) Info() engine.Info {
	return engine.Info{Kind: "refusing", ActionSet: action.SetDefault, MaxSteps: 20}
}
func (e *refusing) Close() error { return nil }

// Over a real OpenEnv server on 127.0.0.1, the server's refusal reaches the
// person as the same sentence as a local engine's.
func TestStepErrorOverOpenEnv(t *testing.T) {
	srv, err := openenv.NewServer(openenv.Options{Logf: t.Logf,
		NewEngine: func(context.Context) (engine.Engine, error) { return &refusing{}, nil }})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv)
	defer hs.Close()
	defer srv.Close()
	ctx := context.Background()
	c, err := openenv.Dial(ctx, hs.URL, openenv.ClientOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Reset(ctx, engine.ResetOptions{StartURL: "https://example.com/"}); err != nil {
		t.Fatal(err)
	}
	_, err = c.Step(ctx, action.ScrollBy(1))
	var se *openenv.ServerError
	if !errors.As(err, &se) {
		t.Fatalf("step: %v, want the server's error", err)
	}
	if got := StepError(err); got != episodeOver {
		t.Errorf("StepError(%v) = %q, want %q", err, got, episodeOver)
	}
}
