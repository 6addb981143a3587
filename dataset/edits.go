package dataset

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"iter"
	"strings"
	"time"
	"unicode/utf8"
)

// Edited episodes. Steps are never deleted: an undo while recording, or a
// reviewer's removal or trim, sets a step's removed flag; a restore clears
// it. Each edit adds a row to the audit log (episode_edits: who, when, why)
// in the same transaction, which also keeps episodes.num_steps equal to the
// number of kept action steps (step 0 is not counted). The edited episode
// is its kept steps in index order (EditedSteps); removed steps keep their
// index, so a recorder that goes on after an undo takes NextStepIndex.

// EditKind is the kind of an audit log row.
type EditKind string

// The kinds of edits.
const (
	// EditUndo removed the newest kept step while the episode was recording.
	EditUndo EditKind = "undo"
	// EditRemove removed one step in review.
	EditRemove EditKind = "remove"
	// EditRestore kept a removed step again.
	EditRestore EditKind = "restore"
	// EditTrim removed every step after Step.
	EditTrim EditKind = "trim"
	// EditResume: recording went on after the episode was interrupted; its
	// steps up to Step were replayed first.
	EditResume EditKind = "resume"
	// EditRedact: a reviewer blacked out a box of Step's screenshot that
	// the redaction policy missed.
	EditRedact EditKind = "redact"
	// EditSpan: the span of a task cut from an exploration changed (a new
	// cut replaced this one, or this one replaced another; see
	// Store.AdjustSpan).
	EditSpan EditKind = "span"
)

// Edit is one row of an episode's audit log.
type Edit struct {
	ID        int64
	EpisodeID string
	// Step is the step edited; for a trim the last step kept, for a resume
	// the last step replayed.
	Step   int
	Kind   EditKind
	Editor string
	Reason string
	At     time.Time
}

// MaxNoteRunes bounds a step's note; MaxReasonRunes an edit's reason.
const (
	MaxNoteRunes   = 1000
	MaxReasonRunes = 2000
)

// cleanText trims s and refuses what a text field must not hold.
func cleanText(s, what string, max int) (string, error) {
	s = strings.TrimSpace(s)
	if !utf8.ValidString(s) {
		return "", fmt.Errorf("the %s is not valid UTF-8 text: type it again", what)
	}
	if strings.ContainsRune(s, 0) {
		return "", fmt.Errorf("the %s contains a NUL character: remove it", what)
	}
	if n := utf8.RuneCountInString(s); n > max {
		return "", fmt.Errorf("the %s is %d characters long; shorten it to %d or fewer", what, n, max)
	}
	return s, nil
}

func cleanNote(s string) (string, error) { return cleanText(s, "note", MaxNoteRunes) }

// edit runs fn in one write transaction after reading the episode's status
// and checking the editor and reason. review says the edit is a reviewer's
// (refused while the episode records: the recorder owns it).
func (s *Store) edit(ctx context.Context, episodeID, editor, reason string, review bool, fn func(tx *sql.Tx, status Status) error) error {
	editor = strings.TrimSpace(editor)
	if editor == "" {
		return errors.New("the edit has no editor: set your name in the settings first, so the audit log says who edited the episode")
	}
	if _, err := cleanText(reason, "reason", MaxReasonRunes); err != nil {
		return err
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return s.explainWriteError(err)
	}
	defer tx.Rollback()
	var status Status
	err = tx.QueryRowContext(ctx, `SELECT status FROM episodes WHERE id=?`, episodeID).Scan(&status)
	if errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("episode %s: %w", episodeID, ErrNotFound)
	}
	if err != nil {
		return s.explainWriteError(err)
	}
	if status == StatusDiscarded {
		return fmt.Errorf("episode %s was discarded: it is not exported, so its steps cannot be edited", episodeID)
	}
	if review && status == StatusRecording {
		return fmt.Errorf("episode %s is still being recorded: undo its last step on the Record screen, or edit its steps in Review once it has ended", episodeID)
	}
	if err := fn(tx, status); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return s.explainWriteError(err)
	}
	return nil
}

// logEdit adds an audit row and moves num_steps by delta.
func (s *Store) logEdit(ctx context.Context, tx *sql.Tx, episodeID string, step int, kind EditKind, editor, reason string, delta int64) error {
	reason, _ = cleanText(reason, "reason", MaxReasonRunes)
	if _, err := tx.ExecContext(ctx, `INSERT INTO episode_edits (episode_id, step_idx, kind, editor, reason, created_at) VALUES (?,?,?,?,?,?)`,
		episodeID, step, string(kind), strings.TrimSpace(editor), reason, now()); err != nil {
		return s.explainWriteError(err)
	}
	if delta != 0 {
		if _, err := tx.ExecContext(ctx, `UPDATE episodes SET num_steps = MAX(0, num_steps + ?) WHERE id=?`, delta, episodeID); err != nil {
			return s.explainWriteError(err)
		}
	}
	return nil
}

