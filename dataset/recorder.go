package dataset

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"

	"waymark/engine"
	"waymark/engine/action"
)

// SourceAdhoc is the source of tasks the recorder makes for a start URL
// when it is given no task.
const SourceAdhoc = "adhoc"

// RecorderOptions say what the recorder's episodes are of and by whom.
type RecorderOptions struct {
	// TaskID is the task of the episodes. When empty, the recorder uses (or
	// makes) an ad-hoc task for each Reset's start URL, with Goal and
	// Category below.
	TaskID string
	// Annotator is the person's name, or "agent:NAME" for an agent.
	Annotator string
	// Goal and Category of ad-hoc tasks (defaults: "Browse <url>" and
	// navigation).
	Goal, Category string
}

// ErrNotSaved wraps every error of a step or reset that was done by the
// engine but could not be written to the store.
var ErrNotSaved = errors.New("not saved")

// Recorder wraps an engine and writes every observation to the store before
// returning it: Reset creates the episode and commits step 0, every Step
// commits its step, each in its own transaction. It is an engine.Engine
// itself, so the live view and the OpenEnv server use it in place of the
// engine, and it streams the inner engine's live frames when it has them.
type Recorder struct {
	store *Store
	eng   engine.Engine

	// op serialises Reset, Step and Close (the engine runs one at a time);
	// mu guards the fields below and is never held while the engine works,
	// so EpisodeID, Recording and Discard answer at once during a step.
	op        sync.Mutex
	mu        sync.Mutex
	opts      RecorderOptions
	ep        string // current (or last) episode
	next      int    // index of the next step
	open      bool   // the episode is recording
	discarded bool   // the current episode was discarded
	keep      bool   // the episode's task keeps secrets (Task.KeepSecrets)
	failed    error  // a write failure that stopped the episode's recording
	closed    bool
	// ro are the reset options of the current episode (its task's start
	// page and clock), so Undo can bring a fresh page back.
	ro engine.ResetOptions
	// har is the network capture's bookkeeping (har.go).
	har harRec
}

var (
	_ engine.Engine     = (*Recorder)(nil)
	_ engine.LiveFrames = (*Recorder)(nil)
)

// NewRecorder wraps eng. Nothing is written until Reset.
func NewRecorder(s *Store, eng engine.Engine, opts RecorderOptions) *Recorder {
	return &Recorder{store: s, eng: eng, opts: opts}
}

// SetTask changes the task of the next episode (the current one keeps its).
func (r *Recorder) SetTask(taskID string) {
	r.mu.Lock()
	r.opts.TaskID = taskID
	r.mu.Unlock()
}

// SetAnnotator changes the annotator of the next episode.
func (r *Recorder) SetAnnotator(name string) {
	r.mu.Lock()
	r.opts.Annotator = name
	r.mu.Unlock()
}

// EpisodeID is the current (or last) episode's id, "" before the first Reset.
func (r *Recorder) EpisodeID() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.ep
}

// Recording reports whether an episode is open and being recorded.
func (r *Recorder) Recording() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.open && r.failed == nil
}

// Inner is the wrapped engine.
func (r *Recorder) Inner() engine.Engine { return r.eng }

// RecorderOf returns eng as the Recorder it is, if it records into a store:
// callers holding an engine ask this room instead of switching on its type.
func RecorderOf(eng engine.Engine) (*Recorder, bool) {
	r, ok := eng.(*Recorder)
	return r, ok
}

