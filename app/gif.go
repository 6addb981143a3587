package app

import (
	"bytes"
	"fmt"
	"image"
	"os"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	fynetest "fyne.io/fyne/v2/test"

	"waymark/dataset"
	"waymark/engine/action"
	"waymark/ui/overlay"
)

func init() {
	register("gif", "gif EPISODE -o FILE.gif [--frame-ms 1000] [--from K] [--to K]",
		"write an episode as an animated picture: each step's screenshot with its action drawn on it and a caption (step, action, actor)", runGIF)
}

func runGIF(env *Env, args []string) error {
	fs := newFlags(env, "gif")
	out := fs.String("o", "", "the GIF file to write")
	frameMS := fs.Int("frame-ms", 1000, "how long each step shows, in milliseconds (the last picture shows twice as long)")
	from := fs.Int("from", 1, "the first step to show")
	to := fs.Int("to", 0, "the last step to show (0: the episode's last)")
	id, rest := "", args
	if len(rest) > 0 && !strings.HasPrefix(rest[0], "-") {
		id, rest = rest[0], rest[1:]
	}
	if err := fs.Parse(rest); err != nil {
		return err
	}
	if id == "" && fs.NArg() == 1 {
		id = fs.Arg(0)
	} else if fs.NArg() > 0 || id == "" {
		return fmt.Errorf("%w: waymark gif EPISODE -o FILE.gif", errUsage)
	}
	if *out == "" {
		return fmt.Errorf("%w: give the file to write with -o FILE.gif", errUsage)
	}
	if *frameMS < 20 || *frameMS > 60000 {
		return fmt.Errorf("%w: --frame-ms must be from 20 to 60000", errUsage)
	}
	if *from < 1 || *to < 0 || (*to > 0 && *to < *from) {
		return fmt.Errorf("%w: --from is a step from 1, and --to a step from --from on (0: the last)", errUsage)
	}
	st, err := env.OpenExistingStore()
	if err != nil {
		return err
	}
	defer st.Close()
	frames, err := episodeFrames(st, id, *from, *to, time.Duration(*frameMS)*time.Millisecond)
	if err != nil {
		return err
	}
	if fyne.CurrentApp() == nil {
		// The frames' text is drawn by Fyne's software renderer, which
		// reads the app's settings; no window is opened.
		fynetest.NewApp()
	}
	var buf bytes.Buffer
	if err := overlay.WriteGIF(&buf, frames); err != nil {
		return fmt.Errorf("episode %s: %w", id, err)
	}
	if err := os.WriteFile(*out, buf.Bytes(), 0o644); err != nil {
		return fmt.Errorf("cannot write %s: %w", *out, err)
	}
	fmt.Fprintf(env.Stdout, "Wrote %s: %d pictures, %s\n", *out, len(frames), formatSize(buf.Len()))
	return nil
}

func formatSize(n int) string {
	if n < 1<<20 {
		return fmt.Sprintf("%.0f KiB", float64(n)/1024)
	}
	return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
}

// episodeFrames lists the pictures of an episode's steps from..to (removed
// steps left out, as the export does): step k's action drawn on the page it
// was taken on (the screenshot of the step before), then the page the last
// one led to.
func episodeFrames(st *dataset.Store, id string, from, to int, delay time.Duration) ([]overlay.GIFFrame, error) {
	ep, err := st.GetEpisode(id)
	if err != nil {
		return nil, fmt.Errorf("%w: no episode %s in %s", errUsage, id, st.Path())
	}
	all, err := st.Steps(id)
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
		return nil, fmt.Errorf("%w: episode %s has steps 1 to %d; --from %d is past them", errUsage, id, last, from)
	}
	actor := ep.Annotator
	var frames []overlay.GIFFrame
	var pointer *image.Point
	for i := 1; i < len(kept); i++ {
		s, before := kept[i], kept[i-1]
		a := s.Action
		if s.Index >= from && s.Index <= to {
			shot, err := st.Screenshot(id, before.Index)
			if err != nil {
				return nil, err
			}
			frames = append(frames, overlay.GIFFrame{Screenshot: shot, Action: a, Pointer: pointer, Delay: delay,
				Caption: fmt.Sprintf("step %d of %d · %s · %s", s.Index, last, actionText(a), actor)})
		}
		pointer = pointerAfter(pointer, a)
		if s.Index == to {
			shot, err := st.Screenshot(id, s.Index)
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
			frames = append(frames, overlay.GIFFrame{Screenshot: shot, Pointer: pointer, Delay: 2 * delay, Caption: caption})
			break
		}
	}
	return frames, nil
}

func actionText(a *action.Action) string {
	if a == nil {
		return "no action"
	}
	return a.String()
}

// pointerAfter is where the pointer is after a (see overlay.View.SetPointer).
func pointerAfter(p *image.Point, a *action.Action) *image.Point {
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
