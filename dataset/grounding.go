package dataset

import (
	"bytes"
	"compress/gzip"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"waymark/engine/action"
)

// Element-grounded steps: each step can carry the element its action was
// aimed at (steps.target_json, the JSON of action.Target) and the
// BrowserGym observation extras of the page after it (steps.extras, the
// gzip-compressed JSON of action.Extras). Both are NULL when the engine did
// not produce them (extras off, an OpenEnv server, step 0 has no target).

// extrasLevel is the gzip level of stored extras. The accessibility tree is
// very repetitive JSON: the fastest level already shrinks it about tenfold,
// and it runs inside the step, before the step is reported.
const extrasLevel = gzip.BestSpeed

// maxExtrasJSON bounds the JSON read back from one step's extras, so a
// damaged row cannot make a reader allocate without end.
const maxExtrasJSON = 256 << 20

// groundingArgs are the values of a step's extras and target_json columns
// (nil for NULL).
func groundingArgs(st Step) (extras, target any, err error) {
	if st.Extras != nil {
		b, err := encodeExtras(st.Extras)
		if err != nil {
			return nil, nil, fmt.Errorf("episode %s step %d: the observation extras cannot be stored: %w", st.EpisodeID, st.Index, err)
		}
		extras = b
	}
	if st.Target != nil {
		b, err := json.Marshal(st.Target)
		if err != nil {
			return nil, nil, fmt.Errorf("episode %s step %d: the action's target cannot be stored: %w", st.EpisodeID, st.Index, err)
		}
		target = string(b)
	}
	return extras, target, nil
}

// encodeExtras is gzip(JSON of x).
func encodeExtras(x *action.Extras) ([]byte, error) {
	js, err := json.Marshal(x)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	b.Grow(len(js)/6 + 64)
	zw, err := gzip.NewWriterLevel(&b, extrasLevel)
	if err != nil {
		return nil, err
	}
	if _, err := zw.Write(js); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// decodeExtras reads what encodeExtras wrote.
func decodeExtras(b []byte) (*action.Extras, error) {
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	js, err := io.ReadAll(io.LimitReader(zr, maxExtrasJSON+1))
	if err != nil {
		return nil, err
	}
	if len(js) > maxExtrasJSON {
		return nil, fmt.Errorf("more than %d MiB of JSON", maxExtrasJSON>>20)
	}
	var x action.Extras
	if err := json.Unmarshal(js, &x); err != nil {
		return nil, err
	}
	return &x, nil
}

// parseTarget reads a stored target_json ("" is none). A row that does not
// parse (written by a later version, or damaged) reads as no target rather
// than failing the whole episode.
func parseTarget(s string) *action.Target {
	if s == "" {
		return nil
	}
	var t action.Target
	if json.Unmarshal([]byte(s), &t) != nil {
		return nil
	}
	return &t
}

// StepExtras returns the BrowserGym observation extras stored with step idx
// of an episode: the page after that step's action (after the reset for
// step 0). It returns nil, nil when the step has none (extras were off).
func (s *Store) StepExtras(ctx context.Context, episodeID string, idx int) (*action.Extras, error) {
	var b []byte
	err := s.db.QueryRowContext(ctx, `SELECT extras FROM steps WHERE episode_id=? AND idx=?`, episodeID, idx).Scan(&b)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("episode %s step %d: %w", episodeID, idx, ErrNotFound)
	}
	if err != nil || len(b) == 0 {
		return nil, err
	}
	x, err := decodeExtras(b)
	if err != nil {
		return nil, fmt.Errorf("episode %s step %d: the stored observation extras are damaged (%v); the step's other data is intact", episodeID, idx, err)
	}
	return x, nil
}

// redactExtras is what the store keeps of a step's extras when its typed
// text went into a secret field: the last action is written again from the
// redacted action (it would otherwise carry the typed text). The caller's
// extras are not changed.
func redactExtras(x *action.Extras, redacted action.Action) *action.Extras {
	if x == nil || x.LastAction == "" {
		return x
	}
	c := *x
	c.LastAction = action.BrowserGym(redacted)
	return &c
}