// task resolves the episode's task and fills the reset options from it.
func (r *Recorder) task(ro RecorderOptions, opts *engine.ResetOptions) (Task, error) {
	if ro.TaskID != "" {
		t, err := r.store.GetTask(context.Background(), ro.TaskID)
		if err != nil {
			return Task{}, err
		}
		if strings.TrimSpace(opts.StartURL) == "" {
			opts.StartURL = t.StartURL
		}
		if opts.Check == nil {
			opts.Check = t.Check
		}
		TaskResetOptions(t, opts)
		taskManifestOptions(t, opts)
		return t, nil
	}
	if strings.TrimSpace(opts.StartURL) == "" {
		return Task{}, errors.New("no task and no start URL: choose a task, or give a start URL")
	}
	goal := ro.Goal
	if goal == "" {
		// A long address is cut to fit a goal: the task keeps it whole.
		goal = "Browse " + strings.TrimSpace(opts.StartURL)
		if len(goal) > maxGoalLen {
			goal = strings.ToValidUTF8(goal[:maxGoalLen-len("…")], "") + "…"
		}
	}
	cat := ro.Category
	if cat == "" {
		cat = Navigation
	}
	return r.store.EnsureTask(context.Background(), Task{Goal: goal, Category: cat, StartURL: opts.StartURL, Source: SourceAdhoc, Check: opts.Check})
}

// Reset starts a new episode: the engine resets, then the episode (status
// recording, action set and engine details) and step 0 are committed in one
// transaction before the observation is returned. An episode still
// recording is marked interrupted first.
func (r *Recorder) Reset(ctx context.Context, opts engine.ResetOptions) (engine.Observation, error) {
	return r.reset(ctx, opts, "", nil)
}

// ResetBranch is Reset for a branch: the new episode names parentID as its
// parent and k as the parent's step it continues from (see
// Episode.ParentEpisodeID). The caller then steps the parent's actions up
// to k through the recorder, so they are stored as the branch's first
// steps, and discards the branch if they do not lead where they led.
func (r *Recorder) ResetBranch(ctx context.Context, opts engine.ResetOptions, parentID string, k int) (engine.Observation, error) {
	if strings.TrimSpace(parentID) == "" {
		return engine.Observation{}, errors.New("a branch needs the episode it continues from")
	}
	return r.reset(ctx, opts, parentID, &k)
}

// takeOver ends the episode being recorded, if any, for a new start (a
// reset or a resume) and returns the recorder's options; the caller holds
// r.op. A closed recorder refuses.
func (r *Recorder) takeOver() (RecorderOptions, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return RecorderOptions{}, errors.New("the recorder is closed")
	}
	ro := r.opts
	r.stopCurrent()
	return ro, nil
}

func (r *Recorder) reset(ctx context.Context, opts engine.ResetOptions, parentID string, branch *int) (engine.Observation, error) {
	r.op.Lock()
	defer r.op.Unlock()
	ro, err := r.takeOver()
	if err != nil {
		return engine.Observation{}, err
	}
	if strings.TrimSpace(ro.Annotator) == "" {
		return engine.Observation{}, errors.New("no annotator: set your name before recording (or agent:NAME for an agent)")
	}
	t, err := r.task(ro, &opts)
	if err != nil {
		return engine.Observation{}, err
	}
	if opts.EpisodeID == "" {
		opts.EpisodeID = uuid.NewString()
	} else if _, err := r.store.GetEpisode(ctx, opts.EpisodeID); err == nil {
		opts.EpisodeID = uuid.NewString() // ids are never reused
	}
	r.harFlush(-1, 0, true) // the previous episode's last requests
	obs, err := r.eng.Reset(ctx, opts)
	if err != nil {
		return obs, err
	}
	info := r.eng.Info()
	ij, _ := json.Marshal(info)
	set := info.ActionSet
	if set == "" {
		set = action.SetDefault
	}
	ep := Episode{ID: opts.EpisodeID, TaskID: t.ID, Annotator: ro.Annotator, ActionSet: set, EngineJSON: string(ij),
		ParentEpisodeID: parentID, BranchStep: branch}
	if t.Source == SourceExplore {
		ep.Intent = IntentExploration // a free recording: its task only names the start page
	}
	// What the browser did is stored even if the caller gave up as the
	// reset returned: never its cancellation.
	keep := context.WithoutCancel(ctx)
	if err := r.saveReset(keep, ep, obs); err != nil {
		return engine.Observation{}, fmt.Errorf("the episode could not be saved, so it was not started: %w", err)
	}
	_ = r.store.saveValidation(keep, ep.ID, obs.Validation) // a hint; the observation carries it too
	r.mu.Lock()
	r.ep, r.next, r.open, r.failed, r.discarded, r.keep = ep.ID, 1, !obs.Done, nil, false, t.KeepSecrets
	r.ro = opts
	r.mu.Unlock()
	r.harStart(ep.ID, obs.Done)
	return obs, nil
}

