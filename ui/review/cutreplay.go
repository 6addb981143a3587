package review

import (
	"context"
	"errors"
	"fmt"

	"waymark/dataset"
	"waymark/dataset/replay"
)

// A task cut from an exploration replays from its start state: Replay (or
// R) runs replay.CheckCut in a fresh browser set up as the exploration was
// (its action set, display and step limit): the exploration's steps before
// the span, then the span's, offline from the exploration's recorded
// traffic when it kept it. The verdicts are stored as a replay run of the
// cut, numbered as its steps, and the cut's check (replayable or not, and
// its text key points on the replayed page) is updated and shown in the
// label form and the queue.

// follows notes whether ep is a cut and whose traffic serves it offline.
func (r *replayPanel) follows(ep *dataset.Episode) {
	r.cut = ep.Intent == dataset.IntentHindsight && ep.ExplorationID != ""
	r.archID = ep.ID
	if r.cut {
		r.archID = ep.ExplorationID
	}
}

// runCut is the background replay of cut id from its start state; its
// reports reach the panel as run's do.
func (r *replayPanel) runCut(ctx context.Context, gen int, id string, offline bool) {
	defer r.wg.Done()
	life, store := r.p.t.life, r.p.t.store
	do := func(f func()) {
		r.p.t.ctx.UI().Do(func() {
			if life.Err() == nil && gen == r.gen {
				f()
			}
		})
	}
	fail := func(msg string) { do(func() { r.finish(nil, errors.New(msg)) }) }
	cancelled := func() bool {
		if ctx.Err() != nil {
			fail("Cancelled: the cut's check was not stored.")
			return true
		}
		return false
	}
	cut, err := store.GetEpisode(ctx, id)
	if err != nil {
		if !cancelled() {
			fail("Cannot replay this cut: " + err.Error())
		}
		return
	}
	rec, err := replay.Load(ctx, store, cut.ExplorationID)
	if err != nil {
		if !cancelled() {
			fail("Cannot replay this cut: the exploration it was cut from: " + err.Error())
		}
		return
	}
	// The start state's step and the span's kept steps are compared.
	total := 1
	for _, s := range rec.Steps {
		if s.Index >= cut.SpanFrom && s.Index <= cut.SpanTo && !s.Removed {
			total++
		}
	}
	do(func() { r.total, r.last = total, total-1 })
	eng, err := r.opts.Open(ctx, rec)
	if err != nil {
		if !cancelled() {
			fail("Cannot start a browser for the replay: " + err.Error())
		}
		return
	}
	var opts replay.CutCheckOptions
	from := "online"
	if offline {
		if opts.Archive, err = store.EpisodeArchive(ctx, cut.ExplorationID); err != nil {
			eng.Close()
			fail("Cannot replay this cut offline: " + err.Error())
			return
		}
		from = "offline, from the exploration's recorded traffic"
	}
	phase := "the start state"
	opts.OnStep = func(p replay.PrefixProgress) {
		if p.Result != nil {
			return
		}
		if p.Step >= cut.SpanFrom {
			phase = "the cut's steps"
		}
		msg := fmt.Sprintf("Replaying %s (%s): the exploration's step %d…", phase, from, p.Step)
		do(func() { r.setStatus(msg, false) })
	}
	do(func() {
		r.setStatus(fmt.Sprintf("Replaying the start state (%s): the exploration's steps before %d…", from, cut.SpanFrom), false)
	})
	h, err := replay.CheckCut(ctx, store, eng, id, opts)
	eng.Close()
	if life.Err() != nil {
		return // the screen closed: nothing is shown
	}
	if err != nil {
		if !cancelled() {
			fail("The cut could not be checked: " + err.Error())
		}
		return
	}
	var saved *dataset.ReplayRun
	if runs, err := store.ReplayRuns(life, id); err == nil {
		for i := range runs {
			if runs[i].ID == h.Replay.RunID {
				saved = &runs[i]
			}
		}
	}
	do(func() { r.finishCut(saved, h) })
}

// finishCut shows the cut's check once its replay ended, in the panel, the
// label form and the queue.
func (r *replayPanel) finishCut(run *dataset.ReplayRun, h *dataset.HindsightCheck) {
	r.finish(run, nil)
	bad := !h.Replayable() || h.KeyPointsFailed() > 0
	msg := "Cut checked: " + h.Summary() + "."
	if run != nil {
		msg += " " + runSummary(*run)
	}
	r.setStatus(msg, bad)
	t := r.p.t
	if ep := r.p.ep; ep != nil && ep.ID == r.epID {
		t.form.origin.load()
	}
	t.queue.afterSave()
}
