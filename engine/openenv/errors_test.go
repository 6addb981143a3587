package openenv

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"waymark/engine"
	"waymark/engine/action"
)

// refusingEngine resets like the sketch engine and refuses every step with
// err, as an engine does when its episode ended or it was closed.
type refusingEngine struct {
	*sketchEngine
	err error
}

func (e refusingEngine) Step(context.Context, engine.Action) (engine.Observation, error) {
	return engine.Observation{}, e.err
}

// The client's errors are engine's sentinels, whether the client refuses on
// its own or the server (over a real WebSocket on 127.0.0.1) refuses with
// the engine's words: callers match errors.Is, never the text.
func TestClientErrorsAreTheEngineSentinels(t *testing.T) {
	ctx := context.Background()
	blank := fmt.Errorf("%w: the last observation showed no visible content", engine.ErrResetBeforeStepping)
	for _, c := range []struct {
		name     string
		stepErr  error
		want     error
		wantText string
	}{
		{"episode over", engine.ErrResetBeforeStepping, engine.ErrResetBeforeStepping, "OpenEnv server error EXECUTION_ERROR: reset before stepping"},
		{"episode over, with a reason", blank, engine.ErrResetBeforeStepping, "OpenEnv server error EXECUTION_ERROR: " + blank.Error()},
		{"engine closed", engine.ErrClosed, engine.ErrClosed, "OpenEnv server error EXECUTION_ERROR: the browser engine is closed"},
		{"another failure", errors.New("the page closed its last tab"), nil, "OpenEnv server error EXECUTION_ERROR: the page closed its last tab"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, hs := testServer(t, Options{NewEngine: func(context.Context) (engine.Engine, error) {
				return refusingEngine{newSketch(), c.stepErr}, nil
			}})
			cl, err := Dial(ctx, hs.URL, ClientOptions{})
			if err != nil {
				t.Fatal(err)
			}
			defer cl.Close()
			if _, err := cl.Reset(ctx, engine.ResetOptions{StartURL: "https://example.com/"}); err != nil {
				t.Fatal(err)
			}
			_, err = cl.Step(ctx, action.ScrollBy(1))
			var se *ServerError
			if !errors.As(err, &se) || err.Error() != c.wantText {
				t.Fatalf("step: %v, want a server error reading %q", err, c.wantText)
			}
			for _, kind := range []error{engine.ErrResetBeforeStepping, engine.ErrClosed, engine.ErrNoBrowser} {
				if got := errors.Is(err, kind); got != (kind == c.want) {
					t.Errorf("errors.Is(%v, %v) = %v", err, kind, got)
				}
			}
		})
	}

	// The client's own refusals: a step before any reset, anything after Close.
	_, hs := testServer(t, Options{NewEngine: sketchFactory(nil)})
	cl, err := Dial(ctx, hs.URL, ClientOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cl.Step(ctx, action.ScrollBy(1)); !errors.Is(err, engine.ErrResetBeforeStepping) || err.Error() != action.MsgResetBeforeStepping {
		t.Errorf("step before reset: %v", err)
	}
	if _, err := cl.Reset(ctx, engine.ResetOptions{StartURL: "https://example.com/"}); err != nil {
		t.Fatal(err)
	}
	cl.Close()
	if _, err := cl.Step(ctx, action.ScrollBy(1)); !errors.Is(err, engine.ErrClosed) {
		t.Errorf("step after close: %v, want engine.ErrClosed", err)
	}
	if _, err := cl.Reset(ctx, engine.ResetOptions{StartURL: "https://example.com/"}); !errors.Is(err, engine.ErrClosed) {
		t.Errorf("reset after close: %v, want engine.ErrClosed", err)
	}
}

// Only an execution error with the engine's words stands for an engine
// error; other codes that happen to quote them do not.
func TestServerErrorUnwrap(t *testing.T) {
	for _, c := range []struct {
		se   ServerError
		want error
	}{
		{ServerError{Code: CodeExecution, Message: "reset before stepping"}, engine.ErrResetBeforeStepping},
		{ServerError{Code: CodeExecution, Message: "reset before stepping: the page showed nothing"}, engine.ErrResetBeforeStepping},
		{ServerError{Code: CodeExecution, Message: "the browser engine is closed"}, engine.ErrClosed},
		{ServerError{Code: CodeExecution, Message: "reset before steppingX"}, nil},
		{ServerError{Code: CodeExecution, Message: "could not reset before stepping"}, nil},
		{ServerError{Code: CodeValidation, Message: "reset before stepping"}, nil},
		{ServerError{Code: CodeSessionError, Message: "the browser engine is closed"}, nil},
	} {
		if got := c.se.Unwrap(); got != c.want {
			t.Errorf("%+v: Unwrap() = %v, want %v", c.se, got, c.want)
		}
	}
}