// stepRemoved reads whether step idx of an episode is removed; an unknown
// step wraps ErrNotFound and says which steps there are.
func stepRemoved(ctx context.Context, tx *sql.Tx, episodeID string, idx int) (bool, error) {
	var removed bool
	err := tx.QueryRowContext(ctx, `SELECT removed FROM steps WHERE episode_id=? AND idx=?`, episodeID, idx).Scan(&removed)
	if errors.Is(err, sql.ErrNoRows) {
		var last sql.NullInt64
		tx.QueryRowContext(ctx, `SELECT MAX(idx) FROM steps WHERE episode_id=?`, episodeID).Scan(&last)
		if !last.Valid {
			return false, fmt.Errorf("episode %s has no step %d (it has no steps): %w", episodeID, idx, ErrNotFound)
		}
		return false, fmt.Errorf("episode %s has no step %d (its steps are 0 to %d): %w", episodeID, idx, last.Int64, ErrNotFound)
	}
	return removed, err
}

func refuseStepZero(episodeID, what string) error {
	return fmt.Errorf("step 0 of episode %s is its start page and cannot be %s; discard the episode to start over", episodeID, what)
}

// UndoStep removes the newest kept step of a recording episode (never step
// 0) and returns its index; the audit log gets an 'undo' row by editor.
// The recorder goes on at NextStepIndex. It is refused when the episode is
// not recording (edit an ended episode with RemoveStep or TrimAfter) and
// when only step 0 is left.
func (s *Store) UndoStep(ctx context.Context, episodeID, editor string) (int, error) {
	var undone int
	err := s.edit(ctx, episodeID, editor, "", false, func(tx *sql.Tx, status Status) error {
		if status != StatusRecording {
			return fmt.Errorf("episode %s is %s, not recording: undo works only while recording; remove or trim its steps in Review instead", episodeID, status)
		}
		err := tx.QueryRowContext(ctx, `SELECT idx FROM steps WHERE episode_id=? AND idx>0 AND removed=0 ORDER BY idx DESC LIMIT 1`, episodeID).Scan(&undone)
		if errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("nothing to undo in episode %s: only its start page (step 0) is left, and it cannot be undone", episodeID)
		}
		if err != nil {
			return s.explainWriteError(err)
		}
		if _, err := tx.ExecContext(ctx, `UPDATE steps SET removed=1 WHERE episode_id=? AND idx=?`, episodeID, undone); err != nil {
			return s.explainWriteError(err)
		}
		return s.logEdit(ctx, tx, episodeID, undone, EditUndo, editor, "", -1)
	})
	if err != nil {
		return 0, err
	}
	return undone, nil
}

// RemoveStep leaves step idx out of an ended episode, keeping it stored;
// the audit log gets a 'remove' row with editor and reason. Refused for
// step 0, an unknown or already removed step, a recording episode (the
// recorder owns it: use UndoStep) and a discarded one.
func (s *Store) RemoveStep(ctx context.Context, episodeID string, idx int, editor, reason string) error {
	return s.edit(ctx, episodeID, editor, reason, true, func(tx *sql.Tx, _ Status) error {
		if idx == 0 {
			return refuseStepZero(episodeID, "removed")
		}
		removed, err := stepRemoved(ctx, tx, episodeID, idx)
		if err != nil {
			return err
		}
		if removed {
			return fmt.Errorf("step %d of episode %s is already removed; restore it if it should be kept", idx, episodeID)
		}
		if _, err := tx.ExecContext(ctx, `UPDATE steps SET removed=1 WHERE episode_id=? AND idx=?`, episodeID, idx); err != nil {
			return s.explainWriteError(err)
		}
		return s.logEdit(ctx, tx, episodeID, idx, EditRemove, editor, reason, -1)
	})
}

// RestoreStep keeps a removed step of an ended episode again (whether an
// undo, a removal or a trim removed it); the audit log gets a 'restore'
// row. Refused for step 0, an unknown or kept step, a recording episode
// and a discarded one.
func (s *Store) RestoreStep(ctx context.Context, episodeID string, idx int, editor, reason string) error {
	return s.edit(ctx, episodeID, editor, reason, true, func(tx *sql.Tx, _ Status) error {
		if idx == 0 {
			return refuseStepZero(episodeID, "restored (it is never removed)")
		}
		removed, err := stepRemoved(ctx, tx, episodeID, idx)
		if err != nil {
			return err
		}
		if !removed {
			return fmt.Errorf("step %d of episode %s is not removed: there is nothing to restore", idx, episodeID)
		}
		if _, err := tx.ExecContext(ctx, `UPDATE steps SET removed=0 WHERE episode_id=? AND idx=?`, episodeID, idx); err != nil {
			return s.explainWriteError(err)
		}
		return s.logEdit(ctx, tx, episodeID, idx, EditRestore, editor, reason, +1)
	})
}

