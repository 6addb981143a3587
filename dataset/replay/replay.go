// Package replay runs a stored episode's actions again in a fresh engine
// and compares every step with the stored one: URL, title, error, done and
// the screenshot (see Compare). It only reads the store: a replay never
// changes the episode it replays.
package replay

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"

	"waymark/dataset"
	"waymark/engine"
	"waymark/engine/action"
	"waymark/engine/redact"
)

// Recording is a stored episode ready to replay.
type Recording struct {
	Episode dataset.Episode
	// StartURL is the task's start URL (what the recorder opened), else
	// step 0's URL.
	StartURL string
	// Steps are all the stored steps with their screenshots, step 0 first,
	// Steps[i].Index == i. Steps an edit removed are there too, with
	// Removed set: Run and Prefix replay the edited episode (the kept
	// steps) and skip them, and step numbers stay the stored ones.
	Steps []dataset.Step
	// MaxSteps is the step limit the episode was recorded with.
	MaxSteps int
	// Clock holds the task's reference time, time zone and locale (its
	// other fields are unset), so the replay sees the recorded clock.
	Clock engine.ResetOptions
}

// Load reads an episode and its steps (with screenshots) from the store:
// every stored step, removed ones flagged (see Recording.Steps).
func Load(ctx context.Context, st *dataset.Store, episodeID string) (*Recording, error) {
	ep, err := st.GetEpisode(ctx, episodeID)
	if err != nil {
		return nil, err
	}
	rec := &Recording{Episode: ep}
	for s, err := range st.EpisodeSteps(ctx, episodeID) {
		if err != nil {
			return nil, err
		}
		rec.Steps = append(rec.Steps, s)
	}
	if len(rec.Steps) == 0 || rec.Steps[0].Index != 0 {
		return nil, fmt.Errorf("episode %s has no stored step 0, so there is nothing to replay", episodeID)
	}
	kept := 0
	for i, s := range rec.Steps {
		if s.Index != i {
			return nil, fmt.Errorf("episode %s: step %d is missing from the store", episodeID, i)
		}
		if i > 0 && !s.Removed {
			kept++
		}
	}
	if rec.Steps[0].Removed {
		return nil, fmt.Errorf("episode %s: its start page (step 0) is marked removed, so there is nothing to replay", episodeID)
	}
	if t, err := st.GetTask(ctx, ep.TaskID); err == nil && strings.TrimSpace(t.StartURL) != "" {
		rec.StartURL = t.StartURL
		dataset.TaskResetOptions(t, &rec.Clock)
		// The replay blacks out what the recording did (Settings), not
		// what the task says now.
		rec.Clock.Redact, rec.Clock.RedactSet = nil, false
	} else {
		rec.StartURL = rec.Steps[0].URL
	}
	if err := action.CheckURL(rec.StartURL); err != nil {
		return nil, fmt.Errorf("episode %s: its start URL cannot be opened again: %v", episodeID, err)
	}
	rec.MaxSteps = maxSteps(ep, kept)
	return rec, nil
}

// Kept counts the kept action steps (step 0 and removed steps not counted):
// the steps a replay runs.
func (rec *Recording) Kept() int {
	n := 0
	for _, s := range rec.Steps[min(1, len(rec.Steps)):] {
		if !s.Removed {
			n++
		}
	}
	return n
}

// removedIndices lists the action steps an edit removed.
func (rec *Recording) removedIndices() []string {
	var out []string
	for _, s := range rec.Steps {
		if s.Removed && s.Index > 0 {
			out = append(out, fmt.Sprint(s.Index))
		}
	}
	return out
}

