package control

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/coder/websocket"

	"waymark/engine/action"
	"waymark/engine/openenv/wire"
)

// Hub serves a server's live sessions to people: GET /sessions lists them,
// GET /sessions/{id}/watch is one session's watch socket, on which a
// person takes over (take_over), acts (step) and hands back (hand_back).
type Hub struct {
	sessions func() []*Session
	find     func(id string) *Session
	accept   func(w http.ResponseWriter, r *http.Request) (*websocket.Conn, error)
	stop     context.Context
	wg       sync.WaitGroup
}

// NewHub serves the sessions the server lists (sessions; find looks one
// up by id, nil when it is not live). accept upgrades a request to a
// WebSocket with the server's origin rules; stop ends every watch socket.
func NewHub(stop context.Context, sessions func() []*Session, find func(id string) *Session,
	accept func(w http.ResponseWriter, r *http.Request) (*websocket.Conn, error)) *Hub {
	return &Hub{sessions: sessions, find: find, accept: accept, stop: stop}
}

// Routes adds GET /sessions and the watch socket to mux.
func (h *Hub) Routes(mux *http.ServeMux) {
	mux.HandleFunc("GET /sessions", func(w http.ResponseWriter, r *http.Request) {
		list := h.summaries()
		b, _ := json.Marshal(struct {
			Sessions []SessionSummary `json:"sessions"`
		}{list})
		wire.WriteJSON(w, http.StatusOK, b)
	})
	mux.HandleFunc("GET /sessions/{id}/watch", h.serveWatch)
}

// Wait waits for the watch sockets to end (after stop).
func (h *Hub) Wait() { h.wg.Wait() }

// summaries lists the live sessions, oldest first.
func (h *Hub) summaries() []SessionSummary {
	ss := h.sessions()
	list := make([]SessionSummary, 0, len(ss))
	for _, x := range ss {
		list = append(list, x.Summary())
	}
	sort.Slice(list, func(i, j int) bool {
		if !list[i].CreatedAt.Equal(list[j].CreatedAt) {
			return list[i].CreatedAt.Before(list[j].CreatedAt)
		}
		return list[i].ID < list[j].ID
	})
	return list
}

// watcher is one watch socket's outgoing queue. Frames are dropped when
// the watcher is slow; a watcher too slow for steps is closed.
type watcher struct {
	out    chan []byte
	done   chan struct{}
	closed bool
}

func (w *watcher) sendLocked(msg []byte, important bool) {
	if w.closed {
		return
	}
	select {
	case w.out <- msg:
	default:
		if important {
			w.close()
		}
	}
}

func (w *watcher) close() {
	if !w.closed {
		w.closed = true
		close(w.done)
	}
}

// startFramesLocked forwards the session's live frames to its watchers,
// once.
func (c *Session) startFramesLocked() {
	if c.framesOn || c.info.Frames == nil {
		return
	}
	c.framesOn = true
	ch := c.info.Frames.Frames()
	go func() {
		for f := range ch {
			msg := wire.Frame("frame", wire.Obj(wire.Field{"seq", f.Seq}, wire.Field{"width", f.Width}, wire.Field{"height", f.Height},
				wire.Field{"jpeg", base64.StdEncoding.EncodeToString(f.JPEG)}))
			c.mu.Lock()
			for w := range c.watchers {
				w.sendLocked(msg, false)
			}
			c.mu.Unlock()
		}
	}()
}

