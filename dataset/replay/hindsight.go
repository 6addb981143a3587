package replay

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"waymark/dataset"
	"waymark/engine"
	"waymark/engine/action"
)

// A task cut from an exploration (dataset.Store.CutSpan) is checked, not
// assumed: CheckCut opens the exploration's start page in a fresh engine,
// replays its kept steps before the span (the cut's start state) and then
// the span's steps, each compared with the stored one as Run compares it,
// offline when given the exploration's archive. The verdicts are kept as a
// replay run of the cut episode (its start page and steps numbered as the
// cut's), and the cut is marked replayable or not with where and why. Key
// points about the page's text that the stored step could not answer (no
// page text kept) are checked on the replayed page once it got there.

// CutCheckOptions tune CheckCut.
type CutCheckOptions struct {
	// Archive, when set, serves the replay from the exploration's replay
	// archive (load a fresh one with Store.EpisodeArchive of the
	// exploration); nil replays from the network. Fallback lets what the
	// archive cannot answer through to the network.
	Archive  *dataset.Archive
	Fallback bool
	// OnStep (may be nil) gets Prefix's progress of each replayed step,
	// the start state's and then the span's.
	OnStep func(PrefixProgress)
}

// CutSettings returns base set up to check a cut of the exploration rec:
// its action set, display and redaction, and a step limit that lets every
// step before and in the span run.
func CutSettings(rec *Recording, base engine.Settings) engine.Settings {
	return rec.Settings(base)
}

// pageText reads the text a page shows, through an engine that can run a
// script in it (the browser's validate script).
type pageText interface {
	Validate(ctx context.Context, v action.Validator) (action.Validation, error)
}

const pageTextScript = `({reward: 1, done: false, message: document.body ? document.body.innerText : ""})`

// CheckCut replays cut episode cutID from its start state to its end in
// eng (fresh, set up with CutSettings of its exploration), keeps the
// verdicts as a replay run of the cut and the result in its
// dataset.HindsightCheck, and returns that. An error only when the check
// could not run at all (the cut or its exploration cannot be read, ctx
// ended); a cut that does not replay is a result, not an error.
func CheckCut(ctx context.Context, st *dataset.Store, eng engine.Engine, cutID string, opts CutCheckOptions) (*dataset.HindsightCheck, error) {
	cut, err := st.GetEpisode(ctx, cutID)
	if err != nil {
		return nil, err
	}
	if cut.Intent != dataset.IntentHindsight {
		return nil, fmt.Errorf("episode %s was not cut from an exploration, so it has no start state to replay it from; replay it with waymark replay", cutID)
	}
	h, err := st.HindsightCheckOf(ctx, cutID)
	if err != nil {
		return nil, err
	}
	if h == nil {
		h = &dataset.HindsightCheck{}
	}
	rec, err := Load(ctx, st, cut.ExplorationID)
	if err != nil {
		return nil, fmt.Errorf("the exploration the task was cut from: %w", err)
	}
	if cut.SpanTo >= len(rec.Steps) {
		return nil, fmt.Errorf("the exploration %s has no step %d (its steps are 0–%d)", rec.Episode.ID, cut.SpanTo, len(rec.Steps)-1)
	}
	startIdx := 0 // the last kept step before the span
	for _, s := range rec.Steps[1:cut.SpanFrom] {
		if !s.Removed {
			startIdx = s.Index
		}
	}
	// The cut's step numbers: the start state is its step 0, the span's
	// kept steps its steps 1….
	cutStep := map[int]int{startIdx: 0}
	n := 0
	for _, s := range rec.Steps[cut.SpanFrom : cut.SpanTo+1] {
		if !s.Removed {
			n++
			cutStep[s.Index] = n
		}
	}

	t0 := time.Now()
	result := &dataset.CutReplay{Offline: opts.Archive != nil, At: t0}
	run := dataset.ReplayRun{EpisodeID: cutID, StartedAt: t0}
	info := eng.Info()
	ej, _ := json.Marshal(info)
	run.EngineJSON, run.Display = string(ej), info.Display
	run.Warning = cutWarning(rec.Episode.ID, startIdx, cut.SpanFrom, cut.SpanTo)
	fail := func(cutIdx int, why string) {
		result.Why = why
		if run.FirstDiverged == nil {
			k := cutIdx
			run.FirstDiverged = &k
		}
		run.Error = why
	}
	addResult := func(r StepResult, idx int) {
		run.Steps = append(run.Steps, dataset.ReplayStep{Step: idx, Action: r.Action, Verdict: r.Verdict, Score: r.Score, Why: r.Why})
		if r.Verdict == dataset.VerdictMatch || r.Verdict == dataset.VerdictDiverged || r.Verdict == dataset.VerdictUnreliable {
			run.Compared++
		}
		if r.Verdict == dataset.VerdictMatch {
			run.Matched++
		}
	}

	ro := rec.Clock
	ro.StartURL = rec.StartURL
	if opts.Archive != nil {
		rec.Offline(&ro, opts.Archive, opts.Fallback)
	}
	var last action.Observation
	reached := false
	obs, err := eng.Reset(ctx, ro)
	switch {
	case ctx.Err() != nil:
		return nil, ctx.Err()
	case err != nil:
		fail(0, fmt.Sprintf("the exploration's start page %s could not be opened: %v", rec.StartURL, err))
	default:
		var pre []StepResult
		last, pre, err = Prefix(ctx, eng, rec, startIdx, PrefixOptions{Start: &obs}, opts.OnStep)
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if err != nil {
			// The start state is one step of the cut (its step 0): what
			// diverged on the way there is said with the exploration's
			// step.
			r := StepResult{Action: "reset", Verdict: dataset.VerdictDiverged, Why: err.Error()}
			if len(pre) > 0 {
				r.Score = pre[len(pre)-1].Score
			}
			addResult(r, 0)
			fail(0, "the start state no longer replays: "+err.Error())
			break
		}
		if len(pre) > 0 {
			r := pre[len(pre)-1]
			r.Action = "reset"
			addResult(r, 0)
		}
		span := *rec
		span.Steps = make([]dataset.Step, len(rec.Steps))
		copy(span.Steps, rec.Steps)
		for i := 1; i < len(span.Steps); i++ {
			if i < cut.SpanFrom || i > cut.SpanTo {
				span.Steps[i].Removed = true
			}
		}
		var res []StepResult
		last, res, err = Prefix(ctx, eng, &span, cut.SpanTo, PrefixOptions{}, opts.OnStep)
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		for _, r := range res {
			addResult(r, cutStep[r.Step])
		}
		if err != nil {
			k := cutStep[cut.SpanTo]
			if d, ok := err.(*DivergedError); ok {
				k = cutStep[d.Step]
				err = fmt.Errorf("step %d (the exploration's step %d): %s", k, d.Step, d.Why)
			}
			fail(k, err.Error())
			break
		}
		reached = true
	}
	if opts.Archive != nil {
		f := opts.Archive.Fidelity()
		f.Steps = cutFidelitySteps(f.Steps, startIdx, rec, cutStep)
		run.Fidelity = &f
		if !f.Hermetic && result.Why == "" {
			fail(0, "the replay was not hermetic: "+f.Line(run.Matched, run.Compared))
		}
	}
	result.Replayable = reached && result.Why == "" && run.Compared > 0 && run.Matched == run.Compared
	result.Matched, result.Compared = run.Matched, run.Compared
	end := time.Now()
	run.EndedAt = &end

	// Text key points the stored step could not answer, on the page the
	// replay reached.
	if reached {
		if pt, ok := engine.As[pageText](eng); ok {
			var todo []int
			for i, k := range h.KeyPoints {
				if k.Kind == dataset.KeyPointText && !k.Checked {
					todo = append(todo, i)
				}
			}
			if len(todo) > 0 {
				if v, err := pt.Validate(ctx, action.Validator{Script: pageTextScript}); err == nil && v.Error == "" {
					for _, i := range todo {
						c := dataset.CheckKeyPoints([]string{h.KeyPoints[i].KeyPoint}, last.URL, v.Message, fmt.Sprintf("the replayed page after step %d", cutStep[cut.SpanTo]))
						if len(c) == 1 {
							h.KeyPoints[i] = c[0]
						}
					}
				}
			}
		}
	}
	saved, err := st.SaveReplayRun(context.WithoutCancel(ctx), run)
	if err != nil {
		return nil, fmt.Errorf("the cut was replayed but its verdicts could not be saved: %w", err)
	}
	result.RunID = saved.ID
	h.Replay = result
	if err := st.SetHindsightCheck(context.WithoutCancel(ctx), cutID, *h); err != nil {
		return nil, fmt.Errorf("the cut was replayed but its result could not be saved: %w", err)
	}
	return h, nil
}

