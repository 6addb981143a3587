package app

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"time"

	"fyne.io/fyne/v2"
	fynetest "fyne.io/fyne/v2/test"

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
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return fmt.Errorf("%w: waymark gif EPISODE -o FILE.gif", errUsage)
	}
	id := pos[0]
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
	if fyne.CurrentApp() == nil {
		// The frames' text is drawn by Fyne's software renderer, which
		// reads the app's settings; no window is opened.
		fynetest.NewApp()
	}
	var buf bytes.Buffer
	n, err := overlay.WriteEpisodeGIF(context.Background(), &buf, st, id, overlay.GIFOptions{From: *from, To: *to, Delay: time.Duration(*frameMS) * time.Millisecond})
	switch {
	case errors.Is(err, overlay.ErrNoEpisode):
		return fmt.Errorf("%w: no episode %s in %s", errUsage, id, st.Path())
	case errors.Is(err, overlay.ErrStepRange):
		return fmt.Errorf("%w: %v (--from)", errUsage, err)
	case err != nil:
		return err
	}
	if err := writeOwnerOnly(*out, buf.Bytes()); err != nil {
		return fmt.Errorf("cannot write %s: %w", *out, err)
	}
	fmt.Fprintf(env.Stdout, "Wrote %s: %d pictures, %s\n", *out, n, formatSize(buf.Len()))
	return nil
}

func formatSize(n int) string {
	if n < 1<<20 {
		return fmt.Sprintf("%.0f KiB", float64(n)/1024)
	}
	return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
}
