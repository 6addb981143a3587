package replay

import (
	"context"
	"errors"
	"fmt"

	"waymark/dataset"
	"waymark/engine"
	"waymark/engine/action"
)

// Prefix is how a stored episode is continued (resumed after an
// interruption, brought back after an undo, or branched at a step): its
// kept steps up to step k are replayed in an engine and each is checked
// against the stored one as Run checks it, so recording goes on only from
// a page that is where the stored steps left it.

// PrefixOptions tune Prefix.
type PrefixOptions struct {
	// Start, when set, is the observation of the engine's reset; it is
	// compared with the stored step 0 before any action runs.
	Start *action.Observation
}

// PrefixProgress is what Prefix reports around each replayed step.
type PrefixProgress struct {
	// N is the step's place among the Of steps replayed (1-based); Step is
	// its stored index (indices skip removed steps).
	N, Of, Step int
	// Action is the stored action as people read it.
	Action string
	// Result is nil just before the step runs, then its comparison.
	Result *StepResult
	// Obs is the replayed observation (zero before the step runs).
	Obs action.Observation
}

// DivergedError says at which stored step a prefix stopped and why: the
// page differed from the stored one, the engine refused the action, the
// replayed episode ended early, or the step cannot be replayed at all (a
// secret that was not stored).
type DivergedError struct {
	// Step is the stored index of the step that stopped the replay.
	Step int
	// Why says what differed, in words.
	Why string
	// Result is the step's comparison, when it ran.
	Result *StepResult
	// Refused: the step cannot be replayed at all, so nothing ran
	// (errors.Is(err, ErrCannotReplay)).
	Refused bool
}

func (e *DivergedError) Error() string {
	if e.Refused {
		return fmt.Sprintf("step %d cannot be replayed: %s", e.Step, e.Why)
	}
	if e.Step == 0 {
		return "the start page differs from the stored one: " + e.Why
	}
	return fmt.Sprintf("step %d did not replay as recorded: %s", e.Step, e.Why)
}

// ErrCannotReplay marks a prefix refused before anything ran (a secret, an
// unreadable action, a step that is not there); a *DivergedError wraps it.
var ErrCannotReplay = errors.New("the stored steps cannot be replayed")

func (e *DivergedError) Unwrap() error {
	if e.Refused {
		return ErrCannotReplay
	}
	return nil
}

// Prefix replays rec's kept (not removed) steps with index 1..k in eng,
// which the caller has already reset to rec's start (rec.StartURL and
// rec.Clock, as Run does), and compares each observation with the stored
// step as Run does. It stops at the first step that does not match and
// returns a *DivergedError naming it. Steps it cannot replay are refused
// before any action runs: a type action whose text was a secret (stored
// redacted), an action that cannot be read, a step k that was removed or
// that ended the episode. onStep (may be nil) is called before and after
// each step, on the caller's goroutine. It returns the last observation
// (opts.Start when k is 0) and the comparisons made, step 0's first when
// opts.Start was given.
func Prefix(ctx context.Context, eng engine.Engine, rec *Recording, k int, opts PrefixOptions, onStep func(PrefixProgress)) (action.Observation, []StepResult, error) {
	var last action.Observation
	if opts.Start != nil {
		last = *opts.Start
	}
	todo, err := prefixSteps(rec, k)
	if err != nil {
		return last, nil, err
	}
	var results []StepResult
	if opts.Start != nil {
		r := compareStepIn(ctx, eng, rec, rec.Steps[0], *opts.Start)
		r.Action = "reset"
		results = append(results, r)
		if r.Verdict != dataset.VerdictMatch {
			return last, results, &DivergedError{Step: 0, Why: r.Why, Result: &results[0]}
		}
	}
	for n, i := range todo {
		stored := rec.Steps[i]
		label := actionLabel(stored)
		if last.Done {
			return last, results, &DivergedError{Step: stored.Index,
				Why: fmt.Sprintf("the replayed episode had already ended (%s) before it, while the stored one went on", orNone(string(last.EndReason)))}
		}
		if onStep != nil {
			onStep(PrefixProgress{N: n + 1, Of: len(todo), Step: stored.Index, Action: label})
		}
		obs, err := eng.Step(ctx, *stored.Action)
		if cerr := ctx.Err(); cerr != nil {
			// Cancelled: the engine answers with an interrupted
			// observation, which is not what the step did.
			return last, results, cerr
		}
		if err != nil {
			r := StepResult{Step: stored.Index, Action: label, Verdict: dataset.VerdictDiverged, Stored: seenOf(stored),
				Why: "the engine refused the action: " + err.Error()}
			results = append(results, r)
			return last, results, &DivergedError{Step: stored.Index, Why: r.Why, Result: &results[len(results)-1]}
		}
		last = obs
		r := compareStepIn(ctx, eng, rec, stored, obs)
		r.Action = label
		results = append(results, r)
		if onStep != nil {
			onStep(PrefixProgress{N: n + 1, Of: len(todo), Step: stored.Index, Action: label, Result: &results[len(results)-1], Obs: obs})
		}
		if r.Verdict != dataset.VerdictMatch {
			return last, results, &DivergedError{Step: stored.Index, Why: r.Why, Result: &results[len(results)-1]}
		}
	}
	return last, results, nil
}

