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

	"waymark/engine/har"
)

// Every recording is its own offline site. A capturing engine hands the
// recorder, after every step, the replay archive's records of that step
// (every response of every target, as HAR entries whose body is named by
// its SHA-256, and each WebSocket's frames) and the bodies new to it; they
// are stored like the HAR's chunks (archive_chunks), the bodies once per
// content (bodies, gzip). Store.EpisodeArchive reads them back as an
// Archive: the engine.Archive a replay is served from (offline replay),
// which also keeps the replay's fidelity report (archive_serve.go).

// SaveArchiveChunk stores records as one chunk of episodeID's archive and
// the bodies they name that the store does not have yet.
func (s *Store) SaveArchiveChunk(ctx context.Context, episodeID string, records []har.Entry, bodies map[string][]byte) error {
	if len(records) == 0 && len(bodies) == 0 {
		return nil
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return s.explainWriteError(err)
	}
	defer tx.Rollback()
	t := now()
	for h, b := range bodies {
		gz, err := gzipBytes(b)
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO bodies (sha256, size, data, created_at) VALUES (?,?,?,?)`, h, len(b), gz, t); err != nil {
			return s.explainWriteError(err)
		}
	}
	used := map[string]bool{}
	for _, e := range records {
		if h := e.Response.Content.Hash; h != "" && !used[h] {
			used[h] = true
			if _, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO archive_bodies (episode_id, sha256) VALUES (?,?)`, episodeID, h); err != nil {
				return s.explainWriteError(err)
			}
		}
	}
	if len(records) > 0 {
		blob, err := gzipJSON(records)
		if err != nil {
			return err
		}
		first := records[0].Step
		for _, e := range records {
			first = min(first, e.Step)
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO archive_chunks (episode_id, step_idx, records, num_records, created_at) VALUES (?,?,?,?,?)`,
			episodeID, first, blob, len(records), t); err != nil {
			return s.explainWriteError(err)
		}
	}
	return s.explainWriteError(tx.Commit())
}

func gzipBytes(b []byte) ([]byte, error) {
	var out bytes.Buffer
	zw := gzip.NewWriter(&out)
	if _, err := zw.Write(b); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

// archiveRecords reads an episode's archive records in capture order.
func (s *Store) archiveRecords(ctx context.Context, id string) ([]har.Entry, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT id, records FROM archive_chunks WHERE episode_id=? ORDER BY id`, id)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []har.Entry
	for rows.Next() {
		var cid int64
		var blob []byte
		if err := rows.Scan(&cid, &blob); err != nil {
			return nil, err
		}
		raw, err := unzipBytes(blob)
		if err != nil {
			return nil, fmt.Errorf("episode %s: archive chunk %d is damaged: %w", id, cid, err)
		}
		var es []har.Entry
		if err := json.Unmarshal(raw, &es); err != nil {
			return nil, fmt.Errorf("episode %s: archive chunk %d is unreadable: %w", id, cid, err)
		}
		out = append(out, es...)
	}
	return out, rows.Err()
}

func unzipBytes(b []byte) ([]byte, error) {
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	return io.ReadAll(zr)
}

// Body returns a stored archive body by its hash.
func (s *Store) Body(ctx context.Context, hash string) ([]byte, error) {
	var gz []byte
	err := s.db.QueryRowContext(ctx, `SELECT data FROM bodies WHERE sha256=?`, hash).Scan(&gz)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("body %s: %w", hash, ErrNotFound)
	}
	if err != nil {
		return nil, err
	}
	b, err := unzipBytes(gz)
	if err != nil {
		return nil, fmt.Errorf("body %s is damaged: %w", hash, err)
	}
	return b, nil
}

// ArchiveSize describes an episode's archive: its records, the bytes of
// its bodies (each content once) and the bytes the store holds for them
// compressed.
type ArchiveSize struct {
	Records     int   `json:"records"`
	Bodies      int   `json:"bodies"`
	BodyBytes   int64 `json:"body_bytes"`
	StoredBytes int64 `json:"stored_bytes"`
}

// EpisodeArchiveSize measures episode id's archive.
func (s *Store) EpisodeArchiveSize(ctx context.Context, id string) (ArchiveSize, error) {
	var a ArchiveSize
	if err := s.db.QueryRowContext(ctx, `SELECT COALESCE(SUM(num_records),0) FROM archive_chunks WHERE episode_id=?`, id).Scan(&a.Records); err != nil {
		return a, err
	}
	err := s.db.QueryRowContext(ctx, `SELECT COUNT(*), COALESCE(SUM(b.size),0), COALESCE(SUM(length(b.data)),0)
		FROM archive_bodies ab JOIN bodies b ON b.sha256 = ab.sha256 WHERE ab.episode_id=?`, id).Scan(&a.Bodies, &a.BodyBytes, &a.StoredBytes)
	return a, err
}

// HasArchive reports whether episode id was recorded with a replay archive.
func (s *Store) HasArchive(ctx context.Context, id string) (bool, error) {
	var n int
	err := s.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM archive_chunks WHERE episode_id=? LIMIT 1`, id).Scan(&n)
	return n > 0, err
}

// ErrNoArchive is the error of an offline replay of an episode recorded
// without a replay archive.
var ErrNoArchive = errors.New("the episode was recorded without a replay archive (network capture was off, or Waymark was older): it can only be replayed online")

// EpisodeArchive reads episode id's archive, ready to serve a replay.
func (s *Store) EpisodeArchive(ctx context.Context, id string) (*Archive, error) {
	recs, err := s.archiveRecords(ctx, id)
	if err != nil {
		return nil, err
	}
	if len(recs) == 0 {
		return nil, fmt.Errorf("episode %s: %w", id, ErrNoArchive)
	}
	sum, err := s.HARSummary(ctx, id)
	if err != nil {
		return nil, err
	}
	a := newArchive(recs, func(h string) ([]byte, error) { return s.Body(context.Background(), h) })
	if sum != nil && sum.Redacted {
		a.red = har.NewRedactor(sum.RedactHeaders, sum.RedactKeys)
	}
	return a, nil
}