// TrimAfter removes every kept step after step k of an ended episode (k
// stays); the audit log gets one 'trim' row at step k. Refused when k is
// 0 (that would leave no action: discard the episode instead), unknown or
// removed, when no kept step follows k, for a recording episode and for a
// discarded one.
func (s *Store) TrimAfter(ctx context.Context, episodeID string, k int, editor, reason string) error {
	return s.edit(ctx, episodeID, editor, reason, true, func(tx *sql.Tx, _ Status) error {
		if k <= 0 {
			return fmt.Errorf("trimming episode %s after step %d would leave no action: trim after a later step, or discard the episode", episodeID, k)
		}
		removed, err := stepRemoved(ctx, tx, episodeID, k)
		if err != nil {
			return err
		}
		if removed {
			return fmt.Errorf("step %d of episode %s is removed: trim after a kept step, or restore it first", k, episodeID)
		}
		res, err := tx.ExecContext(ctx, `UPDATE steps SET removed=1 WHERE episode_id=? AND idx>? AND removed=0`, episodeID, k)
		if err != nil {
			return s.explainWriteError(err)
		}
		n, err := res.RowsAffected()
		if err != nil {
			return err
		}
		if n == 0 {
			return fmt.Errorf("nothing to trim: episode %s keeps no step after step %d", episodeID, k)
		}
		return s.logEdit(ctx, tx, episodeID, k, EditTrim, editor, reason, -n)
	})
}

// MarkResumed adds a 'resume' row at step k (the last step replayed before
// recording went on by hand) to the audit log. It changes no step and no
// status. Refused for an unknown episode or step and a discarded episode.
func (s *Store) MarkResumed(ctx context.Context, episodeID string, k int, editor string) error {
	return s.edit(ctx, episodeID, editor, "", false, func(tx *sql.Tx, _ Status) error {
		if _, err := stepRemoved(ctx, tx, episodeID, k); err != nil {
			return err
		}
		return s.logEdit(ctx, tx, episodeID, k, EditResume, editor, "", 0)
	})
}

// EpisodeEdits streams an episode's audit log, oldest first.
func (s *Store) EpisodeEdits(ctx context.Context, episodeID string) iter.Seq2[Edit, error] {
	return stream(ctx, s.db, func(rows *sql.Rows) (Edit, error) {
		var e Edit
		var step sql.NullInt64
		var kind, at string
		if err := rows.Scan(&e.ID, &e.EpisodeID, &step, &kind, &e.Editor, &e.Reason, &at); err != nil {
			return Edit{}, err
		}
		e.Step, e.Kind, e.At = int(step.Int64), EditKind(kind), ParseTime(at)
		return e, nil
	}, `SELECT id, episode_id, step_idx, kind, editor, reason, created_at FROM episode_edits WHERE episode_id=? ORDER BY id`, episodeID)
}

// EditedSteps streams the edited episode: its kept steps in index order,
// each with its screenshot. Indices are the stored ones, so they may have
// gaps where steps were removed. (EpisodeSteps streams every step.)
func (s *Store) EditedSteps(ctx context.Context, episodeID string) iter.Seq2[Step, error] {
	return stream(ctx, s.db, func(rows *sql.Rows) (Step, error) {
		var shot []byte
		st, err := scanStep(rows, episodeID, &shot)
		st.Screenshot = shot
		return st, err
	}, `SELECT `+stepColumns+`, screenshot FROM steps WHERE episode_id=? AND removed=0 ORDER BY idx`, episodeID)
}

// NextStepIndex is the index the episode's next step takes: one past its
// highest stored index, removed steps included (0 for an episode with no
// steps), so indices stay unique after an undo or a resume.
func (s *Store) NextStepIndex(ctx context.Context, episodeID string) (int, error) {
	var next sql.NullInt64
	err := s.db.QueryRowContext(ctx, `SELECT (SELECT MAX(idx) + 1 FROM steps WHERE episode_id = e.id) FROM episodes e WHERE e.id=?`, episodeID).Scan(&next)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, fmt.Errorf("episode %s: %w", episodeID, ErrNotFound)
	}
	if err != nil {
		return 0, err
	}
	return int(next.Int64), nil
}

// SetStepNote sets the note of step idx (surrounding space trimmed; ""
// clears it), while the episode records and after. A note longer than
// MaxNoteRunes characters, or holding a NUL character, is refused.
func (s *Store) SetStepNote(ctx context.Context, episodeID string, idx int, note string) error {
	note, err := cleanNote(note)
	if err != nil {
		return fmt.Errorf("step %d: %w", idx, err)
	}
	res, err := s.db.ExecContext(ctx, `UPDATE steps SET note=? WHERE episode_id=? AND idx=?`, note, episodeID, idx)
	if err != nil {
		return s.explainWriteError(err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		if _, err := s.GetEpisode(ctx, episodeID); err != nil {
			return err
		}
		return fmt.Errorf("episode %s has no step %d: %w", episodeID, idx, ErrNotFound)
	}
	return nil
}
