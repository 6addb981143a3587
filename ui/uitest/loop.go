// Package uitest holds what screen tests share.
package uitest

import (
	"sync"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/widget"

	"waymark/ui"
)

// Loop stands in for the Fyne goroutine: the bridge it gives queues the
// hand-offs of background work, and the test runs them, on its own
// goroutine, when it chooses. Nothing then touches widgets behind the
// test's back.
type Loop struct {
	mu sync.Mutex
	q  []func()
}

// Bridge returns a bridge that hands work to the loop.
func (l *Loop) Bridge() *ui.Bridge { return ui.NewBridgeWith(l.post) }

func (l *Loop) post(f func()) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.q = append(l.q, f)
}

// Queued says how many hand-offs wait to run.
func (l *Loop) Queued() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.q)
}

// Run runs the hand-offs queued so far and says how many there were.
func (l *Loop) Run() int {
	l.mu.Lock()
	q := l.q
	l.q = nil
	l.mu.Unlock()
	for _, f := range q {
		f()
	}
	return len(q)
}

// AsButton is o as a button: a widget.Button, or a dialog's
// ui.DialogButton (a widget.Button that also takes Enter and Escape).
func AsButton(o fyne.CanvasObject) (*widget.Button, bool) {
	switch b := o.(type) {
	case *widget.Button:
		return b, true
	case *ui.DialogButton:
		return &b.Button, true
	}
	return nil, false
}