// maxSteps is the episode's step limit: the engine's, as stored with the
// episode, else one that lets every stored step run (exactly the stored
// count when the episode ended at its limit).
func maxSteps(ep dataset.Episode, actions int) int {
	var info engine.Info
	if json.Unmarshal([]byte(ep.EngineJSON), &info) == nil && info.MaxSteps >= actions && info.MaxSteps >= 1 && info.MaxSteps <= engine.MaxMaxSteps {
		return info.MaxSteps
	}
	if ep.EndReason == action.EndStepLimit && actions >= 1 {
		return actions
	}
	return min(max(engine.DefaultMaxSteps, actions), engine.MaxMaxSteps)
}

// Settings returns base with the episode's action set and step limit, for
// the engine that replays it, and the display mode it was recorded in when
// base leaves it to Waymark (engine.DisplayAuto).
func (r *Recording) Settings(base engine.Settings) engine.Settings {
	base.ActionSet = r.Episode.ActionSet
	if base.ActionSet == "" {
		base.ActionSet = action.SetDefault
	}
	base.MaxSteps = r.MaxSteps
	// The replay blacks out what the recording did (so its screenshots
	// compare alike), whatever the replaying engine would apply.
	var info struct {
		Redaction json.RawMessage `json:"redaction"`
	}
	base.Redact = nil
	if json.Unmarshal([]byte(r.Episode.EngineJSON), &info) == nil {
		if p, err := redact.FromJSON(info.Redaction); err == nil {
			base.Redact = p
		}
	}
	if base.Display == engine.DisplayAuto {
		base.Display = r.Display()
	}
	return base
}

// Display is the display mode the episode was recorded in (engine.DisplayXvfb
// or engine.DisplayHeadless), "" when its engine did not say (an OpenEnv
// server, an old recording).
func (r *Recording) Display() string {
	var info engine.Info
	if json.Unmarshal([]byte(r.Episode.EngineJSON), &info) != nil {
		return ""
	}
	switch info.Display {
	case engine.DisplayXvfb, engine.DisplayHeadless:
		return info.Display
	}
	return ""
}

// OtherDisplayWarning is the warning of a replay in another display mode
// than the recording's (%[1]s the recorded mode, %[2]s the replay's).
const OtherDisplayWarning = "recorded on %[1]s, replaying %[2]s: the two display modes may draw the same page a little differently (a hovered control's border, text antialiasing), " +
	"and the screenshots are compared with the same measure as in the recorded mode, with no extra tolerance (one that absorbed such differences would also absorb a changed line of text), " +
	"so a step may diverge for the display mode alone; replay with --display %[1]s to compare like with like"

// Options of a replay.
type Options struct {
	// Until, when above 0, stops after step Until.
	Until int
	// Continue goes on after a divergence or a secret step (the steps after
	// a secret are marked unreliable).
	Continue bool
	// PracticeHosts are host names whose server is started fresh for the
	// replay (the practice sites); any other start URL gets a warning that
	// the server's state may differ.
	PracticeHosts []string
	// Progress, when set, is called with each step's result as soon as it
	// is known (on Run's goroutine).
	Progress func(StepResult)
	// Archive, when set, serves the replay from the recording's own
	// traffic instead of the network (an offline replay: load a fresh one
	// with Store.EpisodeArchive for each run); the report then has its
	// Fidelity. Fallback lets the requests it cannot answer through to
	// the network, each still counted as refused.
	Archive  *dataset.Archive
	Fallback bool
}

// Measure describes the screenshot measure in the report.
type Measure struct {
	Name             string  `json:"name"`
	ChannelTolerance int     `json:"channel_tolerance"`
	MaxDiffShare     float64 `json:"max_diff_share"`
	// Motion says what is left out of a step whose screenshot alone
	// diverges; empty when the replaying engine cannot say what moves.
	Motion string `json:"motion,omitempty"`
}

