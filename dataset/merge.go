package dataset

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"sort"
	"strings"
)

// Merging another annotator's store into this one (waymark merge, and
// "Merge a colleague's database" in the app).
//
// The other file is attached read-only to one connection of this store and
// everything is copied with INSERT … SELECT inside one transaction, so a
// failure (or a cancel) leaves this store as it was, and the screenshots
// pass from file to file inside SQLite: memory does not grow with the
// number of steps. Every table is copied with the columns both files have
// (PRAGMA table_info), so a column added by a later migration merges without
// a change here, and a store of an older schema merges too (the columns it
// lacks get their defaults). A store of a newer schema is refused. Each
// table is described once (mergeTables, merge_tables.go: how its rows are
// matched, compared and named in the report), and every column list and
// comparison of the copy is built from that description and the columns.
//
// What is the same row, and what happens when the two differ:
//
//   - Tasks are the same by id, else by goal and start URL (every store gets
//     the practice pack with ids of its own). A task defined differently in
//     the two files (check, category, clock, archived, …) stays one task
//     with this store's definition; the other file's episodes of it are
//     merged under it, and the report lists each differing field with both
//     values.
//   - Episodes are the same by id. A new episode comes with its steps
//     (screenshots, extras, targets, notes), HAR chunks, audit log, reviews
//     (with their step labels) and replay runs. An episode in both files
//     whose row or steps differ (resumed, edited or relabelled on one
//     machine only) keeps this store's row, steps and audit log, and the
//     report says which fields and steps differ; the other file's reviews
//     and replay runs of it are still added.
//   - Reviews, replay runs are the same by id; a review's step labels by
//     their review and step; audit-log rows and HAR chunks
//     (numbered per file) by their content. A review edited on two machines
//     keeps every version as history: of the versions that were current in
//     either file, the newest (by time, then id) is current, and the report
//     lists the episode.
//   - The review guidelines are taken from the other file when this store
//     has none of its own (only the default); where both have their own
//     and they differ, this store's stay and the report says so.
//
// Merging the same file twice adds nothing.

// MergeReport says what a merge of one file did.
type MergeReport struct {
	Source string
	// Added and Identical count rows by table: rows copied, and rows that
	// were already here with the same content.
	Added, Identical map[string]int
	// Issues are the rows that differ between the two files, with what the
	// merge did about them.
	Issues []MergeIssue
	// GuidelinesTaken: this store had no review guidelines of its own and
	// the other file's were copied.
	GuidelinesTaken bool
}

// MergeIssue is one row the two files hold in different versions.
type MergeIssue struct {
	// Kind is "task", "episode", "review" or "replay run"; ID the row's id
	// in this store.
	Kind, ID string
	// Detail says what differs; Resolution what the merge kept.
	Detail, Resolution string
}

func (i MergeIssue) String() string {
	return fmt.Sprintf("%s %s: %s; %s", i.Kind, i.ID, i.Detail, i.Resolution)
}

// MergeProgress is reported while steps are copied.
type MergeProgress struct {
	Source string
	// Steps copied so far of TotalSteps.
	Steps, TotalSteps int
}

// MergeOptions tune a merge.
type MergeOptions struct {
	// Progress, if set, is called after every chunk of MergeChunk steps and
	// once at the end, from the merging goroutine.
	Progress func(MergeProgress)
}

// MergeChunk is how many steps are copied between progress reports.
const MergeChunk = 1000

// Errors of Merge; the messages say what to do.
var (
	ErrMergeSelf          = errors.New("this is the database Waymark has open: choose another annotator's database file")
	ErrMergeOpenElsewhere = errors.New("the database is open in another program")
)

