package dataset

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/png"

	"waymark/engine/action"
)

// AddRedaction blacks out a box of step idx's stored screenshot that the
// redaction policy missed: the box is burnt into the picture (the stored
// PNG and its cached thumbnail are replaced; nothing of what it covered
// is kept), added to the
// step's boxes with why ("added by NAME: REASON"), and the audit log gets
// a 'redact' row. The episode must have ended. The box is in viewport
// pixels and must overlap the screenshot.
func (s *Store) AddRedaction(ctx context.Context, episodeID string, idx int, b action.RedactBox, editor, reason string) error {
	if b.W <= 0 || b.H <= 0 || b.X >= action.ViewportWidth || b.Y >= action.ViewportHeight || b.X+b.W <= 0 || b.Y+b.H <= 0 {
		return fmt.Errorf("the box %d,%d %d×%d is not on the 800×600 screenshot: draw it over what is to be blacked out", b.X, b.Y, b.W, b.H)
	}
	return s.edit(ctx, episodeID, editor, reason, true, func(tx *sql.Tx, _ Status) error {
		var shot []byte
		var red sql.NullString
		err := tx.QueryRowContext(ctx, `SELECT screenshot, redaction_json FROM steps WHERE episode_id=? AND idx=?`, episodeID, idx).Scan(&shot, &red)
		if errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("episode %s has no step %d", episodeID, idx)
		}
		if err != nil {
			return s.explainWriteError(err)
		}
		if len(shot) == 0 {
			return fmt.Errorf("step %d of episode %s has no screenshot to black out", idx, episodeID)
		}
		burnt, err := burnBox(shot, b)
		if err != nil {
			return fmt.Errorf("step %d's screenshot cannot be read: %w", idx, err)
		}
		var boxes []action.RedactBox
		if red.Valid && red.String != "" {
			_ = json.Unmarshal([]byte(red.String), &boxes)
		}
		why := "added by " + editor
		if reason != "" {
			why += ": " + reason
		}
		b.Why = why
		boxes = append(boxes, b)
		bj, _ := json.Marshal(boxes)
		if _, err := tx.ExecContext(ctx, `UPDATE steps SET screenshot=?, redaction_json=?, thumb=NULL WHERE episode_id=? AND idx=?`, burnt, string(bj), episodeID, idx); err != nil {
			return s.explainWriteError(err)
		}
		return s.logEdit(ctx, tx, episodeID, idx, EditRedact, editor, reason, 0)
	})
}

// burnBox fills b with solid black in a PNG.
func burnBox(pic []byte, b action.RedactBox) ([]byte, error) {
	img, err := png.Decode(bytes.NewReader(pic))
	if err != nil {
		return nil, err
	}
	rgba := image.NewRGBA(img.Bounds())
	draw.Draw(rgba, rgba.Bounds(), img, img.Bounds().Min, draw.Src)
	draw.Draw(rgba, image.Rect(b.X, b.Y, b.X+b.W, b.Y+b.H).Intersect(rgba.Bounds()), image.NewUniform(color.RGBA{0, 0, 0, 255}), image.Point{}, draw.Src)
	var out bytes.Buffer
	if err := png.Encode(&out, rgba); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}