// Report is the result of a replay.
type Report struct {
	EpisodeID string     `json:"episode_id"`
	StartedAt time.Time  `json:"started_at"`
	TaskID    string     `json:"task_id"`
	Goal      string     `json:"goal"`
	StartURL  string     `json:"start_url"`
	ActionSet action.Set `json:"action_set"`
	// StoredSteps is the number of stored actions (steps after step 0).
	StoredSteps int          `json:"stored_steps"`
	Measure     Measure      `json:"measure"`
	Warnings    []string     `json:"warnings"`
	Steps       []StepResult `json:"steps"`
	// Compared counts the steps compared (step 0 included), Matched those
	// that matched.
	Compared int `json:"compared"`
	Matched  int `json:"matched"`
	// FirstDivergence is the first step that did not match (a secret step
	// included); nil when none.
	FirstDivergence *int `json:"first_divergence"`
	// Stopped says why the replay ended before the last stored step ("" when
	// it did not).
	Stopped string `json:"stopped,omitempty"`
	// OK is true when every step replayed matched and none was left out
	// except by Until.
	OK        bool  `json:"ok"`
	ElapsedMS int64 `json:"elapsed_ms"`
	// Fidelity is an offline replay's report on its archive (nil for a
	// replay from the network); Hermetic its one line.
	Fidelity *dataset.Fidelity `json:"fidelity,omitempty"`
	Hermetic string            `json:"hermetic,omitempty"`

	progress func(StepResult)
}

// NotPracticeWarning is the warning of a replay whose start URL is not a
// practice site (%s is the URL).
const NotPracticeWarning = "the start URL %s is not a practice site: its server keeps state (logins, carts, stock, posted content) that a replay cannot restore, so a difference may come from the site rather than from the recording"

// SiteWarning is the warning for a replay of rec whose start URL is not a
// practice site (practiceHosts), "" for one that is.
func (rec *Recording) SiteWarning(practiceHosts []string) string {
	if u, err := url.Parse(rec.StartURL); err == nil && !slices.Contains(practiceHosts, strings.ToLower(u.Hostname())) {
		return fmt.Sprintf(NotPracticeWarning, rec.StartURL)
	}
	return ""
}

