package dataset

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
)

// What is checked of a cut and kept with it (see hindsight.go): its key
// points against the span's last page, whether it replays from its start
// state (HindsightCheck), and the counts of planned and cut tasks with their
// checks (IntentCounts).

// KeyPoint kinds: what a key point can be checked against.
const (
	KeyPointURL  = "url"  // "url: TEXT": the span's last page's address contains TEXT
	KeyPointText = "text" // "text: TEXT" or "\"TEXT\"": the span's last page shows TEXT
)

// KeyPointCheck is one key point and, where it is checkable, its check.
type KeyPointCheck struct {
	// KeyPoint is the key point as written.
	KeyPoint string `json:"key_point"`
	// Kind is KeyPointURL, KeyPointText, or "" for one that cannot be
	// checked automatically (a reviewer judges it).
	Kind string `json:"kind"`
	// Checked says it was checked; Passed is its result then.
	Checked bool `json:"checked"`
	Passed  bool `json:"passed"`
	// Against says what it was checked against, Why what failed or why
	// it was not checked.
	Against string `json:"against,omitempty"`
	Why     string `json:"why,omitempty"`
}

// parseKeyPoint splits a key point into its kind and the value to look for.
func parseKeyPoint(kp string) (kind, want string) {
	t := strings.TrimSpace(kp)
	low := strings.ToLower(t)
	switch {
	case strings.HasPrefix(low, "url:"):
		return KeyPointURL, strings.TrimSpace(t[len("url:"):])
	case strings.HasPrefix(low, "text:"):
		return KeyPointText, strings.Trim(strings.TrimSpace(t[len("text:"):]), `"“”`)
	case len(t) >= 2 && (t[0] == '"' && t[len(t)-1] == '"'):
		return KeyPointText, t[1 : len(t)-1]
	case strings.HasPrefix(t, "“") && strings.HasSuffix(t, "”") && len(t) > len("“”"):
		return KeyPointText, t[len("“") : len(t)-len("”")]
	}
	return "", ""
}

// foldText lowers and collapses whitespace, so page text and a key point
// compare as people read them.
func foldText(s string) string { return strings.Join(strings.Fields(strings.ToLower(s)), " ") }

// CheckKeyPoints checks key points against a page: its URL, and its text
// (textFrom says where the text came from; "" when no text is known, and
// then text key points stay unchecked). Key points of no checkable kind
// are listed unchecked.
func CheckKeyPoints(points []string, url, text, textFrom string) []KeyPointCheck {
	out := make([]KeyPointCheck, 0, len(points))
	for _, kp := range points {
		kp = strings.TrimSpace(kp)
		if kp == "" {
			continue
		}
		c := KeyPointCheck{KeyPoint: kp}
		kind, want := parseKeyPoint(kp)
		c.Kind = kind
		switch {
		case kind == "":
			c.Why = `not checkable automatically: write "url: …" or "text: …" (or the text in quotes) for a check`
		case strings.TrimSpace(want) == "":
			c.Why = "nothing after " + kind + ": to look for"
		case kind == KeyPointURL:
			c.Checked, c.Against = true, "the address "+url
			c.Passed = strings.Contains(strings.ToLower(url), strings.ToLower(strings.TrimSpace(want)))
			if !c.Passed {
				c.Why = fmt.Sprintf("the address does not contain %q", want)
			}
		case textFrom == "":
			c.Why = "not checked: the page's text was not kept with the step (record with grounding on) and no replay reached it"
		default:
			c.Checked, c.Against = true, textFrom
			c.Passed = strings.Contains(foldText(text), foldText(want))
			if !c.Passed {
				c.Why = fmt.Sprintf("the page does not show %q", want)
			}
		}
		out = append(out, c)
	}
	return out
}

// CutReplay is the result of replaying a cut from its start state (the
// exploration's steps before the span) to its end.
type CutReplay struct {
	// Replayable: every step of the start state and of the span replayed
	// as recorded.
	Replayable bool `json:"replayable"`
	// Offline: served from the exploration's replay archive.
	Offline bool      `json:"offline"`
	At      time.Time `json:"at"`
	// Why says where and why it did not replay ("" when it did).
	Why string `json:"why,omitempty"`
	// Matched and Compared count the cut's steps (its start page
	// included) that were compared and matched.
	Matched  int `json:"matched"`
	Compared int `json:"compared"`
	// RunID is the replay run stored for the cut episode (its verdicts,
	// step by step; see Store.ReplayRuns).
	RunID string `json:"run_id,omitempty"`
}

// HindsightCheck is what was checked of a cut episode.
type HindsightCheck struct {
	// KeyPoints are the task's key points as written for the cut, with
	// their checks against the span's last page.
	KeyPoints []KeyPointCheck `json:"key_points"`
	// Replay is nil until the cut was replayed from its start state.
	Replay *CutReplay `json:"replay,omitempty"`
}

// Replayable says whether a replay showed the cut replays (false when it
// was not replayed yet).
func (h *HindsightCheck) Replayable() bool { return h != nil && h.Replay != nil && h.Replay.Replayable }

// KeyPointsFailed counts the key points checked that failed.
func (h *HindsightCheck) KeyPointsFailed() int {
	n := 0
	if h != nil {
		for _, k := range h.KeyPoints {
			if k.Checked && !k.Passed {
				n++
			}
		}
	}
	return n
}

