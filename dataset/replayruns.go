package dataset

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"
)

// Replay runs: the result of running a stored episode's actions again in a
// fresh browser (waymark replay, or Replay in Review). A run is kept beside
// the episode it replayed and never changes it.

// ReplayRun is one stored replay of an episode.
type ReplayRun struct {
	ID        string
	EpisodeID string
	StartedAt time.Time
	// EndedAt is when the run ended; nil for a run saved before it ended.
	EndedAt *time.Time
	// EngineJSON is engine.Info of the engine that replayed ("{}" when
	// unknown); Display is "xvfb" or "headless".
	EngineJSON string
	Display    string
	// Steps are the per-step verdicts, step 0 (the start page) first.
	Steps []ReplayStep
	// Compared counts the steps compared, Matched those that matched.
	Matched, Compared int
	// FirstDiverged is the first step that did not match; nil when none.
	FirstDiverged *int
	// Warning says why the result may not be the recording's fault (e.g.
	// a site that keeps server state); one warning a line.
	Warning string
	// Error says why the run stopped before the last stored step, or could
	// not run at all; empty when it went through.
	Error string
	// Fidelity is an offline replay's report on the archive it was served
	// from (nil for a replay from the network).
	Fidelity *Fidelity
}

// Verdict is a replay's verdict on one stored step, stored (in
// replay_runs) and reported as its string.
type Verdict string

// Verdicts of a step.
const (
	// VerdictMatch: URL, title, error and done are equal and the
	// screenshots match.
	VerdictMatch Verdict = "match"
	// VerdictDiverged: something differs; Why says what.
	VerdictDiverged Verdict = "diverged"
	// VerdictSecret: a type action whose text went into a password or
	// payment field was stored as action.RedactedText, so it cannot be
	// typed again.
	VerdictSecret Verdict = "secret"
	// VerdictUnreliable: a step after a secret one (with Continue); Why
	// says what the comparison found, but the page did not get the
	// person's text.
	VerdictUnreliable Verdict = "unreliable"
)

// Verdicts lists every verdict, in the order above.
func Verdicts() []Verdict {
	return []Verdict{VerdictMatch, VerdictDiverged, VerdictSecret, VerdictUnreliable}
}

// secretSentence is VerdictSecret's sentence; replay runs stored before
// the verdict was a code hold it in place of the code.
const secretSentence = "cannot replay: the typed text was a secret and was not stored"

// Sentence is the verdict as `waymark replay`'s table prints it: the
// verdict itself, and for VerdictSecret why the step cannot replay.
func (v Verdict) Sentence() string {
	if v == VerdictSecret {
		return secretSentence
	}
	return string(v)
}

// UnmarshalText reads a stored verdict; VerdictSecret's sentence, as runs
// stored before it was a code hold it, reads as VerdictSecret.
func (v *Verdict) UnmarshalText(b []byte) error {
	*v = Verdict(b)
	if *v == secretSentence {
		*v = VerdictSecret
	}
	return nil
}

// ReplayStep is one step's verdict in a replay run.
type ReplayStep struct {
	Step int `json:"step"`
	// Action is the stored action as people read it ("reset" for step 0).
	Action  string  `json:"action,omitempty"`
	Verdict Verdict `json:"verdict"`
	// Score is the screenshots' similarity (1 = the same); nil when they
	// were not compared.
	Score *float64 `json:"score,omitempty"`
	// Why says what differed; empty for a plain match.
	Why string `json:"why,omitempty"`
}

// OK reports whether every step the run compared matched, none diverged
// and it ended without an error.
func (r ReplayRun) OK() bool {
	return r.Error == "" && r.FirstDiverged == nil && r.Compared > 0 && r.Matched == r.Compared && (r.Fidelity == nil || r.Fidelity.Hermetic)
}