// Run replays rec in eng, which must be fresh (its next Reset opens a new
// profile) and set up with rec.Settings. It returns the report; an error
// only when the replay could not run at all (the reset failed or ctx ended).
func Run(ctx context.Context, eng engine.Engine, rec *Recording, opts Options) (*Report, error) {
	t0 := time.Now()
	ep := rec.Episode
	rep := &Report{EpisodeID: ep.ID, StartedAt: t0, progress: opts.Progress, TaskID: ep.TaskID, Goal: ep.Goal, StartURL: rec.StartURL, ActionSet: ep.ActionSet,
		StoredSteps: rec.Kept(), Warnings: []string{}, Steps: []StepResult{},
		Measure: Measure{Name: "share of pixels differing by more than the tolerance in a channel, with a 1-pixel neighbourhood",
			ChannelTolerance: ChannelTolerance, MaxDiffShare: MaxDiffShare}}
	defer func() { rep.ElapsedMS = time.Since(t0).Milliseconds() }()
	if _, ok := motionOf(eng); ok {
		rep.Measure.Motion = MotionMeasure
	}
	if w := rec.SiteWarning(opts.PracticeHosts); w != "" && opts.Archive == nil {
		// (Offline, the site's answers are the recording's own.)
		rep.Warnings = append(rep.Warnings, w)
	}
	if removed := rec.removedIndices(); len(removed) > 0 {
		rep.Warnings = append(rep.Warnings, fmt.Sprintf("the episode was edited: its removed steps (%s) are not replayed, the edited episode is",
			strings.Join(removed, ", ")))
	}
	recorded, replaying := rec.Display(), eng.Info().Display
	otherDisplay := recorded != "" && replaying != "" && recorded != replaying
	if otherDisplay {
		rep.Warnings = append(rep.Warnings, fmt.Sprintf(OtherDisplayWarning, recorded, replaying))
	}
	if ep.Status == dataset.StatusRecording {
		rep.Warnings = append(rep.Warnings, "the episode is still being recorded: only the steps stored so far are replayed")
	}

	ro := rec.Clock
	ro.StartURL = rec.StartURL
	// engineStep maps the replaying engine's step numbers to the stored
	// steps (removed steps are not replayed).
	engineStep := map[int]int{0: 0}
	if opts.Archive != nil {
		rec.Offline(&ro, opts.Archive, opts.Fallback)
		defer func() { rep.fidelity(opts.Archive, engineStep) }()
	}
	obs, err := eng.Reset(ctx, ro)
	if ctx.Err() != nil {
		return rep, ctx.Err()
	}
	if err != nil {
		return rep, fmt.Errorf("could not open %s: %w", rec.StartURL, err)
	}
	last := len(rec.Steps) - 1
	if opts.Until > 0 && opts.Until < last {
		last = opts.Until
	}
	diverge := func(k int) {
		if rep.FirstDivergence == nil {
			rep.FirstDivergence = &k
		}
	}
	res := compareStepIn(ctx, eng, rec, rec.Steps[0], obs)
	res.Action = "reset"
	rep.add(res)
	if res.Verdict != dataset.VerdictMatch {
		diverge(0)
		if !opts.Continue {
			rep.Stopped = "step 0 (the start page) diverged"
		}
	}
	secret := -1 // the first secret step, once one was met
	prev := 0    // the last kept step replayed
	for k := 1; k <= last && rep.Stopped == ""; k++ {
		stored := rec.Steps[k]
		if stored.Removed {
			continue // left out of the edited episode
		}
		if obs.Done {
			rep.Stopped = fmt.Sprintf("the replayed episode ended at step %d (%s); the stored one goes on", prev, orNone(string(obs.EndReason)))
			break
		}
		prev = k
		if stored.Action == nil {
			diverge(k)
			rep.add(StepResult{Step: k, Action: stored.ActionJSON, Verdict: dataset.VerdictDiverged, Stored: seenOf(stored),
				Why: "the stored action cannot be read"})
			rep.Stopped = fmt.Sprintf("step %d's action cannot be read", k)
			break
		}
		a := *stored.Action
		aj := actionLabel(stored)
		if a.IsRedacted() {
			diverge(k)
			r := StepResult{Step: k, Action: aj, Verdict: dataset.VerdictSecret, Stored: seenOf(stored)}
			if !opts.Continue {
				rep.add(r)
				rep.Stopped = fmt.Sprintf("step %d typed a secret that was not stored", k)
				break
			}
			// Type the placeholder so the step count stays aligned; what
			// follows is compared but cannot be trusted.
			r.Why = "typed " + action.RedactedText + " in its place; the steps after it are unreliable"
			if secret < 0 {
				secret = k
			}
			obs, err = eng.Step(ctx, a)
			engineStep[len(engineStep)] = k
			if ctx.Err() != nil {
				// Cancelled: the engine answers with an interrupted
				// observation, which is not what the step did.
				return rep, ctx.Err()
			}
			if err != nil {
				rep.add(r)
				rep.Stopped = fmt.Sprintf("the engine refused step %d: %v", k, err)
				break
			}
			r.Replayed = seenPtr(obs)
			rep.add(r)
			continue
		}
		obs, err = eng.Step(ctx, a)
		engineStep[len(engineStep)] = k
		if ctx.Err() != nil {
			return rep, ctx.Err() // as above: not a verdict on the step
		}
		if err != nil {
			diverge(k)
			rep.add(StepResult{Step: k, Action: aj, Verdict: dataset.VerdictDiverged, Stored: seenOf(stored),
				Why: "the engine refused the action: " + err.Error()})
			rep.Stopped = fmt.Sprintf("the engine refused step %d", k)
			break
		}
		r := compareStepIn(ctx, eng, rec, stored, obs)
		r.Action = aj
		if secret >= 0 {
			r.Why = fmt.Sprintf("after step %d's secret: %s", secret, whyOrMatch(r))
			r.Verdict = dataset.VerdictUnreliable
			rep.add(r)
			continue
		}
		rep.add(r)
		if r.Verdict != dataset.VerdictMatch {
			diverge(k)
			if !opts.Continue {
				rep.Stopped = fmt.Sprintf("step %d diverged", k)
			}
		}
	}
	rep.OK = rep.FirstDivergence == nil && secret < 0 && rep.Stopped == "" && rep.Matched == rep.Compared
	return rep, nil
}