func (r *Recorder) saveReset(ctx context.Context, ep Episode, obs engine.Observation) error {
	s := r.store
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrNotSaved, s.explainWriteError(err))
	}
	defer tx.Rollback()
	if err := s.insertEpisode(ctx, tx, &ep); err != nil {
		return fmt.Errorf("%w: %w", ErrNotSaved, err)
	}
	if err := s.insertStep(ctx, tx, stepOf(ep.ID, 0, nil, "", obs)); err != nil {
		return fmt.Errorf("%w: %w", ErrNotSaved, err)
	}
	if obs.Done {
		if err := s.endEpisode(ctx, tx, ep.ID, endOf(obs)); err != nil {
			return fmt.Errorf("%w: %w", ErrNotSaved, s.explainWriteError(err))
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("%w: %w", ErrNotSaved, s.explainWriteError(err))
	}
	return nil
}

func stepOf(ep string, idx int, a *action.Action, actionJSON string, obs engine.Observation) Step {
	return Step{EpisodeID: ep, Index: idx, Action: a, ActionJSON: actionJSON, URL: obs.URL, Title: obs.Title,
		Error: string(obs.Error), Done: obs.Done, Screenshot: obs.Screenshot, Timings: obs.Timings, CreatedAt: time.Now(),
		Target: obs.Target, Extras: obs.Extras, Redaction: obs.Redaction}
}

func endOf(obs engine.Observation) episodeEnd {
	reason := obs.EndReason
	if reason == "" {
		reason = action.EndFinished
	}
	return episodeEnd{status: StatusFinished, reason: reason, answer: obs.Answer, finalURL: obs.URL, reward: obs.Reward}
}

// Step performs one action and commits its step before returning. An
// invalid action (*action.ValidationError) is returned as is and nothing is
// recorded. When the observation ends the episode, the same transaction sets
// the episode finished with its end reason, final answer, final URL and
// automatic reward. If the step cannot be written (disk full, database
// locked), the error wraps ErrNotSaved, the step is not reported, and the
// episode's recording stops with every earlier step kept. The text of a type
// action that went into a password or payment field (obs.Redacted) is
// stored as action.RedactedText unless the task keeps secrets. The
// observation's Step is the stored step's index: the engine's count, unless
// steps were undone or the episode was resumed past removed steps.
func (r *Recorder) Step(ctx context.Context, a engine.Action) (engine.Observation, error) {
	return r.StepAs(ctx, a, "")
}

