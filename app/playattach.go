package app

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"waymark/engine/action"
	"waymark/engine/openenv/control"
)

// runPlayAttach is play --server URL --attach SESSION: it takes over a
// live session of that serve as the person name, performs the actions read
// from standard input in the session's episode (stored as human:NAME when
// serve records), prints one line per answer as play does, and hands
// control back to the agent at the end of input.
func runPlayAttach(env *Env, server, sessionID, name, shots string) error {
	name = strings.TrimSpace(name)
	if name == "" {
		return fmt.Errorf("%w: --attach needs your name for the steps you take (--as NAME, or $USER)", errUsage)
	}
	if shots != "" {
		if err := mkdirOwnerOnly(shots); err != nil {
			return fmt.Errorf("cannot create the screenshot folder: %w", err)
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	w, err := control.Watch(ctx, server, sessionID)
	if err != nil {
		return err
	}
	defer w.Close()
	me := "human:" + name
	// next reads until an event ok accepts; a server error is returned.
	next := func(what string, ok func(control.WatchEvent) bool) (control.WatchEvent, error) {
		for {
			ev, err := w.Next(ctx)
			if err != nil {
				return ev, fmt.Errorf("session %s: the connection ended while waiting for %s: %w", sessionID, what, err)
			}
			if ev.Ended != "" {
				return ev, fmt.Errorf("session %s ended (%s)", sessionID, ev.Ended)
			}
			if ev.Error != nil || ok(ev) {
				return ev, nil
			}
		}
	}
	if err := w.TakeOver(ctx, name); err != nil {
		return err
	}
	ev, err := next("control", func(ev control.WatchEvent) bool { return ev.Session != nil && ev.Session.Control == me })
	if err != nil {
		return err
	}
	if ev.Error != nil {
		return fmt.Errorf("could not take over session %s: %s", sessionID, ev.Error.Message)
	}
	fmt.Fprintf(env.Stderr, "waymark play: you (%s) are in control of session %s; the agent's steps are held until you hand back (end of input)\n", me, sessionID)
	handBack := func() error {
		if err := w.HandBack(ctx); err != nil {
			return err
		}
		_, err := next("the hand-back", func(ev control.WatchEvent) bool { return ev.Session != nil && ev.Session.Control != me })
		if err == nil {
			fmt.Fprintf(env.Stderr, "waymark play: control handed back to the agent of session %s\n", sessionID)
		}
		return err
	}
	out := json.NewEncoder(env.Stdout)
	done, err := answerLines(ctx, env.Stdin, out, "", func(n int, line []byte) (*playRefusal, bool, error) {
		text := bytes.TrimSpace(line)
		if len(text) == 0 || text[0] == '#' {
			return &playRefusal{Line: n, Error: fmt.Sprintf(`line %d is empty or a comment: nothing was done (write one JSON action per line)`, n)}, false, nil
		}
		// The server checks the action against its own action set.
		a, err := action.Parse(text, action.SetExtended)
		if err != nil {
			return actionRefusal(n, err), false, nil
		}
		if err := w.Step(ctx, a); err != nil {
			return nil, false, err
		}
		ev, err := next("the step's observation", func(ev control.WatchEvent) bool { return ev.Step != nil && ev.Step.Actor == me })
		if err != nil {
			return nil, false, err
		}
		if ev.Error != nil {
			return &playRefusal{Line: n, Error: ev.Error.Message}, false, nil
		}
		st := ev.Step
		pl := playLine{Step: st.Step, URL: st.URL, Title: st.Title, Error: st.Error, Done: st.Done}
		if shots != "" && len(st.Screenshot) > 0 {
			p := filepath.Join(shots, fmt.Sprintf("step-%03d.png", st.Step))
			if err := writeOwnerOnly(p, st.Screenshot); err != nil {
				return nil, false, fmt.Errorf("cannot save the screenshot: %w", err)
			}
			pl.Screenshot = p
		}
		return nil, st.Done, out.Encode(pl)
	})
	if done {
		return nil // the episode is over: there is nothing to hand back
	}
	if err != nil {
		return errors.Join(err, handBack())
	}
	return handBack()
}
