package openenv

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"

	"waymark/engine"
	"waymark/engine/gym"
	"waymark/engine/openenv/control"
	"waymark/engine/openenv/wire"
)

// A WebSocket session's life: the loop that reads the agent's frames and
// answers them one at a time (each message's handling is in step.go), the
// pings, the end and the teardown.

// session is one WebSocket connection and its engine.
type session struct {
	srv  *Server
	info SessionInfo
	conn *websocket.Conn
	base engine.Engine // the session's own engine
	eng  engine.Engine // what runs the current episode (base or a wrapper)
	wrap engine.Engine // the current wrapper, closed at the next reset

	started bool   // a reset succeeded
	done    bool   // the episode ended
	agent   string // the agent's name from a metadata hint
	epAgent string // the current episode's agent name
	details bool   // the reset asked for titles and timings (metadata.details)
	// discarded: the client closed with EndDiscardedReason; the episode is
	// discarded, not interrupted, when the session ends
	discarded bool

	lease *leaseKeeper // nil: the engine holds no lease (lease.go)
	// lastActive is when the last reset or step was answered, or a person
	// in control handed back (the connection's start before any), in Unix
	// nanoseconds; counted: the message being handled is a reset or step
	// (idle.go).
	lastActive atomic.Int64
	counted    bool
	admitted   bool             // a reset was admitted (admission.go)
	gym        *gym.Session     // Options.BrowserGym: the episode in BrowserGym's terms (gym.go)
	ctl        *control.Session // shared control and watchers (engine/openenv/control)
}

// inbound is one frame from the client.
type inbound struct {
	typ  websocket.MessageType
	data []byte
}

// run is the session loop: a reader goroutine keeps reading (so pings are
// answered while an action runs), a pinger checks that the client is alive,
// and messages are handled one at a time in arrival order.
func (ss *session) run(ctx context.Context, cancel context.CancelFunc) {
	c := ss.conn
	var (
		qmu     sync.Mutex
		queue   []inbound
		readErr error
		wake    = make(chan struct{}, 1)
	)
	notify := func() {
		select {
		case wake <- struct{}{}:
		default:
		}
	}
	go func() {
		for {
			typ, data, err := c.Read(ctx)
			qmu.Lock()
			if err != nil {
				readErr = err
				qmu.Unlock()
				notify()
				cancel() // a step in progress stops: the client is gone
				return
			}
			queue = append(queue, inbound{typ, data})
			qmu.Unlock()
			notify()
		}
	}()
	go ss.pinger(ctx, cancel)
	ss.lease.start(ctx, notify)

	end := control.End{Reason: control.EndClientClosed}
	status, closeText := websocket.StatusNormalClosure, ""
loop:
	for {
		if lerr := ss.lease.endedErr(); lerr != nil {
			end = control.End{Reason: control.EndLeaseExpired, Detail: lerr.Error()}
			ss.leaseExpired(ctx, lerr)
			break
		}
		qmu.Lock()
		var m *inbound
		if len(queue) > 0 {
			m = &queue[0]
			queue = queue[1:]
		}
		rerr := readErr
		qmu.Unlock()
		if m == nil {
			if rerr != nil || ctx.Err() != nil {
				switch {
				case rerr != nil && websocket.CloseStatus(rerr) == -1:
					end = control.End{Reason: control.EndConnectionLost, Detail: rerr.Error()}
				case rerr != nil && closeReason(rerr) == EndDiscardedReason:
					end = control.End{Reason: control.EndDiscarded}
					ss.discarded = true
				case rerr == nil:
					end = control.End{Reason: control.EndStopped}
				}
				break
			}
			if left, ok := ss.idleLeft(); ok && left <= 0 {
				end = ss.idleExpired(ctx) // idle.go
				break
			}
			idle, stop := ss.idleTimer()
			select {
			case <-wake:
			case <-ctx.Done():
			case <-idle:
			}
			stop()
			continue
		}
		if m.typ != websocket.MessageText {
			end = control.End{Reason: control.EndBinaryFrame}
			// The close says it too (1003: data of a type not accepted),
			// for a client that sees only the close.
			status, closeText = websocket.StatusUnsupportedData, "binary frames are not supported: send JSON text frames"
			ss.send(ctx, errorFrame(CodeSessionError,
				"binary frames are not supported: send each message as one JSON text frame"))
			break
		}
		mctx, mdone := ss.lease.messageContext(ctx)
		reply, closing := ss.handle(mctx, m.data)
		mdone()
		if ss.counted { // a reset or step: the idle bound counts from now
			ss.touch()
			ss.counted = false
		}
		if ctx.Err() != nil {
			end = control.End{Reason: control.EndGoneMidMessage}
			break
		}
		if ss.lease.endedErr() != nil {
			continue // the lease ended meanwhile: the loop's top says so
		}
		if reply != nil && !ss.send(ctx, reply) {
			end = control.End{Reason: control.EndReplyFailed}
			break
		}
		if closing {
			end = control.End{Reason: control.EndCloseMessage}
			break loop
		}
	}
	ss.ctl.AgentLeft(ss.srv.ctx) // a person in control goes on alone
	ss.teardown()
	ss.ctl.End(end)
	ss.srv.release(ss.info.ID)
	ss.srv.opts.Logf("openenv: session %s ended (%s)", ss.info.ID, end)
	if ctx.Err() == nil {
		wire.CloseConn(c, status, closeText)
	} else {
		_ = c.CloseNow()
	}
}

