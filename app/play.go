package app

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"waymark/engine"
	"waymark/engine/action"
)

func init() {
	register("play", "play --start-url URL [--server URL] [--shots DIR] [--display xvfb|headless] [--max-steps N] [--action-set S] [--recover-observation]",
		"run one browser episode from action JSON lines on stdin; print one JSON line per observation", runPlay)
}

// playLine is one line of play's output.
type playLine struct {
	Step       int      `json:"step"`
	URL        string   `json:"url"`
	Title      string   `json:"title"`
	Error      string   `json:"error"`
	Done       bool     `json:"done"`
	EndReason  string   `json:"end_reason,omitempty"`
	Answer     string   `json:"answer,omitempty"`
	Reward     *float64 `json:"reward,omitempty"`
	Screenshot string   `json:"screenshot"`
	MS         int64    `json:"ms"`
}

// playRefusal answers a line that is not a valid action.
type playRefusal struct {
	Line   int                 `json:"line"`
	Error  string              `json:"error"`
	Errors []action.FieldError `json:"errors,omitempty"`
}

func runPlay(env *Env, args []string) error {
	fs := newFlags(env, "play")
	startURL := fs.String("start-url", "", "the page the episode starts on (http or https)")
	shots := fs.String("shots", "", "folder to save each observation's PNG screenshot in (created if missing)")
	display := fs.String("display", "", "browser display: xvfb or headless (default: $WAYMARK_DISPLAY, else Xvfb when installed)")
	maxSteps := fs.Int("max-steps", 0, "step limit, 1–200 (default: $BROWSER_MAX_STEPS or 20)")
	setName := fs.String("action-set", "default", "action vocabulary: default (the reference's) or extended")
	server := fs.String("server", "", "play on the OpenEnv browser server at this URL (e.g. http://127.0.0.1:8000) instead of a local browser")
	recoverObs := fs.Bool("recover-observation", false, "re-read an observation that shows no visible content (after DOMContentLoaded, at most 3 times; never repeats the action); a page still blank ends the episode")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: unexpected arguments %q (options come as --name value)", errUsage, fs.Args())
	}
	if *startURL == "" {
		return fmt.Errorf("%w: --start-url is required, e.g. --start-url https://example.com", errUsage)
	}
	if err := action.CheckURL(*startURL); err != nil {
		return fmt.Errorf("%w: --start-url: %v", errUsage, err)
	}
	settings, err := engine.SettingsFromEnv()
	if err != nil {
		return err
	}
	if *maxSteps != 0 {
		if *maxSteps < 1 || *maxSteps > engine.MaxMaxSteps {
			return fmt.Errorf("%w: --max-steps must be from 1 to %d", errUsage, engine.MaxMaxSteps)
		}
		settings.MaxSteps = *maxSteps
	}
	if settings.ActionSet, err = action.ParseSet(*setName); err != nil {
		return fmt.Errorf("%w: --action-set: %v", errUsage, err)
	}
	settings.RecoverObservation = *recoverObs
	if *display != "" {
		if settings.Display, err = engine.ParseDisplay(*display); err != nil {
			return fmt.Errorf("%w: --display: %v", errUsage, err)
		}
	}
	if *shots != "" {
		if err := os.MkdirAll(*shots, 0o755); err != nil {
			return fmt.Errorf("cannot create the screenshot folder: %w", err)
		}
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	// --server: a remote OpenEnv browser server (e.g. `waymark serve` or
	// helium); else a local Chromium.
	eng, err := newEngine(ctx, engineSpec{Settings: settings, Server: *server})
	if err != nil {
		return err
	}
	defer eng.Close()

	out := json.NewEncoder(env.Stdout)
	emit := func(obs action.Observation) error {
		line := playLine{Step: obs.Step, URL: obs.URL, Title: obs.Title, Error: string(obs.Error), Done: obs.Done,
			EndReason: string(obs.EndReason), Answer: obs.Answer, Reward: obs.Reward, MS: obs.Timings.TotalMS}
		if *shots != "" && len(obs.Screenshot) > 0 {
			p := filepath.Join(*shots, fmt.Sprintf("step-%03d.png", obs.Step))
			if err := os.WriteFile(p, obs.Screenshot, 0o644); err != nil {
				return fmt.Errorf("cannot save the screenshot: %w", err)
			}
			line.Screenshot = p
		}
		return out.Encode(line)
	}

	obs, err := eng.Reset(ctx, engine.ResetOptions{StartURL: *startURL})
	if err != nil {
		return fmt.Errorf("could not open %s: %w", *startURL, err)
	}
	if err := emit(obs); err != nil || obs.Done {
		return err
	}
	refuse := func(ref playRefusal) error { return out.Encode(ref) }
	err = readActionLines(env.Stdin, maxPlayLine, func(n int, line []byte, size int) error {
		if line == nil {
			return refuse(playRefusal{Line: n, Error: fmt.Sprintf("line %d has %d bytes, more than the %d a line may have (an action is one JSON object of a few kilobytes); it was skipped", n, size, maxPlayLine)})
		}
		text := bytes.TrimSpace(line)
		if len(text) == 0 || text[0] == '#' {
			return nil
		}
		a, err := action.Parse(text, settings.ActionSet)
		if err != nil {
			ref := playRefusal{Line: n, Error: err.Error()}
			var ve *action.ValidationError
			if errors.As(err, &ve) {
				ref.Errors = ve.Errors
			}
			return refuse(ref)
		}
		obs, err := eng.Step(ctx, a)
		if err != nil {
			return err
		}
		if err := emit(obs); err != nil {
			return err
		}
		if obs.Done {
			return errPlayDone
		}
		if ctx.Err() != nil {
			return errors.New("interrupted")
		}
		return nil
	})
	if errors.Is(err, errPlayDone) {
		return nil
	}
	return err
}

// maxPlayLine bounds one line of play's input. Longer lines are refused one
// by one; the episode goes on.
const maxPlayLine = 1 << 20

var errPlayDone = errors.New("episode done")

// readActionLines calls fn for each line of r, numbered from 1, without its
// line ending. A line longer than max bytes is read through without being
// kept: fn gets nil and the line's size. fn's error stops the reading.
func readActionLines(r io.Reader, max int, fn func(n int, line []byte, size int) error) error {
	br := bufio.NewReaderSize(r, 64<<10)
	var buf []byte
	for n := 1; ; n++ {
		buf = buf[:0]
		size, over := 0, false
		var err error
		for {
			var chunk []byte
			chunk, err = br.ReadSlice('\n')
			size += len(chunk)
			if !over {
				if ended := len(chunk) > 0 && chunk[len(chunk)-1] == '\n'; size-1 > max || (size > max && !ended) {
					over = true
				} else {
					buf = append(buf, chunk...)
				}
			}
			if err != bufio.ErrBufferFull {
				break
			}
		}
		if err != nil && err != io.EOF {
			return fmt.Errorf("reading actions: %w", err)
		}
		if size == 0 && err == io.EOF {
			return nil
		}
		var line []byte
		if !over {
			line = bytes.TrimSuffix(bytes.TrimSuffix(buf, []byte("\n")), []byte("\r"))
			if line == nil {
				line = []byte{}
			}
		} else if size > 0 && err == nil {
			size-- // the line ending
		}
		if ferr := fn(n, line, size); ferr != nil {
			return ferr
		}
		if err == io.EOF {
			return nil
		}
	}
}
