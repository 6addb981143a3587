package ui

import (
	"sync/atomic"
	"time"

	"fyne.io/fyne/v2"
)

// Bridge is the one place where work from other goroutines (the episode
// runner, pause timers, the Record screen's frame pump) is handed to the
// Fyne goroutine. Nothing else in ui calls fyne.Do. The zero value is
// ready to use.
type Bridge struct {
	closed atomic.Bool
	// post, when set, replaces fyne.Do (tests run the hand-offs on their
	// own goroutine, as the real main loop would).
	post func(func())
}

// Do runs fn on the Fyne goroutine (after the current callback when called
// from it). After Close it does nothing, so late reports from background
// goroutines cannot touch a window that is gone.
func (b *Bridge) Do(fn func()) {
	if b.closed.Load() {
		return
	}
	run := func() {
		if !b.closed.Load() {
			fn()
		}
	}
	if b.post != nil {
		b.post(run)
		return
	}
	fyne.Do(run)
}

// After runs fn on the Fyne goroutine once d has passed.
func (b *Bridge) After(d time.Duration, fn func()) {
	time.AfterFunc(d, func() { b.Do(fn) })
}

// Close stops all later hand-offs.
func (b *Bridge) Close() { b.closed.Store(true) }

// NewBridgeWith returns a bridge that hands work to post instead of
// fyne.Do. Tests use it to run the hand-offs on their own goroutine, as
// the main loop would.
func NewBridgeWith(post func(func())) *Bridge { return &Bridge{post: post} }