// Offline sets ro up to replay rec from arch: the archive, the random
// numbers seeded from the recorded episode's id, and the page's clock at
// the recording's start when the task sets none.
func (rec *Recording) Offline(ro *engine.ResetOptions, arch *dataset.Archive, fallback bool) {
	ro.Archive, ro.ArchiveFallback = arch, fallback
	seed := engine.EpisodeSeed(rec.Episode.ID)
	ro.Seed = &seed
	if ro.ReferenceTime == nil && !rec.Episode.StartedAt.IsZero() {
		t := rec.Episode.StartedAt
		ro.ReferenceTime = &t
	}
}

// fidelity adds the archive's report to rep, its steps mapped to the
// stored ones.
func (rep *Report) fidelity(arch *dataset.Archive, engineStep map[int]int) {
	f := arch.Fidelity()
	for i := range f.Steps {
		if k, ok := engineStep[f.Steps[i].Step]; ok {
			f.Steps[i].Step = k
		}
	}
	rep.Fidelity = &f
	for i := range rep.Steps {
		st := f.Step(rep.Steps[i].Step)
		rep.Steps[i].Requests = &st
	}
	rep.Hermetic = f.Line(rep.Matched, rep.Compared)
	if !f.Hermetic {
		rep.OK = false
	}
}

func (rep *Report) add(r StepResult) {
	rep.Steps = append(rep.Steps, r)
	if r.Verdict == dataset.VerdictMatch || r.Verdict == dataset.VerdictDiverged || r.Verdict == dataset.VerdictUnreliable {
		rep.Compared++
	}
	if r.Verdict == dataset.VerdictMatch {
		rep.Matched++
	}
	if rep.progress != nil {
		rep.progress(r)
	}
}

// StoredRun is the report as the store keeps it (dataset.ReplayRun), with
// the replaying engine's description. runErr is Run's error, if any: the
// replay could not run, or was cancelled, after the steps reported.
func (rep *Report) StoredRun(info engine.Info, runErr error) dataset.ReplayRun {
	started := rep.StartedAt
	if started.IsZero() {
		started = time.Now()
	}
	ended := started.Add(time.Duration(rep.ElapsedMS) * time.Millisecond)
	ej, _ := json.Marshal(info)
	r := dataset.ReplayRun{EpisodeID: rep.EpisodeID, StartedAt: started, EndedAt: &ended, EngineJSON: string(ej), Display: info.Display,
		Matched: rep.Matched, Compared: rep.Compared, FirstDiverged: rep.FirstDivergence,
		Warning: strings.Join(rep.Warnings, "\n"), Error: rep.Stopped, Steps: make([]dataset.ReplayStep, len(rep.Steps)), Fidelity: rep.Fidelity}
	for i, s := range rep.Steps {
		r.Steps[i] = dataset.ReplayStep{Step: s.Step, Action: s.Action, Verdict: s.Verdict, Score: s.Score, Why: s.Why}
	}
	switch {
	case errors.Is(runErr, context.Canceled) && len(rep.Steps) == 0:
		r.Error = "cancelled before the start page opened"
	case errors.Is(runErr, context.Canceled):
		r.Error = fmt.Sprintf("cancelled after step %d, with %d of %d actions replayed", rep.Steps[len(rep.Steps)-1].Step, len(rep.Steps)-1, rep.StoredSteps)
	case runErr != nil:
		r.Error = runErr.Error()
	}
	return r
}
