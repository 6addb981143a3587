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
	"sort"
	"strings"
	"sync"

	"waymark/engine"
	"waymark/engine/har"
)

// Network capture: an engine that records the episode's traffic
// (engine.NetworkCapture) hands the recorder its finished HAR entries after
// every step; the recorder stores them as one gzip chunk in har_chunks, with
// the capture's summary and pages in episodes.har_json, so a crash loses at
// most the entries of the step in progress.

// harRec is the recorder's capture bookkeeping for the episode being
// recorded. Its own lock: the recorder flushes while holding r.op only.
type harRec struct {
	mu sync.Mutex
	ep string
	// steps maps the engine's step count to the stored step's index (they
	// differ after an undo or a resume).
	steps map[int]int
	// held are entries a failed write kept for the next flush;
	// heldArch and heldBodies the replay archive's.
	held       []har.Entry
	heldArch   []har.Entry
	heldBodies map[string][]byte
	// unmapped counts entries of steps the recorder did not record (a
	// replay bringing a resumed episode back); they are not stored.
	unmapped int
	// run counts the replays since the episode began: the pages of a
	// later run are named apart ("r1.page_1"), so they add to the earlier
	// ones.
	run int
	// err is the last failed write (the entries are in held).
	err error
}

// harStart begins the capture bookkeeping of a new episode and stores the
// reset's entries (step 0).
func (r *Recorder) harStart(episodeID string, done bool) {
	if _, ok := engine.As[engine.NetworkCapture](r.eng); !ok {
		return
	}
	r.har.mu.Lock()
	r.har.ep, r.har.steps, r.har.held, r.har.unmapped, r.har.run = episodeID, map[int]int{0: 0}, nil, 0, 0
	r.har.heldArch, r.har.heldBodies = nil, nil
	r.har.mu.Unlock()
	r.harFlush(0, 0, done)
}

// harFlush stores the entries the engine finished since the last flush;
// engineStep is the step count the engine gave the step stored as idx.
// A write failure keeps the entries for the next flush: the steps
// themselves are never stopped by it.
func (r *Recorder) harFlush(engineStep, idx int, final bool) {
	nc, ok := engine.As[engine.NetworkCapture](r.eng)
	if !ok {
		return
	}
	r.har.mu.Lock()
	defer r.har.mu.Unlock()
	if r.har.ep == "" {
		return
	}
	if r.har.steps != nil && engineStep >= 0 {
		r.har.steps[engineStep] = idx
	}
	c := nc.TakeHAR(final)
	if c.Off {
		r.har.ep = ""
		return
	}
	entries := r.har.held
	for _, e := range c.Entries {
		s, ok := r.har.steps[e.Step]
		if !ok {
			r.har.unmapped++
			continue
		}
		e.Step = s
		if r.har.run > 0 && e.Pageref != "" {
			e.Pageref = r.har.pagePrefix() + e.Pageref
		}
		entries = append(entries, e)
	}
	pages := c.Pages
	if r.har.run > 0 {
		pages = append([]har.Page(nil), pages...)
		for i := range pages {
			pages[i].ID = r.har.pagePrefix() + pages[i].ID
		}
	}
	recs, bodies := r.har.archive(c)
	if err := r.store.SaveHARChunk(context.Background(), r.har.ep, entries, c.Summary, pages); err != nil {
		r.har.held, r.har.heldArch, r.har.heldBodies = entries, recs, bodies
		r.har.err = err
		return
	}
	r.har.held = nil
	if err := r.store.SaveArchiveChunk(context.Background(), r.har.ep, recs, bodies); err != nil {
		r.har.heldArch, r.har.heldBodies = recs, bodies
		r.har.err = err
		return
	}
	r.har.heldArch, r.har.heldBodies, r.har.err = nil, nil, nil
	if final {
		r.har.ep = ""
	}
}

