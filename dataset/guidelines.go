package dataset

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"fmt"
	"strings"
	"time"
)

// The review guidelines: a markdown text kept with the dataset (the meta
// key review_guidelines), shown beside the review form and editable there.
// Every text that was ever in force is kept once in guideline_versions,
// named by its SHA-256, and each review names the one it was written under
// (reviews.guidelines_id), so a label exported for judge calibration says
// which rules its reviewer followed. The numbers people read (version 1,
// 2, …) are the order in which the texts first came into force in this
// store; the SHA-256 is the same in every store, so a merge keeps it.

// guidelinesKey is the meta key holding the review guidelines.
const guidelinesKey = "review_guidelines"

// DefaultGuidelines is the guidelines text until someone edits it.
const DefaultGuidelines = `# Review guidelines

Judge the **episode**, not the annotator: did the actions reach the task's goal on the site as it was?

## Outcome (keys 1–4)
1. **Success**: the goal is fully reached. For information tasks the final answer is correct and complete.
2. **Failure**: the goal was not reached, or the answer is wrong. Give the **first failing step** (the first action that made success impossible or went wrong) and a **failure type**.
3. **Not executable**: the task cannot be done on the site as it is (feature missing, page broken, blocked by a login or bot check).
4. **Invalid task**: the task is badly written, ambiguous or outdated.

## Failure types
- *wrong element*: clicked or typed into the wrong thing.
- *wrong text*: typed the wrong text.
- *missed step*: skipped something the goal needs.
- *wrong answer*: the final answer is wrong or incomplete.
- *gave up*: stopped without reaching the goal.
- *site error*: the site failed during the episode.
- *other*: explain in the reason.

## Step flags (optional)
Mark a step as a **mistake** (wrong but recovered from) or **unnecessary** (harmless detour).

## Step labels (optional)
Mark each step **correct** (C), **wrong** (W) or **unnecessary** (X); the same key again clears it.

## Side effect, looping, optimality (optional)
- **Side effect** (E): did the episode change something the task did not ask for (an extra order, a deleted item, a changed setting)? Yes, no or unsure.
- **Looping** (L): did it repeat the same actions without making progress? Yes, no or unsure.
- **Optimality** (O): 1 complete failure, 2 suboptimal, 3 somewhat optimal, 4 completely optimal (no wasted step).

## Key screenshots (optional)
Press **K** on a step whose screenshot is evidence a judge needs to decide the outcome (the applied filter, the confirmation, the answer on the page).

## Reason
One sentence that a second reviewer could check. Required in practice for failures.

## Keys
←/→ step · Home/End first/last · Space before/after · B side by side · 1–4 outcome · T failure type · M/U flag step · C/W/X label step · E/L/O side effect, looping, optimality · K key screenshot · Ctrl+S save · N save and next · Q queue
`

// Guidelines returns the review guidelines (markdown), or DefaultGuidelines
// when none were saved.
func (s *Store) Guidelines(ctx context.Context) (string, error) {
	v, err := s.Meta(ctx, guidelinesKey)
	if err != nil {
		return "", fmt.Errorf("read review guidelines: %w", err)
	}
	if strings.TrimSpace(v) == "" {
		return DefaultGuidelines, nil
	}
	return v, nil
}

// SetGuidelines saves the review guidelines with the dataset. An empty text
// restores the default. The text now in force is kept as a guidelines
// version (GuidelineVersions); reviews saved from now on name it.
func (s *Store) SetGuidelines(ctx context.Context, markdown string) error {
	return s.SetGuidelinesAs(ctx, markdown, "")
}

// SetGuidelinesAs is SetGuidelines recording who edited them.
func (s *Store) SetGuidelinesAs(ctx context.Context, markdown, editor string) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("save review guidelines (they were not saved): %w", err)
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value=excluded.value`, guidelinesKey, markdown); err != nil {
		return fmt.Errorf("save review guidelines (they were not saved): %w", err)
	}
	if _, err := guidelinesInForce(ctx, tx, strings.TrimSpace(editor)); err != nil {
		return fmt.Errorf("save review guidelines (they were not saved): %w", err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("save review guidelines (they were not saved): %w", s.explainWriteError(err))
	}
	return nil
}

// GuidelinesID is the id of a guidelines text: its SHA-256 in hex.
func GuidelinesID(text string) string {
	sum := sha256.Sum256([]byte(text))
	return hex.EncodeToString(sum[:])
}

// guidelinesInForce returns the id of the guidelines in force, keeping the
// text as a version the first time it is in force.
func guidelinesInForce(ctx context.Context, tx *sql.Tx, editor string) (string, error) {
	var text sql.NullString
	err := tx.QueryRowContext(ctx, `SELECT value FROM meta WHERE key=?`, guidelinesKey).Scan(&text)
	if err != nil && err != sql.ErrNoRows {
		return "", err
	}
	t := text.String
	if strings.TrimSpace(t) == "" {
		t = DefaultGuidelines
	}
	id := GuidelinesID(t)
	if _, err := tx.ExecContext(ctx, `INSERT INTO guideline_versions (id, text, editor, created_at) VALUES (?,?,?,?) ON CONFLICT (id) DO NOTHING`,
		id, t, editor, FormatTime(time.Now())); err != nil {
		return "", err
	}
	return id, nil
}

// GuidelineVersion is one review guidelines text that was in force.
type GuidelineVersion struct {
	// ID is the text's SHA-256 (hex); Version numbers the texts in the
	// order they first came into force in this store, from 1.
	ID      string
	Version int
	Text    string
	// Editor is who saved it ("" for the default text, or when unknown).
	Editor    string
	CreatedAt time.Time
}

// GuidelineVersions returns every guidelines text that was in force, oldest
// first.
func (s *Store) GuidelineVersions(ctx context.Context) ([]GuidelineVersion, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT id, text, editor, created_at FROM guideline_versions ORDER BY created_at, rowid`)
	if err != nil {
		return nil, fmt.Errorf("read the guidelines versions: %w", err)
	}
	defer rows.Close()
	var out []GuidelineVersion
	for rows.Next() {
		var v GuidelineVersion
		var at string
		if err := rows.Scan(&v.ID, &v.Text, &v.Editor, &at); err != nil {
			return nil, err
		}
		v.CreatedAt = ParseTime(at)
		v.Version = len(out) + 1
		out = append(out, v)
	}
	return out, rows.Err()
}
