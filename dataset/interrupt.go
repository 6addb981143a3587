package dataset

import "context"

import "waymark/engine/action"

// Interrupt ends the current episode, if it is recording, as interrupted
// with reason as its end reason (e.g. action.EndLeaseExpired: the session lost its
// remote browser); its steps are kept and the recorder records no more of
// it. The next Reset starts a new episode.
func (r *Recorder) Interrupt(reason action.EndReason) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.ep == "" || (!r.open && r.failed == nil) {
		return nil
	}
	r.open = false
	return r.store.interruptWith(context.Background(), r.ep, reason)
}

// interruptWith marks a recording episode interrupted with reason.
func (s *Store) interruptWith(ctx context.Context, id string, reason action.EndReason) error {
	if _, err := s.db.ExecContext(ctx, `UPDATE episodes SET status='interrupted', end_reason=?, ended_at=COALESCE(ended_at, ?) WHERE id=? AND status='recording'`,
		reason, now(), id); err != nil {
		return s.explainWriteError(err)
	}
	return nil
}