// StepAs is Step with the step stored as actor's ("agent:NAME" or
// "human:NAME"; "" is the episode's annotator, as Step): a person who took
// over an agent's episode acts in it as "human:NAME".
func (r *Recorder) StepAs(ctx context.Context, a engine.Action, actor string) (engine.Observation, error) {
	if actor != "" {
		if err := CheckActor(actor); err != nil {
			return engine.Observation{}, err
		}
	}
	r.op.Lock()
	defer r.op.Unlock()
	r.mu.Lock()
	closed, failed, open, discarded, ep, idx, keep := r.closed, r.failed, r.open, r.discarded, r.ep, r.next, r.keep
	r.mu.Unlock()
	switch {
	case closed:
		return engine.Observation{}, errors.New("the recorder is closed")
	case failed != nil:
		return engine.Observation{}, fmt.Errorf("recording of this episode stopped after a step could not be saved (%v); its %d saved steps are kept — start a new episode", failed, idx)
	case discarded:
		return engine.Observation{}, errors.New("this episode was discarded; start a new episode to record again")
	case !open:
		// Nothing to record into: let the engine answer (it refuses steps
		// before a reset and after the end).
		return r.eng.Step(ctx, a)
	}
	aj, err := a.MarshalJSON()
	if err != nil {
		return engine.Observation{}, err
	}
	obs, err := r.eng.Step(ctx, a)
	if err != nil {
		var verr *action.ValidationError
		if a.Op == action.Finish && a.Text != "" && !errors.As(err, &verr) {
			// The finish did not reach the engine (e.g. the OpenEnv
			// server went away): the person's answer is kept with the
			// episode, which ends as interrupted.
			if serr := r.store.SetEpisodeAnswer(context.WithoutCancel(ctx), ep, a.Text); serr != nil {
				err = errors.Join(err, fmt.Errorf("the answer could not be kept: %w", serr))
			}
		}
		return obs, err
	}
	if obs.Redacted && !keep {
		a = a.Redact()
		if aj, err = a.MarshalJSON(); err != nil {
			return engine.Observation{}, err
		}
	}
	st := stepOf(ep, idx, &a, string(aj), obs)
	st.Actor = actor
	if obs.Redacted && !keep {
		st.Extras = redactExtras(st.Extras, a)
	}
	var end *episodeEnd
	if obs.Done {
		e := endOf(obs)
		end = &e
	}
	// What the browser did is stored even if the caller gave up as the step
	// returned (a dropped connection, a closed window): never its cancellation.
	werr := r.store.appendStep(context.WithoutCancel(ctx), st, end)
	if werr == nil {
		r.harFlush(obs.Step, idx, obs.Done)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if werr != nil {
		r.failed = werr
		return engine.Observation{}, fmt.Errorf("step %d (%s) was done in the browser but %w: %w; recording of this episode stopped, its %d earlier steps are kept",
			idx, a.String(), ErrNotSaved, werr, idx)
	}
	r.next = idx + 1
	_ = r.store.saveValidation(context.WithoutCancel(ctx), ep, obs.Validation) // a hint; the step is saved and the observation carries it
	if obs.Done {
		r.open = false
	}
	obs.Step = idx
	return obs, nil
}

// stopCurrent marks a recording (or failed) episode interrupted; a failure
// to do so is harmless: the next Open after this program ends does it.
// r.mu is held.
func (r *Recorder) stopCurrent() error {
	if r.ep == "" || (!r.open && r.failed == nil) {
		return nil
	}
	r.open = false
	return r.store.InterruptEpisode(context.Background(), r.ep)
}

// Discard marks the current (or last) episode discarded; its steps are kept.
// The next Reset starts a new episode.
func (r *Recorder) Discard() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.ep == "" {
		return errors.New("there is no episode to discard")
	}
	if err := r.store.DiscardEpisode(context.Background(), r.ep); err != nil {
		return err
	}
	r.open, r.failed, r.discarded = false, nil, true
	// An engine that records the episode elsewhere too (an OpenEnv
	// server) is told, so both stores agree.
	if d, ok := r.eng.(interface{ Discard() error }); ok {
		return d.Discard()
	}
	return nil
}

// State is the engine's.
func (r *Recorder) State() engine.State { return r.eng.State() }

// Info is the engine's.
func (r *Recorder) Info() engine.Info { return r.eng.Info() }

// Frames forwards the inner engine's live frames; if it has none, the
// channel is closed at once.
func (r *Recorder) Frames() <-chan engine.Frame {
	if lf, ok := engine.As[engine.LiveFrames](r.eng); ok {
		return lf.Frames()
	}
	ch := make(chan engine.Frame)
	close(ch)
	return ch
}

// Close closes the engine (aborting a step in progress) and marks an
// episode still recording interrupted. It is safe to call more than once.
func (r *Recorder) Close() error {
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return nil
	}
	r.closed = true
	r.mu.Unlock()
	// Close the engine first: it aborts a step in progress, which then
	// returns without recording anything.
	cerr := r.eng.Close()
	r.op.Lock()
	defer r.op.Unlock()
	r.harFlush(-1, 0, true)
	r.mu.Lock()
	defer r.mu.Unlock()
	return errors.Join(r.stopCurrent(), cerr)
}