// Merge copies the store at path into s (see above). It never writes to the
// file at path.
func (s *Store) Merge(ctx context.Context, path string, opts MergeOptions) (MergeReport, error) {
	rep := MergeReport{Source: path, Added: map[string]int{}, Identical: map[string]int{}}
	if err := checkMergeSource(path); err != nil {
		return rep, err
	}
	if err := s.checkNoLiveRecording(ctx); err != nil {
		return rep, err
	}
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return rep, s.explainWriteError(err)
	}
	defer conn.Close()
	abs, _ := filepath.Abs(path)
	uri := (&url.URL{Scheme: "file", Path: abs}).String() + "?mode=ro"
	if _, err := conn.ExecContext(ctx, `ATTACH DATABASE ? AS src`, uri); err != nil {
		return rep, explainMergeOpen(path, err)
	}
	defer detachSource(conn)
	if err := checkMergeSchema(ctx, conn, path); err != nil {
		return rep, err
	}
	if err := checkMergeIntegrity(ctx, conn, path); err != nil {
		return rep, err
	}
	// The transaction ends by the deferred Rollback (or the Commit), not by
	// ctx: a transaction begun with ctx is rolled back by database/sql on a
	// goroutine of its own when ctx ends, which raced the source's detach
	// (a source still attached refused the next merge: "database src is
	// already in use"). The statements still stop with ctx.
	tx, err := conn.BeginTx(context.WithoutCancel(ctx), nil)
	if err != nil {
		return rep, s.explainWriteError(err)
	}
	defer tx.Rollback()
	m := &merger{ctx: ctx, tx: tx, rep: &rep, opts: opts, path: path}
	if err := m.run(); err != nil {
		if ctx.Err() != nil {
			return rep, fmt.Errorf("merge of %s cancelled: nothing was changed", path)
		}
		return rep, fmt.Errorf("merge of %s failed, nothing was changed: %w", path, s.explainWriteError(err))
	}
	if err := tx.Commit(); err != nil {
		return rep, fmt.Errorf("merge of %s failed, nothing was changed: %w", path, s.explainWriteError(err))
	}
	return rep, nil
}

// detachSource detaches the merge's source from conn; a connection it
// cannot be detached from is closed rather than returned to the pool, so no
// later statement or merge finds the source there.
func detachSource(conn *sql.Conn) {
	if _, err := conn.ExecContext(context.Background(), `DETACH DATABASE src`); err != nil {
		_ = conn.Raw(func(any) error { return driver.ErrBadConn })
	}
}

// ErrMergeWhileRecording refuses a merge into a store an episode is being
// recorded into: the merge holds the store for writing until it commits,
// and a recorded step must never wait for that (nor fail).
var ErrMergeWhileRecording = errors.New("an episode is being recorded into this database")

// checkNoLiveRecording refuses while an episode of this store is recording
// in a live process (this one, or another program on the file such as
// waymark serve --record; see ownerAlive).
func (s *Store) checkNoLiveRecording(ctx context.Context) error {
	rows, err := s.db.QueryContext(ctx, `SELECT owner, COALESCE((SELECT MAX(created_at) FROM steps WHERE steps.episode_id=episodes.id), started_at)
		FROM episodes WHERE status='recording'`)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var owner, last string
		if err := rows.Scan(&owner, &last); err != nil {
			return err
		}
		if owner == s.owner || ownerAlive(owner, ParseTime(last)) {
			return fmt.Errorf("cannot merge now: %w (by this Waymark or another program); finish or stop that episode, then merge", ErrMergeWhileRecording)
		}
	}
	return rows.Err()
}

func reviewerName(who string) string {
	if who == "the settling label" {
		return who
	}
	return "the review by " + who
}

// Summary is the report in a few lines for people: what was added, what
// was already here, and every row the two files hold in different versions.
func (r MergeReport) Summary() string {
	var b strings.Builder
	part := func(m map[string]int) string {
		var p []string
		for _, t := range mergeTables {
			if t.noun != "" {
				p = append(p, fmt.Sprintf("%d %s", m[t.name], t.noun))
			}
		}
		return strings.Join(p, ", ")
	}
	fmt.Fprintf(&b, "merged %s\n  added: %s\n  already here (identical): %s\n", r.Source, part(r.Added), part(r.Identical))
	if r.GuidelinesTaken {
		fmt.Fprintf(&b, "  review guidelines: taken from %s (this database had none of its own)\n", r.Source)
	}
	if len(r.Issues) == 0 {
		b.WriteString("  could not reconcile: nothing\n")
		return b.String()
	}
	issues := append([]MergeIssue(nil), r.Issues...)
	sort.SliceStable(issues, func(i, j int) bool { return issues[i].Kind < issues[j].Kind })
	fmt.Fprintf(&b, "  could not reconcile (%d):\n", len(issues))
	for _, i := range issues {
		fmt.Fprintf(&b, "    - %s\n", i)
	}
	return b.String()
}