// SaveReplayRun stores a replay run of an existing episode and returns it
// with its ID (a UUID when empty) and StartedAt (now when zero). The
// episode itself is not touched.
func (s *Store) SaveReplayRun(ctx context.Context, r ReplayRun) (ReplayRun, error) {
	if strings.TrimSpace(r.EpisodeID) == "" {
		return ReplayRun{}, errors.New("save replay run: no episode given")
	}
	if r.ID == "" {
		r.ID = uuid.NewString()
	}
	if r.StartedAt.IsZero() {
		r.StartedAt = time.Now()
	}
	r.StartedAt = ParseTime(FormatTime(r.StartedAt))
	var ended any
	if r.EndedAt != nil {
		t := ParseTime(FormatTime(*r.EndedAt))
		r.EndedAt = &t
		ended = FormatTime(t)
	}
	if r.EngineJSON == "" {
		r.EngineJSON = "{}"
	}
	if !json.Valid([]byte(r.EngineJSON)) {
		return ReplayRun{}, fmt.Errorf("save replay run: the engine description is not JSON: %.60q", r.EngineJSON)
	}
	if r.Steps == nil {
		r.Steps = []ReplayStep{}
	}
	steps, err := json.Marshal(r.Steps)
	if err != nil {
		return ReplayRun{}, fmt.Errorf("save replay run: %w", err)
	}
	var first any
	if r.FirstDiverged != nil {
		first = *r.FirstDiverged
	}
	var fid any
	if r.Fidelity != nil {
		b, err := json.Marshal(r.Fidelity)
		if err != nil {
			return ReplayRun{}, fmt.Errorf("save replay run: %w", err)
		}
		fid = string(b)
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return ReplayRun{}, s.explainWriteError(err)
	}
	defer tx.Rollback()
	var one int
	err = tx.QueryRowContext(ctx, `SELECT 1 FROM episodes WHERE id=?`, r.EpisodeID).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return ReplayRun{}, fmt.Errorf("save replay run: episode %s: %w (it may have been deleted meanwhile)", r.EpisodeID, ErrNotFound)
	}
	if err != nil {
		return ReplayRun{}, s.explainWriteError(err)
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO replay_runs (id, episode_id, started_at, ended_at, engine_json, display, steps_json,
		matched, compared, first_diverged, warning, error, fidelity_json) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)`,
		r.ID, r.EpisodeID, FormatTime(r.StartedAt), ended, r.EngineJSON, r.Display, string(steps),
		r.Matched, r.Compared, first, r.Warning, r.Error, fid); err != nil {
		return ReplayRun{}, fmt.Errorf("save replay run: %w", s.explainWriteError(err))
	}
	if err := tx.Commit(); err != nil {
		return ReplayRun{}, fmt.Errorf("save replay run (nothing was saved; try again): %w", s.explainWriteError(err))
	}
	return r, nil
}

// ReplayRuns returns an episode's replay runs, newest first (none for an
// episode never replayed, or one that does not exist).
func (s *Store) ReplayRuns(ctx context.Context, episodeID string) ([]ReplayRun, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT id, episode_id, started_at, ended_at, engine_json, display, steps_json,
		matched, compared, first_diverged, warning, error, fidelity_json FROM replay_runs WHERE episode_id=? ORDER BY started_at DESC, rowid DESC`, episodeID)
	if err != nil {
		return nil, fmt.Errorf("read replay runs: %w", err)
	}
	defer rows.Close()
	var out []ReplayRun
	for rows.Next() {
		var r ReplayRun
		var started, steps string
		var ended sql.NullString
		var first sql.NullInt64
		var fid sql.NullString
		if err := rows.Scan(&r.ID, &r.EpisodeID, &started, &ended, &r.EngineJSON, &r.Display, &steps,
			&r.Matched, &r.Compared, &first, &r.Warning, &r.Error, &fid); err != nil {
			return nil, fmt.Errorf("read replay runs: %w", err)
		}
		if fid.Valid && fid.String != "" {
			var f Fidelity
			if err := json.Unmarshal([]byte(fid.String), &f); err != nil {
				return nil, fmt.Errorf("replay run %s: its fidelity report cannot be read (%v)", r.ID, err)
			}
			r.Fidelity = &f
		}
		r.StartedAt = ParseTime(started)
		if ended.Valid {
			t := ParseTime(ended.String)
			r.EndedAt = &t
		}
		if first.Valid {
			v := int(first.Int64)
			r.FirstDiverged = &v
		}
		if err := json.Unmarshal([]byte(steps), &r.Steps); err != nil {
			return nil, fmt.Errorf("replay run %s: its step verdicts cannot be read (%v)", r.ID, err)
		}
		if r.Steps == nil {
			r.Steps = []ReplayStep{}
		}
		out = append(out, r)
	}
	return out, rows.Err()
}