// send writes one text frame; false when the socket is gone.
func (ss *session) send(ctx context.Context, msg []byte) bool {
	if len(msg) > MaxOutFrame {
		msg = errorFrame(CodeExecution, fmt.Sprintf("reply of %d bytes exceeds the %d-byte frame limit", len(msg), MaxOutFrame))
	}
	wctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	return ss.conn.Write(wctx, websocket.MessageText, msg) == nil
}

func (ss *session) pinger(ctx context.Context, cancel context.CancelFunc) {
	t := time.NewTicker(ss.srv.opts.PingInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		pctx, pcancel := context.WithTimeout(ctx, ss.srv.opts.PongTimeout)
		err := ss.conn.Ping(pctx)
		pcancel()
		if err != nil && ctx.Err() == nil {
			ss.srv.opts.Logf("openenv: session %s: no pong within %s; closing it", ss.info.ID, ss.srv.opts.PongTimeout)
			cancel()
			_ = ss.conn.CloseNow()
			return
		}
	}
}

// teardown closes the episode wrapper and the session's engine.
func (ss *session) teardown() {
	ss.lease.stop()
	if ss.wrap != nil {
		if d, ok := ss.wrap.(interface{ Discard() error }); ok && ss.discarded {
			if err := d.Discard(); err != nil {
				ss.srv.opts.Logf("openenv: session %s: discarding the episode: %v", ss.info.ID, err)
			}
		}
		if err := ss.wrap.Close(); err != nil {
			ss.srv.opts.Logf("openenv: session %s: closing the episode: %v", ss.info.ID, err)
		}
		ss.wrap = nil
	}
	if err := ss.base.Close(); err != nil {
		ss.srv.opts.Logf("openenv: session %s: closing the engine: %v", ss.info.ID, err)
	}
}

// closeReason is the reason of the close frame that ended a read ("" when
// none came).
func closeReason(err error) string {
	var ce websocket.CloseError
	if errors.As(err, &ce) {
		return ce.Reason
	}
	return ""
}

// closeConn closes politely but never waits long for a silent peer.
func closeConn(c *websocket.Conn, code websocket.StatusCode) { wire.CloseConn(c, code, "") }

// newControl is the session's shared control; the page's live frames
// reach its watchers unless Options.NoLiveFrames.
func (ss *session) newControl() *control.Session {
	var frames engine.LiveFrames
	if lf, ok := ss.base.(engine.LiveFrames); ok && !ss.srv.opts.NoLiveFrames {
		frames = lf
	}
	return control.NewSession(control.Info{ID: ss.info.ID, CreatedAt: ss.info.CreatedAt, ActionSet: ss.srv.opts.ActionSet, Frames: frames},
		func() engine.Engine { return ss.eng }, ss.touch)
}

// control is the session's shared control, made on first use for a
// session that was built without one.
func (ss *session) control() *control.Session {
	if ss.ctl == nil {
		ss.ctl = ss.newControl()
	}
	return ss.ctl
}

// keepOpen hands the session's engine to an episode wrapper without letting
// the wrapper close it. Everything else is the engine's: Unwrap lets the
// wrapper find the engine's optional interfaces (network capture, live
// frames, …) with engine.As.
type keepOpen struct{ engine.Engine }

func (keepOpen) Close() error { return nil }

// Unwrap is the session's engine.
func (k keepOpen) Unwrap() engine.Engine { return k.Engine }

// remoteHost is the host of a "host:port" remote address.
func remoteHost(addr string) string {
	if h, _, err := net.SplitHostPort(addr); err == nil {
		return h
	}
	return addr
}
