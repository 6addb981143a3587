package dataset

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"waymark/engine"
)

// How the recorder goes back to an earlier state of an episode: Resume
// (an interrupted episode recorded on) and Undo (its newest kept step removed),
// each by replaying the kept steps in a fresh engine (BringBack).

// BringBack brings a fresh page to where a stored episode's kept steps
// led: it resets inner (the engine the recorder wraps) with opts — the
// episode's task's start page and clock — and replays the kept steps of
// episodeID up to its last one, checking each against the stored one. It
// returns the last observation and the index of the last step replayed,
// or an error that says which step diverged and why. dataset/replay's
// Prefix does the replaying; the recorder only calls it.
type BringBack func(ctx context.Context, inner engine.Engine, opts engine.ResetOptions, episodeID string) (last engine.Observation, k int, err error)

// Resume goes on recording an interrupted episode: bringBack replays its
// kept steps in the fresh engine, then the episode is reopened (recording
// again, owned by this process; see Store.ReopenEpisode), the audit log
// gets a 'resume' row at the last replayed step, and the next Step is
// stored after the episode's last stored step (NextStepIndex). Until the
// replay has succeeded nothing is written: an episode whose steps do not
// lead where they led stays interrupted as it was. Only the recorder's
// annotator may resume their episode.
func (r *Recorder) Resume(ctx context.Context, episodeID string, bringBack BringBack) (engine.Observation, error) {
	r.op.Lock()
	defer r.op.Unlock()
	ro, err := r.takeOver()
	if err != nil {
		return engine.Observation{}, err
	}
	s := r.store
	ep, err := s.GetEpisode(ctx, episodeID)
	if err != nil {
		return engine.Observation{}, err
	}
	if strings.TrimSpace(ro.Annotator) == "" {
		return engine.Observation{}, errors.New("no annotator: set your name before resuming an episode")
	}
	if ep.Annotator != ro.Annotator {
		return engine.Observation{}, fmt.Errorf("%w: episode %s was recorded by %s, not %s; only its annotator can go on with it (continue it from a step as a new episode instead)",
			ErrNotResumable, episodeID, ep.Annotator, ro.Annotator)
	}
	if why := s.resumeRefusal(ep); why != "" {
		return engine.Observation{}, fmt.Errorf("%w: episode %s: %s", ErrNotResumable, episodeID, why)
	}
	k, err := s.LastKeptStep(ctx, episodeID)
	if err != nil {
		return engine.Observation{}, err
	}
	if err := s.CheckContinue(ctx, episodeID, k); err != nil {
		return engine.Observation{}, fmt.Errorf("%w: %w", ErrNotResumable, err)
	}
	t, err := s.GetTask(ctx, ep.TaskID)
	if err != nil {
		return engine.Observation{}, err
	}
	opts := engine.ResetOptions{StartURL: t.StartURL, Check: t.Check, EpisodeID: episodeID}
	TaskResetOptions(t, &opts)
	r.harFlush(-1, 0, true)
	obs, replayed, err := bringBack(ctx, r.eng, opts, episodeID)
	if err != nil {
		return obs, err
	}
	r.harRestart(episodeID)
	reo, err := s.ReopenEpisode(ctx, episodeID)
	if err != nil {
		return engine.Observation{}, err
	}
	if err := s.MarkResumed(ctx, episodeID, replayed, ro.Annotator); err != nil {
		return engine.Observation{}, errors.Join(fmt.Errorf("the episode could not be marked resumed, so it was left interrupted: %w", err), s.UndoReopen(context.WithoutCancel(ctx), reo))
	}
	next, err := s.NextStepIndex(ctx, episodeID)
	if err != nil {
		return engine.Observation{}, errors.Join(err, s.InterruptEpisode(context.WithoutCancel(ctx), episodeID))
	}
	r.mu.Lock()
	r.ep, r.next, r.open, r.failed, r.discarded, r.keep = episodeID, next, !obs.Done, nil, false, t.KeepSecrets
	r.ro = opts
	r.mu.Unlock()
	if obs.Done {
		// The replayed page ended the episode (it should not: the stored
		// one went on); nothing can be recorded into it.
		return obs, errors.Join(fmt.Errorf("the replayed episode ended at step %d (%s), so it cannot go on", replayed, obs.EndReason), s.InterruptEpisode(context.WithoutCancel(ctx), episodeID))
	}
	return obs, nil
}

// Undo removes the episode's newest kept step (Store.UndoStep: the step
// stays stored, marked removed, and the audit log says who undid it), then
// brings the page back with bringBack: a fresh page replaying the kept
// steps. Recording goes on after the episode's last stored step. It
// returns the undone step's index. Refused (nothing changed) when the
// episode is not recording or only its start page is kept. If the page
// cannot be brought back, the episode stops and is saved as interrupted:
// the step stays undone and every stored step is kept.
func (r *Recorder) Undo(ctx context.Context, bringBack BringBack) (int, engine.Observation, error) {
	r.op.Lock()
	defer r.op.Unlock()
	r.mu.Lock()
	closed, failed, open, ep, ro, opts := r.closed, r.failed, r.open, r.ep, r.opts, r.ro
	r.mu.Unlock()
	switch {
	case closed:
		return 0, engine.Observation{}, errors.New("the recorder is closed")
	case failed != nil:
		return 0, engine.Observation{}, fmt.Errorf("recording of this episode stopped after a step could not be saved (%v); nothing to undo", failed)
	case !open:
		return 0, engine.Observation{}, errors.New("no episode is being recorded: there is nothing to undo")
	}
	s := r.store
	last, err := s.LastKeptStep(ctx, ep)
	if err != nil {
		return 0, engine.Observation{}, err
	}
	if last == 0 {
		return 0, engine.Observation{}, errors.New("there is no step to undo: only the start page is recorded")
	}
	// Refuse before changing anything when the steps before the undone one
	// cannot be replayed (a secret that was not stored).
	if err := s.CheckContinue(ctx, ep, prevKeptIndex(ctx, s, ep, last)); err != nil {
		return 0, engine.Observation{}, fmt.Errorf("step %d cannot be undone: %w", last, err)
	}
	idx, err := s.UndoStep(ctx, ep, ro.Annotator)
	if err != nil {
		return 0, engine.Observation{}, err
	}
	r.harFlush(-1, 0, true)
	obs, _, err := bringBack(ctx, r.eng, opts, ep)
	r.harRestart(ep)
	if err == nil && obs.Done {
		err = fmt.Errorf("the replayed page ended the episode (%s)", obs.EndReason)
	}
	if err != nil {
		r.mu.Lock()
		ierr := r.stopCurrent()
		r.mu.Unlock()
		return idx, obs, errors.Join(fmt.Errorf("step %d was undone (it stays stored, marked removed), but the page could not be brought back: %w; "+
			"the episode was stopped and saved as interrupted with every step kept — restart the task, or resume the episode later", idx, err), ierr)
	}
	next, err := s.NextStepIndex(ctx, ep)
	if err != nil {
		next = idx + 1
	}
	r.mu.Lock()
	r.next = max(next, idx+1)
	r.mu.Unlock()
	return idx, obs, nil
}

// prevKeptIndex is the last kept step before idx (0 when there is none or
// the steps cannot be read: CheckContinue then checks only the start).
func prevKeptIndex(ctx context.Context, s *Store, ep string, idx int) int {
	steps, err := s.Steps(ctx, ep)
	if err != nil {
		return 0
	}
	return prevKept(steps, idx)
}
