package app

import (
	"fmt"
	"io"
	"sync"
	"time"
)

// closeWatch ends the program when the window's loop does not end after a
// close was asked for (the window closed, SIGINT or SIGTERM).
//
// Fyne 2.7 can lose a window event at the end of its loop: an event its
// lifecycle queue hands to the loop just as the loop drains for the last
// time is never run, and ShowAndRun then waits for that event for ever. A
// close that arrives then (our own SIGTERM handler's included) is never run
// either. The app would ignore a logout or a kill, and leave its recording
// episode open until the SIGKILL that follows.
type closeWatch struct {
	grace    time.Duration // how long the loop gets to end, after the close and again after shutdown
	shutdown func()        // closes the screens (the episode saved); runs once, safe to call again
	exit     func()        // closes the store and the browsers and ends the process
	log      io.Writer

	once  sync.Once
	ended chan struct{} // closed when the window's loop has ended
}

func newCloseWatch(grace time.Duration, shutdown, exit func(), log io.Writer) *closeWatch {
	return &closeWatch{grace: grace, shutdown: shutdown, exit: exit, log: log, ended: make(chan struct{})}
}

// closing starts the watch (once): the close was asked for.
func (c *closeWatch) closing() {
	c.once.Do(func() { go c.watch() })
}

// loopEnded says the window's loop has ended (ShowAndRun returned).
func (c *closeWatch) loopEnded() {
	select {
	case <-c.ended:
	default:
		close(c.ended)
	}
}

func (c *closeWatch) watch() {
	if c.wait() {
		return
	}
	// The screens are closed on the loop when it still runs (this waits
	// for it if it is closing them now), or here when the loop is gone.
	saved := func() (ok bool) {
		defer func() {
			if err := recover(); err != nil {
				fmt.Fprintf(c.log, "waymark: closing the screens without the window's loop: %v\n", err)
			}
		}()
		c.shutdown()
		return true
	}()
	if c.wait() {
		return
	}
	how := "the screens are closed and any episode saved"
	if !saved {
		how = "closing the screens failed (above)"
	}
	fmt.Fprintf(c.log, "waymark: the window did not finish closing within %v; ending without it (%s)\n", 2*c.grace, how)
	c.exit()
}

// wait reports whether the loop ended within the grace.
func (c *closeWatch) wait() bool {
	t := time.NewTimer(c.grace)
	defer t.Stop()
	select {
	case <-c.ended:
		return true
	case <-t.C:
		return false
	}
}