func (h *Hub) serveWatch(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	c := h.find(id)
	if c == nil {
		wire.WriteJSON(w, http.StatusNotFound, wire.Obj(wire.Field{"detail", fmt.Sprintf("no live session %q: GET /sessions lists the live ones", id)}))
		return
	}
	conn, err := h.accept(w, r)
	if err != nil {
		return
	}
	conn.SetReadLimit(wire.MaxInFrame)
	defer conn.CloseNow() // after a polite close, a no-op
	h.wg.Add(1)
	defer h.wg.Done()
	ctx, cancel := context.WithCancel(h.stop)
	defer cancel()

	c.mu.Lock()
	// Room for the episode's earlier steps besides the usual queue.
	wt := &watcher{out: make(chan []byte, 64+len(c.history)), done: make(chan struct{})}
	if c.ended {
		c.mu.Unlock()
		wire.WriteAndClose(conn, wire.Frame("ended", wire.Obj(wire.Field{"reason", "the session has ended"})))
		return
	}
	c.watchers[wt] = struct{}{}
	c.broadcastSummaryLocked()
	if c.last != nil {
		// The episode's earlier steps (without their screenshots), then
		// the latest with its own: the watcher's timeline is whole.
		for _, st := range c.history[:len(c.history)-1] {
			wt.sendLocked(wire.Frame("observation", watchStepJSON(st)), true)
		}
		wt.sendLocked(wire.Frame("observation", watchStepJSON(*c.last)), true)
	}
	c.startFramesLocked()
	c.mu.Unlock()

	who := "" // "human:NAME" once this watcher took over
	defer func() {
		if who != "" {
			c.handBack(who)
		}
		c.mu.Lock()
		delete(c.watchers, wt)
		wt.close()
		c.broadcastSummaryLocked()
		c.mu.Unlock()
	}()

	// The writer sends the queue; it ends when the watcher is closed.
	go func() {
		for {
			select {
			case msg := <-wt.out:
				wctx, wcancel := context.WithTimeout(ctx, 30*time.Second)
				err := conn.Write(wctx, websocket.MessageText, msg)
				wcancel()
				if err != nil {
					cancel()
					return
				}
			case <-wt.done:
				// Flush what was queued (the "ended" message), then close.
			flush:
				for {
					select {
					case msg := <-wt.out:
						wctx, wcancel := context.WithTimeout(ctx, 5*time.Second)
						_ = conn.Write(wctx, websocket.MessageText, msg)
						wcancel()
					default:
						break flush
					}
				}
				wire.CloseConn(conn, websocket.StatusNormalClosure, "")
				cancel()
				return
			case <-ctx.Done():
				return
			}
		}
	}()
	reply := func(msg []byte) {
		c.mu.Lock()
		wt.sendLocked(msg, true)
		c.mu.Unlock()
	}
	for {
		typ, data, err := conn.Read(ctx)
		if err != nil {
			break
		}
		if typ != websocket.MessageText {
			reply(wire.ErrorFrame(wire.CodeValidation, "send each message as one JSON text frame"))
			continue
		}
		var m struct {
			Type string          `json:"type"`
			Data json.RawMessage `json:"data"`
		}
		if err := json.Unmarshal(data, &m); err != nil {
			reply(wire.ErrorFrame(wire.CodeInvalidJSON, "Invalid JSON: "+err.Error()))
			continue
		}
		switch m.Type {
		case "take_over":
			var d struct {
				Name string `json:"name"`
			}
			_ = json.Unmarshal(m.Data, &d)
			name := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(d.Name), humanPrefix))
			if name == "" || len(name) > 190 {
				reply(wire.ErrorFrame(wire.CodeValidation, `take_over needs your name: {"type":"take_over","data":{"name":"NAME"}} (1 to 190 characters)`))
				continue
			}
			if who != "" && who != humanPrefix+name {
				c.handBack(who)
			}
			if err := c.takeOver(humanPrefix + name); err != nil {
				reply(wire.ErrorFrame(wire.CodeExecution, err.Error()))
				continue
			}
			who = humanPrefix + name
		case "hand_back":
			if who == "" {
				reply(wire.ErrorFrame(wire.CodeExecution, "you are not in control: there is nothing to hand back"))
				continue
			}
			c.handBack(who)
			who = ""
		case "step":
			if who == "" {
				reply(wire.ErrorFrame(wire.CodeExecution, "you are not in control: take over first"))
				continue
			}
			v, err := wire.Decode(m.Data)
			if err != nil {
				reply(wire.ErrorFrame(wire.CodeInvalidJSON, "Invalid JSON: "+err.Error()))
				continue
			}
			a, err := action.FromValue(v, c.info.ActionSet)
			if err != nil {
				var ve *action.ValidationError
				if errors.As(err, &ve) && len(ve.Errors) > 0 {
					reply(wire.ValidationFrame(ve.Errors))
				} else {
					reply(wire.ErrorFrame(wire.CodeValidation, "Invalid action: "+err.Error()))
				}
				continue
			}
			if _, err := c.humanStep(ctx, who, a); err != nil {
				reply(wire.ErrorFrame(wire.CodeExecution, err.Error()))
			}
		default:
			reply(wire.ErrorFrame(wire.CodeUnknownType, fmt.Sprintf("Unknown message type: %s (a watcher sends take_over, step or hand_back)", m.Type)))
		}
	}
}
