package openenv

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"waymark/engine"
	"waymark/engine/openenv/control"
)

// live is a raw WebSocket client that keeps reading, so it answers the
// server's pings, and hands over the frames it reads.
type live struct {
	t      testing.TB
	c      *websocket.Conn
	frames chan []byte
	done   chan error
}

func dialLive(t testing.TB, url string) *live {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, _, err := websocket.Dial(ctx, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	c.SetReadLimit(MaxOutFrame)
	l := &live{t: t, c: c, frames: make(chan []byte, 16), done: make(chan error, 1)}
	go func() {
		for {
			_, data, err := c.Read(context.Background())
			if err != nil {
				l.done <- err
				return
			}
			l.frames <- data
		}
	}()
	t.Cleanup(func() { _ = c.CloseNow() })
	return l
}

func (l *live) send(msg string) {
	l.t.Helper()
	if err := l.c.Write(context.Background(), websocket.MessageText, []byte(msg)); err != nil {
		l.t.Fatalf("send %s: %v", msg, err)
	}
}

// next is the next frame (within 30 s).
func (l *live) next() []byte {
	l.t.Helper()
	select {
	case f := <-l.frames:
		return f
	case err := <-l.done:
		l.t.Fatalf("the connection ended: %v", err)
	case <-time.After(30 * time.Second):
		l.t.Fatal("no frame in 30 s")
	}
	return nil
}

func (l *live) call(msg string) []byte {
	l.t.Helper()
	l.send(msg)
	return l.next()
}

// A client that stays connected, answering pings, but sends no reset or
// step for the idle bound loses its session with IDLE_TIMEOUT: it is told
// why, the socket closes, the episode's end reason is idle_timeout, the
// engine (its browser) is closed, a watcher's "ended" carries the code,
// and the one --max-sessions slot serves the next client. Steps closer
// together than the bound keep the session, however long it runs; the
// bound is counted from the last answer.
func TestIdleSessionEnds(t *testing.T) {
	const bound = 1500 * time.Millisecond
	made := make(chan *sketchEngine, 4)
	rec := &interruptRec{}
	srv, hs := testServer(t, Options{MaxSessions: 1, IdleTimeout: bound,
		NewEngine:   func(context.Context) (engine.Engine, error) { e := newSketch(); made <- e; return e, nil },
		WrapEpisode: func(base engine.Engine, _ EpisodeStart) (engine.Engine, error) { rec.Engine = base; return rec, nil }})
	a := dialLive(t, wsURL(hs))
	a.call(`{"type":"reset","data":{"start_url":"https://example.com/"}}`)
	eng := <-made
	list, err := control.ListSessions(bg(), hs.URL)
	if err != nil || len(list) != 1 {
		t.Fatalf("sessions %+v %v", list, err)
	}
	w := watch(t, hs.URL, list[0].ID)
	begin := time.Now()
	// last is when the last step was sent: the server's idle clock starts
	// from that step (when it has it, or when it answers), never before, so
	// the end must come at least the bound after it. Taken after the
	// answer came back instead, it would lead the server's clock by the
	// answer's way back (1 ms under load was enough to fail).
	var last time.Time
	for time.Since(begin) < 2*bound {
		time.Sleep(bound / 4)
		last = time.Now()
		if code, msg := errCode(t, a.call(`{"type":"step","data":{"op":"wait"}}`)); code != "" {
			t.Fatalf("a step %v after the reset, each %v after the one before: %s %s", time.Since(begin).Round(time.Millisecond), bound/4, code, msg)
		}
	}
	data := a.next()
	idle := time.Since(last)
	code, msg := errCode(t, data)
	if code != CodeIdleTimeout || !strings.Contains(msg, "No reset or step for 1.5s") || !strings.Contains(msg, "--idle-timeout") {
		t.Fatalf("after going silent: %s", data)
	}
	if idle < bound {
		t.Errorf("the session ended %v after the last step was sent, before its %v bound", idle, bound)
	}
	select {
	case err := <-a.done:
		if websocket.CloseStatus(err) != websocket.StatusNormalClosure {
			t.Errorf("after IDLE_TIMEOUT: %v, want a normal closure", err)
		}
	case <-time.After(10 * time.Second):
		t.Error("the socket stayed open after IDLE_TIMEOUT")
	}
	ev := waitWatch(t, w, "the end", func(ev control.WatchEvent) bool { return ev.Ended != "" })
	if ev.EndedCode != CodeIdleTimeout || !strings.Contains(ev.Ended, "idle timeout") {
		t.Errorf("the watcher's end: %q (code %q)", ev.Ended, ev.EndedCode)
	}
	waitFor(t, "the slot to be freed", func() bool { return srv.ActiveSessions() == 0 })
	if !eng.closed.Load() {
		t.Error("the engine (the browser) was not closed")
	}
	if got := rec.got(); got != "idle_timeout" {
		t.Errorf("the episode's end reason: %q, want idle_timeout", got)
	}
	b := dialLive(t, wsURL(hs))
	if code, msg := errCode(t, b.call(`{"type":"reset","data":{"start_url":"https://example.com/"}}`)); code != "" {
		t.Errorf("the next client: %s %s", code, msg)
	}
}

// While a person holds control the agent may wait as long as it likes;
// the bound counts again from the hand-back.
func TestIdleBoundWaitsForThePerson(t *testing.T) {
	const bound = 500 * time.Millisecond
	srv, hs := testServer(t, Options{MaxSessions: 1, IdleTimeout: bound,
		NewEngine: func(context.Context) (engine.Engine, error) { return newSketch(), nil }})
	a := dialLive(t, wsURL(hs))
	a.call(`{"type":"reset","data":{"start_url":"https://example.com/"}}`)
	list, err := control.ListSessions(bg(), hs.URL)
	if err != nil || len(list) != 1 {
		t.Fatalf("sessions %+v %v", list, err)
	}
	w := watch(t, hs.URL, list[0].ID)
	if err := w.TakeOver(bg(), "ann"); err != nil {
		t.Fatal(err)
	}
	waitWatch(t, w, "control by ann", func(ev control.WatchEvent) bool { return ev.Session != nil && ev.Session.Control == "human:ann" })
	time.Sleep(4 * bound)
	if srv.ActiveSessions() != 1 {
		t.Fatalf("the session ended while a person held control")
	}
	if err := w.HandBack(bg()); err != nil {
		t.Fatal(err)
	}
	back := time.Now()
	code, _ := errCode(t, a.next())
	if code != CodeIdleTimeout {
		t.Fatalf("after the hand-back: %s", code)
	}
	if d := time.Since(back); d < bound {
		t.Errorf("the session ended %v after the hand-back, before its %v bound", d, bound)
	}
}

// A session's provider lease is renewed by the heartbeat only while its
// client answers pings: a client whose socket stays open but that no
// longer reads (a hung agent) is not kept alive, and its lease runs out
// with LEASE_EXPIRED. A client that answers keeps it (TestLeaseRenewedAndReported).
func TestLeaseNotRenewedForASilentClient(t *testing.T) {
	eng := newLeasedSketch(1500 * time.Millisecond) // heartbeats every 0.5 s
	srv, hs := testServer(t, Options{Provider: "remote_cdp", PingInterval: time.Hour, PongTimeout: time.Hour,
		NewEngine: func(context.Context) (engine.Engine, error) { return eng, nil }})
	r := dialRaw(t, hs) // reads only its replies: pings go unanswered in between
	r.call(`{"type":"reset","data":{"start_url":"https://example.com/"}}`)
	waitFor(t, "the lease to run out", func() bool { return srv.ActiveSessions() == 0 })
	if n := eng.count(); n != 1 {
		t.Errorf("%d renewals, want 1 (the reset's): the heartbeat renewed the lease of a client that answered no ping", n)
	}
	data, err := r.recv(10 * time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if code, msg := errCode(t, data); code != CodeLeaseExpired || !strings.Contains(msg, "did not answer a ping") {
		t.Errorf("got %s", data)
	}
	var ce websocket.CloseError
	if _, err := r.recv(5 * time.Second); !errors.As(err, &ce) {
		t.Errorf("after LEASE_EXPIRED: %v, want a close", err)
	}
}
