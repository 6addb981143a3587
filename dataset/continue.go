package dataset

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"waymark/engine/action"
)

// Continuing a stored episode: the Record screen resumes an interrupted
// episode (the same episode goes on) or branches one (a new episode whose
// first steps repeat the parent's). Either way the stored actions are
// replayed into a fresh browser first; this file is the store's side: which
// episodes may be resumed, reopening one, and whether a stored prefix can
// be replayed at all.

// ErrNotResumable marks an episode that cannot be reopened: it is not
// interrupted, another running Waymark owns it, or it was reviewed.
var ErrNotResumable = errors.New("the episode cannot be resumed")

// ResumableEpisodes lists annotator's interrupted episodes that
// ReopenEpisode would accept, newest first, at most limit (0: all).
func (s *Store) ResumableEpisodes(ctx context.Context, annotator string, limit int) ([]Episode, error) {
	if strings.TrimSpace(annotator) == "" {
		return nil, nil
	}
	eps, err := s.ListEpisodes(context.Background(), EpisodeFilter{Status: StatusInterrupted, Annotator: annotator})
	if err != nil {
		return nil, err
	}
	var out []Episode
	for _, e := range eps {
		if s.resumeRefusal(e) != "" {
			continue
		}
		if n, err := s.reviewCount(ctx, e.ID); err != nil {
			return nil, err
		} else if n > 0 {
			continue
		}
		out = append(out, e)
		if limit > 0 && len(out) == limit {
			break
		}
	}
	return out, nil
}

// resumeRefusal says why e cannot be reopened, ignoring reviews ("" when it
// can).
func (s *Store) resumeRefusal(e Episode) string {
	switch e.Status {
	case StatusInterrupted:
	case StatusRecording:
		return "it is being recorded right now (in this or another Waymark)"
	default:
		return fmt.Sprintf("it is %s, and only an interrupted episode can be resumed (continue a finished one from one of its steps instead)", e.Status)
	}
	last := e.StartedAt
	if e.EndedAt != nil {
		last = *e.EndedAt
	}
	if e.Owner != "" && e.Owner != s.owner && ownerAlive(e.Owner, last) {
		return "the Waymark that recorded it is still running (" + ownerPlace(e.Owner) + "): resume it there, or close that program first"
	}
	return ""
}

// ownerPlace names an owner for people: "pid 123 on host".
func ownerPlace(owner string) string {
	p := strings.SplitN(owner, "|", 3)
	if len(p) < 2 {
		return owner
	}
	return "process " + p[1] + " on " + p[0]
}