// Summary says in one line what was checked of a cut.
func (h *HindsightCheck) Summary() string {
	if h == nil {
		return "not checked"
	}
	var parts []string
	switch r := h.Replay; {
	case r == nil:
		parts = append(parts, "not replayed yet")
	case r.Replayable && r.Offline:
		parts = append(parts, fmt.Sprintf("replayable offline (%d/%d steps matched)", r.Matched, r.Compared))
	case r.Replayable:
		parts = append(parts, fmt.Sprintf("replayable (%d/%d steps matched)", r.Matched, r.Compared))
	default:
		parts = append(parts, "NOT replayable: "+r.Why)
	}
	checked, passed := 0, 0
	for _, k := range h.KeyPoints {
		if k.Checked {
			checked++
			if k.Passed {
				passed++
			}
		}
	}
	if len(h.KeyPoints) > 0 {
		s := fmt.Sprintf("key points: %d of %d checked passed", passed, checked)
		if checked < len(h.KeyPoints) {
			s += fmt.Sprintf(", %d not checkable", len(h.KeyPoints)-checked)
		}
		for _, k := range h.KeyPoints {
			if k.Checked && !k.Passed {
				s += "; FAILED " + k.KeyPoint + " (" + k.Why + ")"
			}
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, " · ")
}

// HindsightCheckOf returns what was checked of a cut episode (nil for an
// episode that is no cut).
func (s *Store) HindsightCheckOf(ctx context.Context, id string) (*HindsightCheck, error) {
	var j sql.NullString
	err := s.db.QueryRowContext(ctx, `SELECT hindsight_json FROM episodes WHERE id=?`, id).Scan(&j)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("episode %s: %w", id, ErrNotFound)
	}
	if err != nil || !j.Valid || j.String == "" {
		return nil, err
	}
	var h HindsightCheck
	if err := json.Unmarshal([]byte(j.String), &h); err != nil {
		return nil, fmt.Errorf("episode %s: its cut's check cannot be read: %w", id, err)
	}
	return &h, nil
}

// SetHindsightCheck keeps what was checked of a cut episode.
func (s *Store) SetHindsightCheck(ctx context.Context, id string, h HindsightCheck) error {
	b, err := json.Marshal(h)
	if err != nil {
		return err
	}
	res, err := s.db.ExecContext(ctx, `UPDATE episodes SET hindsight_json=? WHERE id=? AND intent_origin='hindsight'`, string(b), id)
	if err != nil {
		return s.explainWriteError(err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("episode %s is no task cut from an exploration: %w", id, ErrNotFound)
	}
	return nil
}

// IntentCounts counts tasks and episodes by where their intent came from.
type IntentCounts struct {
	// PlannedTasks and HindsightTasks count the active tasks written
	// before and cut afterwards (explorations' own tasks not counted).
	PlannedTasks, HindsightTasks int
	// Episodes by intent (discarded ones not counted).
	Planned, Explorations, Hindsight int
	// Replayable counts the cuts a replay showed replayable; NotReplayable
	// those it showed not to; Unchecked those not replayed yet.
	Replayable, NotReplayable, Unchecked int
	// KeyPointsFailed counts the cuts with a key point whose check failed.
	KeyPointsFailed int
	// WithActualTask counts planned episodes that say what was actually
	// done.
	WithActualTask int
}

// countCheck counts one cut by what its check showed (h nil: unchecked).
func (c *IntentCounts) countCheck(h *HindsightCheck) {
	switch {
	case h == nil || h.Replay == nil:
		c.Unchecked++
	case h.Replay.Replayable:
		c.Replayable++
	default:
		c.NotReplayable++
	}
	if h.KeyPointsFailed() > 0 {
		c.KeyPointsFailed++
	}
}

// CountIntents counts tasks and episodes by intent.
func (s *Store) CountIntents(ctx context.Context) (IntentCounts, error) {
	var c IntentCounts
	err := s.db.QueryRowContext(ctx, `SELECT
		(SELECT COUNT(*) FROM tasks WHERE archived=0 AND source NOT IN ('explore','hindsight')),
		(SELECT COUNT(*) FROM tasks WHERE archived=0 AND source='hindsight'),
		(SELECT COUNT(*) FROM episodes WHERE status<>'discarded' AND intent_origin='planned'),
		(SELECT COUNT(*) FROM episodes WHERE status<>'discarded' AND intent_origin='exploration'),
		(SELECT COUNT(*) FROM episodes WHERE status<>'discarded' AND intent_origin='hindsight'),
		(SELECT COUNT(*) FROM episodes WHERE status<>'discarded' AND actual_task<>'')`).Scan(
		&c.PlannedTasks, &c.HindsightTasks, &c.Planned, &c.Explorations, &c.Hindsight, &c.WithActualTask)
	if err != nil {
		return c, err
	}
	rows, err := s.db.QueryContext(ctx, `SELECT COALESCE(hindsight_json, '') FROM episodes WHERE status<>'discarded' AND intent_origin='hindsight'`)
	if err != nil {
		return c, err
	}
	defer rows.Close()
	for rows.Next() {
		var j string
		if err := rows.Scan(&j); err != nil {
			return c, err
		}
		var h *HindsightCheck
		if j != "" && json.Unmarshal([]byte(j), &h) != nil {
			h = nil
		}
		c.countCheck(h)
	}
	return c, rows.Err()
}