// SaveHARChunk stores entries as one chunk of episodeID's capture (none:
// only the summary) and updates the episode's capture summary; pages are
// merged by id with those already stored (a page's timings arrive late).
func (s *Store) SaveHARChunk(ctx context.Context, episodeID string, entries []har.Entry, sum har.Summary, pages []har.Page) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return s.explainWriteError(err)
	}
	defer tx.Rollback()
	var old sql.NullString
	if err := tx.QueryRowContext(ctx, `SELECT har_json FROM episodes WHERE id=?`, episodeID).Scan(&old); err != nil {
		return fmt.Errorf("episode %s: %w", episodeID, err)
	}
	sum.Pages = pages
	if old.Valid && old.String != "" {
		var prev har.Summary
		if json.Unmarshal([]byte(old.String), &prev) == nil {
			sum.Pages = mergePages(prev.Pages, pages)
		}
	}
	sj, err := json.Marshal(sum)
	if err != nil {
		return err
	}
	if len(entries) > 0 {
		blob, err := gzipJSON(entries)
		if err != nil {
			return err
		}
		first := entries[0].Step
		var body int64
		for _, e := range entries {
			first = min(first, e.Step)
			body += int64(len(e.Response.Content.Text))
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO har_chunks (episode_id, step_idx, entries, num_entries, body_bytes, created_at) VALUES (?,?,?,?,?,?)`,
			episodeID, first, blob, len(entries), body, now()); err != nil {
			return s.explainWriteError(err)
		}
	}
	if _, err := tx.ExecContext(ctx, `UPDATE episodes SET har_json=? WHERE id=?`, string(sj), episodeID); err != nil {
		return s.explainWriteError(err)
	}
	return s.explainWriteError(tx.Commit())
}

func gzipJSON(v any) ([]byte, error) {
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	enc := json.NewEncoder(zw)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// HARSummary returns the capture summary of an episode (with its pages),
// or nil when the episode was recorded without network capture.
func (s *Store) HARSummary(ctx context.Context, id string) (*har.Summary, error) {
	var sj sql.NullString
	err := s.db.QueryRowContext(ctx, `SELECT har_json FROM episodes WHERE id=?`, id).Scan(&sj)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("episode %s: %w", id, ErrNotFound)
	}
	if err != nil || !sj.Valid || sj.String == "" {
		return nil, err
	}
	var sum har.Summary
	if err := json.Unmarshal([]byte(sj.String), &sum); err != nil {
		return nil, fmt.Errorf("episode %s: the network capture summary is unreadable: %w", id, err)
	}
	return &sum, nil
}

// harEntries reads the stored entries of an episode in capture order; with
// step >= 0 only those that started during that step.
func (s *Store) harEntries(ctx context.Context, id string, step int) ([]har.Entry, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT id, entries FROM har_chunks WHERE episode_id=? ORDER BY id`, id)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []har.Entry{}
	for rows.Next() {
		var cid int64
		var blob []byte
		if err := rows.Scan(&cid, &blob); err != nil {
			return nil, err
		}
		zr, err := gzip.NewReader(bytes.NewReader(blob))
		if err != nil {
			return nil, fmt.Errorf("episode %s: network chunk %d is damaged: %w", id, cid, err)
		}
		raw, err := io.ReadAll(zr)
		if err != nil {
			return nil, fmt.Errorf("episode %s: network chunk %d is damaged: %w", id, cid, err)
		}
		var es []har.Entry
		if err := json.Unmarshal(raw, &es); err != nil {
			return nil, fmt.Errorf("episode %s: network chunk %d is unreadable: %w", id, cid, err)
		}
		for _, e := range es {
			if step < 0 || e.Step == step {
				out = append(out, e)
			}
		}
	}
	return out, rows.Err()
}

// StepRequests returns the requests that started during step (0: the
// reset) of episode id, in the order they finished; none (and no error)
// when the episode was recorded without capture.
func (s *Store) StepRequests(ctx context.Context, id string, step int) ([]har.Entry, error) {
	if step < 0 {
		return nil, fmt.Errorf("step %d: steps are numbered from 0", step)
	}
	return s.harEntries(ctx, id, step)
}

