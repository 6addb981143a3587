package overlay

import (
	"context"
	"errors"
	"fmt"
	"image"
	"io"
	"time"

	"waymark/dataset"
	"waymark/engine/action"
)

// An episode of the store as an animated picture: `waymark gif` and the
// Review player's "Save as animated picture" both write it through
// WriteEpisodeGIF.

// Errors of EpisodeFrames that come from the request, not the store.
var (
	// ErrNoEpisode: the store has no episode of that id.
	ErrNoEpisode = errors.New("no such episode")
	// ErrStepRange: the steps asked for are not the episode's.
	ErrStepRange = errors.New("no such steps")
)

// GIFOptions chooses an episode's steps and its pace.
type GIFOptions struct {
	// From and To are the first and last step to show (From ≥ 1; To 0:
	// the episode's last).
	From, To int
	// Delay is how long each step shows (the end picture twice as long).
	Delay time.Duration
}

// EpisodeFrames lists the pictures of an episode's steps From..To
// (removed steps left out, as the export does): step k's action drawn on
// the page it was taken on (the screenshot of the step before), with a
// caption (step, action, actor), then the page the last one led to.
func EpisodeFrames(ctx context.Context, st *dataset.Store, id string, o GIFOptions) ([]GIFFrame, error) {
	from, to, delay := max(o.From, 1), o.To, o.Delay
	ep, err := st.GetEpisode(ctx, id)
	if err != nil {
		return nil, fmt.Errorf("%w: %s in %s", ErrNoEpisode, id, st.Path())
	}
	all, err := st.Steps(ctx, id)
	if err != nil {
		return nil, err
	}
	var kept []dataset.Step
	for _, s := range all {
		if !s.Removed {
			kept = append(kept, s)
		}
	}
	last := 0
	if len(kept) > 0 {
		last = kept[len(kept)-1].Index
	}
	if last == 0 {
		return nil, fmt.Errorf("episode %s has no steps to show", id)
	}
	if to == 0 || to > last {
		to = last
	}
	if from > to {
		return nil, fmt.Errorf("%w: episode %s has steps 1 to %d; the first step asked for, %d, is past them", ErrStepRange, id, last, from)
	}
	actor := ep.Annotator
	var frames []GIFFrame
	var pointer *image.Point
	for i := 1; i < len(kept); i++ {
		s, before := kept[i], kept[i-1]
		a := s.Action
		if s.Index >= from && s.Index <= to {
			shot, err := st.Screenshot(ctx, id, before.Index)
			if err != nil {
				return nil, err
			}
			frames = append(frames, GIFFrame{Screenshot: shot, Action: a, Pointer: pointer, Delay: delay,
				Caption: fmt.Sprintf("step %d of %d · %s · %s", s.Index, last, gifActionText(a), actor)})
		}
		pointer = PointerAfter(pointer, a)
		if s.Index == to {
			shot, err := st.Screenshot(ctx, id, s.Index)
			if err != nil {
				return nil, err
			}
			caption := fmt.Sprintf("after step %d · %s", s.Index, s.URL)
			if s.Index == last && ep.Status != dataset.StatusRecording {
				caption = fmt.Sprintf("end · %s", ep.Status)
				if ep.EndReason != "" && string(ep.EndReason) != string(ep.Status) {
					caption += " (" + string(ep.EndReason) + ")"
				}
				if ep.FinalAnswer != "" {
					caption += " · answer “" + ep.FinalAnswer + "”"
				}
			}
			frames = append(frames, GIFFrame{Screenshot: shot, Pointer: pointer, Delay: 2 * delay, Caption: caption})
			break
		}
	}
	return frames, nil
}

// WriteEpisodeGIF writes an episode's steps as one looping animated GIF
// and returns the number of pictures. It needs a Fyne app for the
// captions' text (see RenderFrame).
func WriteEpisodeGIF(ctx context.Context, w io.Writer, st *dataset.Store, id string, o GIFOptions) (int, error) {
	frames, err := EpisodeFrames(ctx, st, id, o)
	if err != nil {
		return 0, err
	}
	if err := WriteGIF(w, frames); err != nil {
		return 0, fmt.Errorf("episode %s: %w", id, err)
	}
	return len(frames), nil
}

func gifActionText(a *action.Action) string {
	if a == nil {
		return "no action"
	}
	return a.String()
}

// PointerAfter is where the pointer is after a, when it was at p before
// (nil: unknown; a new page makes it unknown). See View.SetPointer.
func PointerAfter(p *image.Point, a *action.Action) *image.Point {
	if a == nil {
		return p
	}
	switch a.Op {
	case action.Click, action.DoubleClick, action.Move:
		if a.X != nil && a.Y != nil {
			return &image.Point{X: *a.X, Y: *a.Y}
		}
	case action.Drag:
		if a.X2 != nil && a.Y2 != nil {
			return &image.Point{X: *a.X2, Y: *a.Y2}
		}
	case action.Goto, action.Back:
		return nil
	}
	return p
}