// cutFidelitySteps numbers an offline replay's steps as the cut's: the
// engine's steps up to the start state's are the cut's step 0, each span
// step its own.
func cutFidelitySteps(steps []dataset.StepFidelity, startIdx int, rec *Recording, cutStep map[int]int) []dataset.StepFidelity {
	// The engine counted the kept steps it ran: the start state's, then
	// the span's.
	engineTo := map[int]int{0: 0}
	e := 0
	for _, s := range rec.Steps[1:] {
		if s.Removed {
			continue
		}
		k, inSpan := cutStep[s.Index]
		if s.Index > startIdx && !inSpan {
			continue
		}
		e++
		if s.Index <= startIdx {
			engineTo[e] = 0
		} else {
			engineTo[e] = k
		}
	}
	var out []dataset.StepFidelity
	at := map[int]int{}
	for _, f := range steps {
		k, ok := engineTo[f.Step]
		if !ok {
			continue
		}
		if i, seen := at[k]; seen {
			o := &out[i]
			o.Served += f.Served
			o.Refused += f.Refused
			if o.FirstRefusal == "" {
				o.FirstRefusal = f.FirstRefusal
			}
			o.NotHermetic = append(o.NotHermetic, f.NotHermetic...)
			continue
		}
		f.Step = k
		at[k] = len(out)
		out = append(out, f)
	}
	return out
}

// cutWarning says how a cut of exploration expl's steps from–to was
// replayed; startIdx is the exploration's last kept step before the span
// (0: none, the start page is the start state).
func cutWarning(expl string, startIdx, from, to int) string {
	start := fmt.Sprintf("its steps before the span (1–%d) bring the start state", startIdx)
	if startIdx == 0 {
		start = "its start page is the start state"
	}
	return fmt.Sprintf("replayed from the start of exploration %s: %s, then the span's steps %d–%d; the finish the cut added is not replayed", expl, start, from, to)
}
