package dataset

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"image"
	_ "image/jpeg"
	"image/png"

	"github.com/disintegration/imaging"
)

// Thumbnail size: a quarter of the viewport each way (4:3).
const (
	ThumbWidth  = 160
	ThumbHeight = 120
)

// ErrNoScreenshot is returned by Thumbnail for a step stored without a
// screenshot (a renderer timeout).
var ErrNoScreenshot = errors.New("the step has no screenshot")

// Thumbnail returns a 160×120 PNG of step idx's screenshot. It is made with
// imaging on the first request and cached in the steps.thumb column; later
// calls read the cache and never recompute it.
func (s *Store) Thumbnail(ctx context.Context, episodeID string, idx int) ([]byte, error) {
	var thumb, shot []byte
	err := s.db.QueryRowContext(ctx, `SELECT thumb FROM steps WHERE episode_id=? AND idx=?`, episodeID, idx).Scan(&thumb)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("episode %s step %d: %w", episodeID, idx, ErrNotFound)
	}
	if err != nil {
		return nil, err
	}
	if len(thumb) > 0 {
		return thumb, nil
	}
	if err := s.db.QueryRowContext(ctx, `SELECT screenshot FROM steps WHERE episode_id=? AND idx=?`, episodeID, idx).Scan(&shot); err != nil {
		return nil, err
	}
	if len(shot) == 0 {
		return nil, fmt.Errorf("episode %s step %d: %w", episodeID, idx, ErrNoScreenshot)
	}
	thumb, err = MakeThumbnail(shot)
	if err != nil {
		return nil, fmt.Errorf("episode %s step %d: %w", episodeID, idx, err)
	}
	// A failed cache write is not the caller's problem: the thumbnail is
	// still good, it will simply be made again next time.
	_, _ = s.db.ExecContext(ctx, `UPDATE steps SET thumb=? WHERE episode_id=? AND idx=? AND thumb IS NULL`, thumb, episodeID, idx)
	return thumb, nil
}

// ThumbnailImage is Thumbnail decoded, ready for a canvas.Image.
func (s *Store) ThumbnailImage(ctx context.Context, episodeID string, idx int) (image.Image, error) {
	b, err := s.Thumbnail(ctx, episodeID, idx)
	if err != nil {
		return nil, err
	}
	return png.Decode(bytes.NewReader(b))
}

// MakeThumbnail scales a screenshot (PNG, JPEG) to 160×120, cropping the
// centre if its aspect is not 4:3, and encodes it as PNG.
func MakeThumbnail(screenshot []byte) ([]byte, error) {
	img, _, err := image.Decode(bytes.NewReader(screenshot))
	if err != nil {
		return nil, fmt.Errorf("the stored screenshot cannot be decoded: %w", err)
	}
	small := imaging.Fill(img, ThumbWidth, ThumbHeight, imaging.Center, imaging.Linear)
	var buf bytes.Buffer
	enc := png.Encoder{CompressionLevel: png.BestSpeed}
	if err := enc.Encode(&buf, small); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
