package app

import (
	"bytes"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

// watchProbe records what a closeWatch did, and when.
type watchProbe struct {
	mu                 sync.Mutex
	shutdowns, exits   int
	shutdownAt, exitAt time.Duration
	start              time.Time
	shutdownTakes      time.Duration
	begun              bool
	done               chan struct{} // closed when the first shutdown has finished
	log                bytes.Buffer
}

func (p *watchProbe) watch(grace time.Duration) *closeWatch {
	p.start = time.Now()
	p.done = make(chan struct{})
	return newCloseWatch(grace, p.shutdown, p.exit, &p.log)
}

// shutdown behaves as gui.shutdown: once, later callers wait for the first
// (on a channel: a goroutine waiting on a mutex would stop synctest's clock).
func (p *watchProbe) shutdown() {
	p.mu.Lock()
	first := !p.begun
	p.begun = true
	p.mu.Unlock()
	if !first {
		<-p.done
		return
	}
	time.Sleep(p.shutdownTakes)
	p.mu.Lock()
	p.shutdowns++
	p.shutdownAt = time.Since(p.start)
	p.mu.Unlock()
	close(p.done)
}

func (p *watchProbe) exit() {
	p.mu.Lock()
	p.exits++
	p.exitAt = time.Since(p.start)
	p.mu.Unlock()
}

// Fyne's loop never ends after the close (a window event lost at its end):
// the screens are closed by the watch after one grace, and the program is
// ended after a second, saying why.
func TestCloseWatchEndsAProgramWhoseLoopNeverEnds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var p watchProbe
		w := p.watch(5 * time.Second)
		w.closing()
		w.closing() // a second close (the signal, then shutdown) starts no second watch
		time.Sleep(time.Minute)
		synctest.Wait()
		if p.shutdowns != 1 || p.shutdownAt != 5*time.Second {
			t.Errorf("the screens were closed %d times, at %v; want once, at 5s", p.shutdowns, p.shutdownAt)
		}
		if p.exits != 1 || p.exitAt != 10*time.Second {
			t.Errorf("the program was ended %d times, at %v; want once, at 10s", p.exits, p.exitAt)
		}
		if !strings.Contains(p.log.String(), "the window did not finish closing within 10s; ending without it (the screens are closed and any episode saved)") {
			t.Errorf("log %q does not say why the program ended", p.log.String())
		}
	})
}

// A loop that ends in time is left alone, however long the close takes on
// it: a slow shutdown on the loop is waited for, not run twice or cut.
func TestCloseWatchLeavesALoopThatEnds(t *testing.T) {
	for _, c := range []struct {
		name                string
		shutdownTakes, ends time.Duration
	}{
		{"quick", 0, 100 * time.Millisecond},
		{"shutdown longer than the grace", 12 * time.Second, 12*time.Second + 50*time.Millisecond},
		{"loop ends late in the second grace", 0, 9 * time.Second},
	} {
		t.Run(c.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				p := watchProbe{shutdownTakes: c.shutdownTakes}
				w := p.watch(5 * time.Second)
				// The loop: the close runs on it, and it ends at c.ends.
				go func() {
					w.closing()
					p.shutdown()
					time.Sleep(c.ends - time.Since(p.start))
					w.loopEnded()
				}()
				time.Sleep(time.Minute)
				synctest.Wait()
				if p.exits != 0 || p.shutdowns != 1 {
					t.Errorf("ended %d times, screens closed %d times; want 0 and 1 (log %q)", p.exits, p.shutdowns, p.log.String())
				}
			})
		})
	}
}

// A shutdown that panics off the loop is reported, and the program still ends.
func TestCloseWatchEndsAfterAShutdownThatPanics(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var log bytes.Buffer
		exits := 0
		w := newCloseWatch(time.Second, func() { panic("the window is gone") }, func() { exits++ }, &log)
		w.closing()
		time.Sleep(time.Minute)
		synctest.Wait()
		if exits != 1 || !strings.Contains(log.String(), "the window is gone") || !strings.Contains(log.String(), "closing the screens failed") {
			t.Errorf("ended %d times, log %q; want once, with the panic", exits, log.String())
		}
	})
}