// prefixSteps lists the positions in rec.Steps of the kept steps 1..k, or
// says why they cannot be replayed.
func prefixSteps(rec *Recording, k int) ([]int, error) {
	if len(rec.Steps) == 0 {
		return nil, &DivergedError{Step: 0, Why: "the episode has no stored steps", Refused: true}
	}
	lastIdx := rec.Steps[len(rec.Steps)-1].Index
	if k < 0 || k > lastIdx {
		return nil, &DivergedError{Step: k, Why: fmt.Sprintf("the episode has no step %d (its steps are 0–%d)", k, lastIdx), Refused: true}
	}
	var todo []int
	kept := 0 // the last kept step before the one looked at
	for i, s := range rec.Steps {
		if s.Index == 0 || s.Index > k {
			continue
		}
		if s.Removed {
			if s.Index == k {
				return nil, &DivergedError{Step: k, Why: fmt.Sprintf("step %d was removed from the episode; continue from a kept step (step %d or earlier)", k, kept), Refused: true}
			}
			continue
		}
		switch {
		case s.Action == nil:
			return nil, &DivergedError{Step: s.Index, Why: fmt.Sprintf("its stored action cannot be read (%q); only step %d or earlier can be replayed", s.ActionJSON, kept), Refused: true}
		case s.Action.IsRedacted():
			return nil, &DivergedError{Step: s.Index, Why: fmt.Sprintf("it typed a secret (a password or card field) that was not stored, so it cannot be typed again; "+
				"only step %d or earlier can be replayed", kept), Refused: true}
		case s.Done && s.Index == k:
			return nil, &DivergedError{Step: s.Index, Why: fmt.Sprintf("it ended the episode (%s), so nothing can follow it; continue from step %d or earlier", actionLabel(s), kept), Refused: true}
		}
		todo = append(todo, i)
		kept = s.Index
	}
	return todo, nil
}

// LastKept is the index of rec's last kept step (0 when only the start page
// is kept).
func (rec *Recording) LastKept() int {
	for i := len(rec.Steps) - 1; i >= 0; i-- {
		if !rec.Steps[i].Removed {
			return rec.Steps[i].Index
		}
	}
	return 0
}

// BringBack is the recorder's way back to a stored episode's page (see
// dataset.Recorder.Resume and Undo): it loads the episode from st, resets
// inner with opts (the episode's task's start page and clock) and replays
// the kept steps up to the last one with Prefix, step 0 compared too.
// onStep (may be nil) gets Prefix's progress.
func BringBack(st *dataset.Store, onStep func(PrefixProgress)) dataset.BringBack {
	return func(ctx context.Context, inner engine.Engine, opts engine.ResetOptions, episodeID string) (engine.Observation, int, error) {
		rec, err := Load(ctx, st, episodeID)
		if err != nil {
			return engine.Observation{}, 0, err
		}
		k := rec.LastKept()
		// Refuse before the browser works when the steps cannot be replayed.
		if _, err := prefixSteps(rec, k); err != nil {
			return engine.Observation{}, 0, err
		}
		obs, err := inner.Reset(ctx, opts)
		if cerr := ctx.Err(); cerr != nil {
			return obs, 0, cerr
		}
		if err != nil {
			return obs, 0, fmt.Errorf("could not open the start page %s again: %w", opts.StartURL, err)
		}
		last, _, err := Prefix(ctx, inner, rec, k, PrefixOptions{Start: &obs}, onStep)
		return last, k, err
	}
}