func (s *Store) reviewCount(ctx context.Context, id string) (int, error) {
	var n int
	err := s.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM reviews WHERE episode_id=?`, id).Scan(&n)
	return n, err
}

// Reopened is what ReopenEpisode changed, so UndoReopen can put it back.
type Reopened struct {
	ID string
	// The episode's status fields before it was reopened.
	prevOwner  string
	prevReason action.EndReason
	prevEnded  sql.NullString
}

// ReopenEpisode makes an interrupted episode recording again, owned by this
// process, its end reason and end time cleared; its steps are untouched and
// the next step goes after the last stored one (NextStepIndex). It refuses
// (wrapping ErrNotResumable) an episode that is not interrupted, one whose
// recording Waymark still runs, and one a reviewer has labelled (going on
// would change what was reviewed). Two programs reopening the same episode
// at once: one wins, the other is refused.
func (s *Store) ReopenEpisode(ctx context.Context, id string) (Reopened, error) {
	e, err := s.GetEpisode(context.Background(), id)
	if err != nil {
		return Reopened{}, err
	}
	if why := s.resumeRefusal(e); why != "" {
		return Reopened{}, fmt.Errorf("%w: episode %s: %s", ErrNotResumable, id, why)
	}
	if n, err := s.reviewCount(ctx, id); err != nil {
		return Reopened{}, err
	} else if n > 0 {
		return Reopened{}, fmt.Errorf("%w: episode %s was already reviewed (%s), and going on would change what was labelled; continue it from its last step as a new episode instead",
			ErrNotResumable, id, pluralWord(n, "review"))
	}
	r := Reopened{ID: id}
	if err := s.db.QueryRowContext(ctx, `SELECT owner, end_reason, ended_at FROM episodes WHERE id=?`, id).Scan(&r.prevOwner, &r.prevReason, &r.prevEnded); err != nil {
		return Reopened{}, err
	}
	res, err := s.db.ExecContext(ctx, `UPDATE episodes SET status='recording', owner=?, end_reason='', ended_at=NULL
		WHERE id=? AND status='interrupted' AND owner=?`, s.owner, id, r.prevOwner)
	if err != nil {
		return Reopened{}, s.explainWriteError(err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return Reopened{}, fmt.Errorf("%w: episode %s was changed meanwhile (another Waymark may have resumed it); look at it in Review", ErrNotResumable, id)
	}
	return r, nil
}

// UndoReopen puts a reopened episode back as it was (interrupted, its old
// owner, end reason and end time), when going on failed before any step was
// recorded into it. An episode no longer recording is left alone.
func (s *Store) UndoReopen(ctx context.Context, r Reopened) error {
	if r.ID == "" {
		return nil
	}
	var ended any
	if r.prevEnded.Valid {
		ended = r.prevEnded.String
	} else {
		ended = now()
	}
	reason := r.prevReason
	if reason == "" {
		reason = action.EndInterrupted
	}
	_, err := s.db.ExecContext(ctx, `UPDATE episodes SET status='interrupted', owner=?, end_reason=?, ended_at=? WHERE id=? AND status='recording'`,
		r.prevOwner, reason, ended, r.ID)
	return s.explainWriteError(err)
}

// CheckContinue says whether episode id's kept steps 1..k can be replayed to
// continue it (resume at its last step, or branch at step k): k must be one
// of its steps, neither removed nor the one that ended the episode, and no kept step up to k may be a
// secret typed into a password or payment field (stored redacted, so it
// cannot be typed again). The error says what to choose instead.
func (s *Store) CheckContinue(ctx context.Context, id string, k int) error {
	steps, err := s.Steps(ctx, id)
	if err != nil {
		return err
	}
	if len(steps) == 0 {
		return fmt.Errorf("episode %s has no stored steps, so there is nothing to continue from", id)
	}
	last := steps[len(steps)-1].Index
	if k < 0 || k > last {
		return fmt.Errorf("episode %s has no step %d (its steps are 0–%d); choose one of its steps", id, k, last)
	}
	for _, st := range steps {
		if st.Index == k && st.Removed {
			return fmt.Errorf("step %d of episode %s was removed from the episode; continue from a kept step (step %d or earlier)", k, id, prevKept(steps, k))
		}
		if st.Index == k && st.Done && k > 0 {
			return fmt.Errorf("step %d of episode %s ended the episode, so nothing can follow it; continue from step %d or earlier", k, id, prevKept(steps, k))
		}
	}
	for _, st := range steps {
		if st.Index > k {
			break
		}
		if st.Removed || st.Index == 0 {
			continue
		}
		if st.Action == nil {
			return fmt.Errorf("step %d of episode %s has an action that cannot be read (%q), so it cannot be replayed; continue from step %d or earlier",
				st.Index, id, st.ActionJSON, prevKept(steps, st.Index))
		}
		if st.Action.IsRedacted() {
			return fmt.Errorf("step %d of episode %s typed a secret (a password or card field) that was not stored, so the page cannot be brought back past it; continue from step %d or earlier",
				st.Index, id, prevKept(steps, st.Index))
		}
	}
	return nil
}

// prevKept is the last kept step before idx (0 at least).
func prevKept(steps []Step, idx int) int {
	k := 0
	for _, st := range steps {
		if st.Index >= idx {
			break
		}
		if !st.Removed {
			k = st.Index
		}
	}
	return k
}

// LastKeptStep is the index of episode id's last kept step (0 when only
// the start page is kept).
func (s *Store) LastKeptStep(ctx context.Context, id string) (int, error) {
	var k sql.NullInt64
	if err := s.db.QueryRowContext(ctx, `SELECT MAX(idx) FROM steps WHERE episode_id=? AND removed=0`, id).Scan(&k); err != nil {
		return 0, err
	}
	if !k.Valid {
		if _, err := s.GetEpisode(context.Background(), id); err != nil {
			return 0, err
		}
		return 0, fmt.Errorf("episode %s has no stored steps", id)
	}
	return int(k.Int64), nil
}

func pluralWord(n int, w string) string {
	if n == 1 {
		return "1 " + w
	}
	return fmt.Sprintf("%d %ss", n, w)
}
