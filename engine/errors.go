package engine

import (
	"errors"

	"waymark/engine/action"
)

// The engine's errors. Every engine (the local browser, the OpenEnv client)
// returns errors that errors.Is matches to one of these, whatever words they
// carry, so callers never compare messages.
var (
	// ErrClosed: the engine was closed (or its connection ended); nothing
	// more can be done with it.
	ErrClosed = errors.New("the browser engine is closed")
	// ErrResetBeforeStepping: Step with no episode running, or after the
	// episode is done (the reference's "reset before stepping").
	ErrResetBeforeStepping = errors.New(action.MsgResetBeforeStepping)
	// ErrNoBrowser: there is no Chromium to run (none installed, or the
	// path given names none).
	ErrNoBrowser = errors.New("Chromium was not found")
)

// Error is an engine error with its own words: it reads Msg and
// errors.Is matches it to Kind, one of the errors above.
type Error struct {
	Kind error
	Msg  string
}

func (e *Error) Error() string { return e.Msg }

// Unwrap returns the kind, so errors.Is(e, e.Kind) holds.
func (e *Error) Unwrap() error { return e.Kind }