// EpisodeHAR returns the whole capture of episode id as a HAR 1.2 log:
// creator Waymark, the browser that recorded it, the pages and every
// entry, sorted by start time; the log's comment states the capture's
// settings (redacted or not, caps, bodies dropped). An episode recorded
// without capture is an error that says so.
func (s *Store) EpisodeHAR(ctx context.Context, id string) (*har.Log, error) {
	ep, err := s.GetEpisode(context.Background(), id)
	if err != nil {
		return nil, err
	}
	sum, err := s.HARSummary(ctx, id)
	if err != nil {
		return nil, err
	}
	if sum == nil {
		return nil, fmt.Errorf("episode %s was recorded without network capture: record with --har (the default when recording) to get its HAR", id)
	}
	entries, err := s.harEntries(ctx, id, -1)
	if err != nil {
		return nil, err
	}
	sortEntries(entries)
	log := har.NewLog("waymark", "1")
	log.Browser = browserOf(ep.EngineJSON)
	if sum.Pages != nil {
		log.Pages = sum.Pages
	}
	log.Entries = entries
	log.Comment = sum.Comment()
	return log, nil
}

// sortEntries orders entries by start time (the fixed-width ISO text sorts
// as time does), keeping capture order for ties.
func sortEntries(es []har.Entry) {
	sort.SliceStable(es, func(i, j int) bool { return es[i].StartedDateTime < es[j].StartedDateTime })
}

// browserOf reads "Chromium 156.0.1" from the episode's engine record.
func browserOf(engineJSON string) *har.Creator {
	var info engine.Info
	if json.Unmarshal([]byte(engineJSON), &info) != nil || info.Browser == "" {
		return nil
	}
	name, version, ok := strings.Cut(info.Browser, " ")
	if !ok {
		return &har.Creator{Name: info.Browser, Version: "unknown"}
	}
	return &har.Creator{Name: name, Version: version}
}

// harRestart follows a replay that brought episodeID's page back (undo,
// resume): the replay's own traffic is not a recorded step's and is left
// out; the steps recorded next are mapped as they come.
func (r *Recorder) harRestart(episodeID string) {
	nc, ok := engine.As[engine.NetworkCapture](r.eng)
	if !ok {
		return
	}
	r.har.mu.Lock()
	defer r.har.mu.Unlock()
	c := nc.TakeHAR(false)
	if c.Off {
		return
	}
	r.har.unmapped += len(c.Entries) + len(c.Archive)
	r.har.ep, r.har.steps, r.har.held = episodeID, map[int]int{}, nil
	if len(c.Bodies) > 0 {
		// A later record of the episode may name them (the engine hands
		// each content over once).
		if err := r.store.SaveArchiveChunk(context.Background(), episodeID, nil, c.Bodies); err != nil {
			r.har.heldBodies = c.Bodies
		}
	}
	r.har.run++
}

// archive maps the replay archive's records of c to the stored steps
// (those of steps the recorder did not record are left out, as the HAR's
// entries are), after what a failed write held; h.mu is held.
func (h *harRec) archive(c har.Capture) ([]har.Entry, map[string][]byte) {
	recs := h.heldArch
	for _, e := range c.Archive {
		s, ok := h.steps[e.Step]
		if !ok {
			h.unmapped++
			continue
		}
		e.Step = s
		for i, m := range e.WebSocketMessages {
			if ms, ok := h.steps[m.Step]; ok {
				e.WebSocketMessages[i].Step = ms
			}
		}
		recs = append(recs, e)
	}
	bodies := h.heldBodies
	for k, b := range c.Bodies {
		if bodies == nil {
			bodies = map[string][]byte{}
		}
		bodies[k] = b
	}
	return recs, bodies
}

func (h *harRec) pagePrefix() string { return fmt.Sprintf("r%d.", h.run) }

// mergePages keeps old's order, replacing pages that have news, and adds
// the new ones.
func mergePages(old, news []har.Page) []har.Page {
	at := map[string]int{}
	out := append([]har.Page(nil), old...)
	for i, p := range out {
		at[p.ID] = i
	}
	for _, p := range news {
		if i, ok := at[p.ID]; ok {
			out[i] = p
			continue
		}
		at[p.ID] = len(out)
		out = append(out, p)
	}
	return out
}
