package dataset

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/mattn/go-sqlite3"

	"waymark/engine/action"
)

// ErrStepExists is returned when a step index is already stored.
var ErrStepExists = errors.New("this step is already stored")

// AppendStep stores one step of a recording episode in its own transaction
// and counts it in the episode's num_steps (the kept action steps). The
// step's Note is stored (see SetStepNote for its limits). The screenshot is stored as
// given; no thumbnail work is done here (see Thumbnail).
func (s *Store) AppendStep(ctx context.Context, st Step) error {
	return s.appendStep(ctx, st, nil)
}

// appendStep stores st and, when end is set, ends the episode in the same
// transaction, so a reported step and the episode's status never disagree.
func (s *Store) appendStep(ctx context.Context, st Step, end *episodeEnd) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return s.explainWriteError(err)
	}
	defer tx.Rollback()
	if err := s.insertStep(ctx, tx, st); err != nil {
		return err
	}
	if end != nil {
		if err := s.endEpisode(context.Background(), tx, st.EpisodeID, *end); err != nil {
			return s.explainWriteError(err)
		}
	}
	if err := tx.Commit(); err != nil {
		return s.explainWriteError(err)
	}
	return nil
}

func (s *Store) insertStep(ctx context.Context, tx *sql.Tx, st Step) error {
	var actionJSON any
	op := ""
	if st.ActionJSON != "" {
		actionJSON = st.ActionJSON
	} else if st.Action != nil {
		b, err := json.Marshal(*st.Action)
		if err != nil {
			return err
		}
		actionJSON = string(b)
	}
	if st.Action != nil {
		op = string(st.Action.Op)
	}
	created := st.CreatedAt
	if created.IsZero() {
		created = time.Now()
	}
	var shot any
	if len(st.Screenshot) > 0 {
		shot = st.Screenshot
	}
	if st.Removed {
		return fmt.Errorf("episode %s step %d: a step is stored kept; remove it afterwards with RemoveStep so the audit log says who removed it and why", st.EpisodeID, st.Index)
	}
	note, err := cleanNote(st.Note)
	if err != nil {
		return err
	}
	extras, target, err := groundingArgs(st)
	if err != nil {
		return err
	}
	if st.Actor != "" {
		if err := CheckActor(st.Actor); err != nil {
			return err
		}
	}
	// An empty actor is the episode's annotator's own (ActorOf).
	var redaction any
	if len(st.Redaction) > 0 {
		b, err := json.Marshal(st.Redaction)
		if err != nil {
			return err
		}
		redaction = string(b)
	}
	_, err = tx.ExecContext(ctx, `INSERT INTO steps (episode_id, idx, action_json, op, url, title, error, done, screenshot,
		action_ms, settle_ms, capture_ms, total_ms, created_at, note, removed, extras, target_json, redaction_json, actor) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,
		COALESCE(NULLIF(?, ''), (SELECT `+actorSQL("annotator")+` FROM episodes WHERE id = ?), ''))`,
		st.EpisodeID, st.Index, actionJSON, op, st.URL, st.Title, st.Error, st.Done, shot,
		st.Timings.ActionMS, st.Timings.SettleMS, st.Timings.CaptureMS, st.Timings.TotalMS, FormatTime(created), note, false, extras, target, redaction,
		st.Actor, st.EpisodeID)
	if err != nil {
		if isPrimaryKeyViolation(err) {
			return fmt.Errorf("%w: episode %s step %d", ErrStepExists, st.EpisodeID, st.Index)
		}
		if isForeignKeyViolation(err) {
			return fmt.Errorf("episode %s: %w", st.EpisodeID, ErrNotFound)
		}
		return s.explainWriteError(err)
	}
	if st.Index > 0 {
		// num_steps counts the kept action steps: after an undo the next
		// step's index is past the removed one's, so it is a count, not
		// the highest index.
		if _, err := tx.ExecContext(ctx, `UPDATE episodes SET num_steps = num_steps + 1 WHERE id=?`, st.EpisodeID); err != nil {
			return s.explainWriteError(err)
		}
	}
	return nil
}

// Steps lists all of an episode's steps in order, removed ones included
// (with Removed set), without their screenshots (see
// Screenshot and Thumbnail, or EpisodeSteps for a stream with them).
func (s *Store) Steps(ctx context.Context, episodeID string) ([]Step, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT `+stepColumns+` FROM steps WHERE episode_id=? ORDER BY idx`, episodeID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Step
	for rows.Next() {
		st, err := scanStep(rows, episodeID)
		if err != nil {
			return nil, err
		}
		out = append(out, st)
	}
	return out, rows.Err()
}

// stepColumns are the columns scanStep reads, screenshots left out.
const stepColumns = `idx, COALESCE(action_json,''), url, title, error, done, action_ms, settle_ms, capture_ms, total_ms, created_at, note, removed, COALESCE(target_json,''), actor, COALESCE(redaction_json,'')`

// scanStep reads stepColumns, then extra columns into extra.
func scanStep(sc interface{ Scan(...any) error }, episodeID string, extra ...any) (Step, error) {
	st := Step{EpisodeID: episodeID}
	var created, target, redaction string
	dest := append([]any{&st.Index, &st.ActionJSON, &st.URL, &st.Title, &st.Error, &st.Done,
		&st.Timings.ActionMS, &st.Timings.SettleMS, &st.Timings.CaptureMS, &st.Timings.TotalMS, &created, &st.Note, &st.Removed, &target, &st.Actor, &redaction}, extra...)
	if err := sc.Scan(dest...); err != nil {
		return Step{}, err
	}
	st.CreatedAt = ParseTime(created)
	st.Target = parseTarget(target)
	if redaction != "" {
		_ = json.Unmarshal([]byte(redaction), &st.Redaction)
	}
	if st.ActionJSON != "" {
		// Stored actions were accepted by an engine; parse leniently
		// (any set) so a later vocabulary change still reads them.
		a, err := action.Parse([]byte(st.ActionJSON), action.SetBrowserGym)
		if err == nil {
			st.Action = &a
		} else {
			var raw action.Action
			if json.Unmarshal([]byte(st.ActionJSON), &raw) == nil {
				st.Action = &raw
			}
		}
	}
	return st, nil
}

// Screenshot returns the PNG stored with step idx of an episode (nil, nil
// when the step has none, for example after a renderer timeout).
func (s *Store) Screenshot(ctx context.Context, episodeID string, idx int) ([]byte, error) {
	var b []byte
	err := s.db.QueryRowContext(ctx, `SELECT screenshot FROM steps WHERE episode_id=? AND idx=?`, episodeID, idx).Scan(&b)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("episode %s step %d: %w", episodeID, idx, ErrNotFound)
	}
	return b, err
}

func isForeignKeyViolation(err error) bool {
	var se sqlite3.Error
	return errors.As(err, &se) && se.ExtendedCode == sqlite3.ErrConstraintForeignKey
}
