package openenv

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

	"waymark/engine"
	"waymark/engine/action"
)

// Shared control: a person watches a live session (GET /sessions, the
// watch socket at /sessions/{id}/watch), takes over, acts in the same
// episode and hands back. While a person holds control the agent's reset
// and step requests are held; the agent's first step after a person acted
// is answered with the page as it is now, its own action not performed
// (ErrorNotExecuted, observation.metadata.intervention).

// ErrorNotExecuted is the observation's error when the agent's action was
// not performed because a person acted since the agent's last observation.
const ErrorNotExecuted = "action_not_executed"

// Actor prefixes of who holds control.
const (
	agentPrefix = "agent:"
	humanPrefix = "human:"
)

// actorStepper is an episode engine that stores who acted (the recorder).
type actorStepper interface {
	StepAs(ctx context.Context, a engine.Action, actor string) (engine.Observation, error)
}

// SessionSummary is one live session as GET /sessions lists it.
type SessionSummary struct {
	ID        string `json:"id"`
	Agent     string `json:"agent"`
	EpisodeID string `json:"episode_id"`
	StartURL  string `json:"start_url"`
	URL       string `json:"url"`
	Steps     int    `json:"steps"`
	Done      bool   `json:"done"`
	// Control is who is in control: "agent:NAME" or "human:NAME".
	Control string `json:"control"`
	// AgentConnected is false once the agent's socket has closed (a
	// person who held control then goes on alone).
	AgentConnected bool `json:"agent_connected"`
	// AgentWaiting: the agent's request is held while a person has control.
	AgentWaiting bool      `json:"agent_waiting"`
	Watchers     int       `json:"watchers"`
	CreatedAt    time.Time `json:"created_at"`
	// ActionSet is the vocabulary the session accepts (a person's actions too).
	ActionSet action.Set `json:"action_set"`
}

// WatchStep is one step as watchers see it (the "observation" message).
type WatchStep struct {
	Step   int             `json:"step"`
	Actor  string          `json:"actor"`
	Action json.RawMessage `json:"action"` // null for a reset
	URL    string          `json:"url"`
	Title  string          `json:"title"`
	Error  string          `json:"error"`
	Done   bool            `json:"done"`
	// Screenshot is the PNG after the step, base64 on the wire.
	Screenshot []byte `json:"screenshot"`
	// Reward is the automatic check's result when the step ended the
	// episode with one.
	Reward *float64 `json:"reward,omitempty"`
}

// control is one session's shared-control state. The engine is used by
// one side at a time: whoever sets busy.
type control struct {
	ss      *session
	mu      sync.Mutex
	changed chan struct{} // closed and replaced at every change

	holder         string // "": the agent; else "human:NAME"
	busy           bool   // an agent or person is using the engine
	agentWaiting   bool
	agentConnected bool
	ended          bool

	agent, startURL, episodeID string
	started                    bool
	last                       *WatchStep
	pending                    []WatchStep // the person's steps since the agent's last observation
	// history is the episode's steps so far, screenshots dropped: a
	// watcher that connects mid-episode gets them before the latest.
	history []WatchStep

	watchers map[*watcher]struct{}
	framesOn bool
}

func newControl(ss *session) *control {
	return &control{ss: ss, changed: make(chan struct{}), agentConnected: true, watchers: map[*watcher]struct{}{}}
}

// notify wakes every waiter; c.mu is held.
func (c *control) notify() {
	close(c.changed)
	c.changed = make(chan struct{})
}

func (c *control) summaryLocked() SessionSummary {
	s := SessionSummary{ID: c.ss.info.ID, Agent: c.agent, EpisodeID: c.episodeID, StartURL: c.startURL,
		Control: c.holder, AgentConnected: c.agentConnected, AgentWaiting: c.agentWaiting,
		Watchers: len(c.watchers), CreatedAt: c.ss.info.CreatedAt, ActionSet: c.ss.srv.opts.ActionSet}
	if s.Control == "" {
		s.Control = agentPrefix + c.agent
	}
	if c.last != nil {
		s.URL, s.Steps, s.Done = c.last.URL, c.last.Step, c.last.Done
	}
	return s
}

func (c *control) summary() SessionSummary {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.summaryLocked()
}

// acquireAgent waits until no person holds control and nobody uses the
// engine, then takes it; watchers see that the agent is waiting.
func (c *control) acquireAgent(ctx context.Context) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	for c.holder != "" || c.busy {
		if c.holder != "" && !c.agentWaiting {
			c.agentWaiting = true
			c.broadcastSummaryLocked()
		}
		ch := c.changed
		c.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			c.mu.Lock()
			c.agentWaiting = false
			return ctx.Err()
		}
		c.mu.Lock()
	}
	c.busy = true
	if c.agentWaiting {
		c.agentWaiting = false
		c.broadcastSummaryLocked()
	}
	return nil
}

// acquireHuman takes the engine for who, who must hold control.
func (c *control) acquireHuman(ctx context.Context, who string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	for {
		if c.holder != who {
			return errors.New("you are not in control: take over first")
		}
		if !c.busy {
			c.busy = true
			return nil
		}
		ch := c.changed
		c.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			c.mu.Lock()
			return ctx.Err()
		}
		c.mu.Lock()
	}
}

func (c *control) release() {
	c.mu.Lock()
	c.busy = false
	c.notify()
	c.mu.Unlock()
}

// control is the session's shared control, made on first use for a
// session that was built without one.
func (ss *session) control() *control {
	if ss.ctl == nil {
		ss.ctl = newControl(ss)
	}
	return ss.ctl
}

// agentName is the name the session's agent goes by now.
func (ss *session) agentName(asked string) string {
	switch {
	case asked != "":
		return asked
	case ss.agent != "":
		return ss.agent
	}
	return remoteHost(ss.info.RemoteAddr)
}

// holdReset is called at the start of an agent's reset: it waits while a
// person holds control. The returned function, called with the reset's
// result, records it and releases the engine.
func (ss *session) holdReset(ctx context.Context) (func(agent, startURL string, obs engine.Observation, ok bool), error) {
	c := ss.control()
	if err := c.acquireAgent(ctx); err != nil {
		return nil, fmt.Errorf("the reset was held while a person had control, and then: %w", err)
	}
	return func(agent, startURL string, obs engine.Observation, ok bool) {
		c.mu.Lock()
		if ok {
			c.agent, c.startURL, c.started, c.pending = agent, startURL, true, nil
			c.episodeID = ss.eng.State().EpisodeID
			c.recordLocked(WatchStep{Step: obs.Step, Actor: agentPrefix + agent, Action: json.RawMessage("null"),
				URL: obs.URL, Title: obs.Title, Error: string(obs.Error), Done: obs.Done, Screenshot: obs.Screenshot})
		}
		c.busy = false
		c.notify()
		c.mu.Unlock()
	}, nil
}

// agentTurn waits for the agent's turn under shared control (while a
// person holds control it waits) and takes the steps a person made since
// the agent's last observation; the caller releases c.
func (ss *session) agentTurn(ctx context.Context) (c *control, pending []WatchStep, last *WatchStep, err error) {
	c = ss.control()
	if err := c.acquireAgent(ctx); err != nil {
		return nil, nil, nil, fmt.Errorf("the step was held while a person had control, and then: %w", err)
	}
	c.mu.Lock()
	if ss.epAgent != "" { // a step's metadata may have renamed it
		c.agent = ss.epAgent
	}
	pending, last = c.pending, c.last
	c.pending = nil
	c.mu.Unlock()
	return c, pending, last, nil
}

// agentStep runs the agent's step under shared control. While a person
// holds control it waits; if the person acted since the agent's last
// observation, held is the reply: the page as it is now, the agent's
// action not performed.
func (ss *session) agentStep(ctx context.Context, a engine.Action) (obs engine.Observation, held []byte, err error) {
	c, pending, last, err := ss.agentTurn(ctx)
	if err != nil {
		return obs, nil, err
	}
	defer c.release()
	if len(pending) > 0 && last != nil {
		ss.done = last.Done
		return obs, frame("observation", interventionData(*last, pending, ss.details)), nil
	}
	obs, err = ss.eng.Step(ctx, a)
	if err == nil {
		aj := keptAction(a, obs.Redacted)
		c.mu.Lock()
		c.recordLocked(WatchStep{Step: obs.Step, Actor: agentPrefix + c.agent, Action: aj, URL: obs.URL, Title: obs.Title,
			Error: string(obs.Error), Done: obs.Done, Screenshot: obs.Screenshot, Reward: obs.Reward})
		c.mu.Unlock()
	}
	return obs, nil, err
}

// keptAction is the action as the store keeps it, for whatever leaves the
// engine (watchers, the agent after a takeover): a type action whose text
// went into a password or payment field carries action.RedactedText.
func keptAction(a engine.Action, redacted bool) json.RawMessage {
	if redacted {
		a = a.Redact()
	}
	b, _ := a.MarshalJSON()
	return b
}

// interventionData is the observation the agent gets for a step that was
// not performed: the page after the person's last step, error
// ErrorNotExecuted, metadata.intervention listing the person's steps.
func interventionData(last WatchStep, steps []WatchStep, details bool) json.RawMessage {
	list := make([]json.RawMessage, len(steps))
	for i, st := range steps {
		list[i] = obj(field{"step", st.Step}, field{"action", st.Action}, field{"url", st.URL}, field{"error", st.Error})
	}
	md := []field{{"intervention", obj(
		field{"by", steps[len(steps)-1].Actor},
		field{"steps", list},
		field{"action_executed", false},
		field{"message", fmt.Sprintf("A person (%s) took control and made %d step(s) since your last observation; your action was not performed. This is the page now.",
			steps[len(steps)-1].Actor, len(steps))},
	)}}
	if details {
		md = append(md, field{"title", last.Title})
	}
	inner := obj(field{"screenshot", base64.StdEncoding.EncodeToString(last.Screenshot)}, field{"url", last.URL},
		field{"error", ErrorNotExecuted}, field{"metadata", obj(md...)})
	return obj(field{"observation", inner}, field{"reward", wsReward(engine.Observation{Reward: last.Reward})}, field{"done", last.Done})
}

// humanStep performs a person's action in the session's episode, stored
// as who's ("human:NAME") when the episode engine records actors.
func (ss *session) humanStep(ctx context.Context, who string, a engine.Action) (WatchStep, error) {
	c := ss.ctl
	if err := c.acquireHuman(ctx, who); err != nil {
		return WatchStep{}, err
	}
	defer c.release()
	c.mu.Lock()
	started, last := c.started, c.last
	c.mu.Unlock()
	if !started {
		return WatchStep{}, errors.New("the agent has not started an episode yet, and its reset waits while you hold control: hand back, then take over once it has started")
	}
	if last != nil && last.Done {
		return WatchStep{}, errors.New("the episode is over: there is nothing more to do in it")
	}
	var obs engine.Observation
	var err error
	if sa, ok := ss.eng.(actorStepper); ok {
		obs, err = sa.StepAs(ctx, a, who)
	} else {
		obs, err = ss.eng.Step(ctx, a)
	}
	if err != nil {
		return WatchStep{}, err
	}
	aj := keptAction(a, obs.Redacted)
	st := WatchStep{Step: obs.Step, Actor: who, Action: aj, URL: obs.URL, Title: obs.Title, Error: string(obs.Error),
		Done: obs.Done, Screenshot: obs.Screenshot, Reward: obs.Reward}
	c.mu.Lock()
	c.pending = append(c.pending, st)
	c.recordLocked(st)
	c.mu.Unlock()
	return st, nil
}

// takeOver gives control to who; refused while another person holds it.
func (c *control) takeOver(who string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case c.ended:
		return errors.New("the session has ended")
	case c.holder == who:
		return nil
	case c.holder != "":
		return fmt.Errorf("%s is in control: wait until they hand back", c.holder)
	}
	c.holder = who
	c.notify()
	c.broadcastSummaryLocked()
	return nil
}

// handBack returns control to the agent (if who holds it).
func (c *control) handBack(who string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.holder != who {
		return
	}
	c.holder = ""
	c.ss.touch() // the agent's idle bound counts from the hand-back (idle.go)
	c.notify()
	c.broadcastSummaryLocked()
}

// agentLeft is called when the agent's socket has closed. While a person
// holds control and the episode goes on, the session stays up so the
// person goes on recording; it ends when they hand back or leave, the
// episode ends, or the server stops.
func (c *control) agentLeft(stop context.Context) {
	c.mu.Lock()
	c.agentConnected = false
	c.broadcastSummaryLocked()
	for c.busy || (c.holder != "" && !(c.last != nil && c.last.Done)) {
		ch := c.changed
		c.mu.Unlock()
		select {
		case <-ch:
		case <-stop.Done():
			c.mu.Lock()
			c.holder = ""
			continue
		}
		c.mu.Lock()
	}
	c.mu.Unlock()
}

// end tells the watchers the session is over and why (code, when set, is
// the error code the agent got: IDLE_TIMEOUT, LEASE_EXPIRED) and closes
// them.
func (c *control) end(code Code, reason string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.ended = true
	c.holder = ""
	c.notify()
	fs := []field{{"reason", reason}}
	if code != "" {
		fs = append(fs, field{"code", code})
	}
	msg := frame("ended", obj(fs...))
	for w := range c.watchers {
		w.sendLocked(msg, true)
		w.close()
	}
	c.watchers = map[*watcher]struct{}{}
}

// recordLocked keeps st as the latest step and sends it to the watchers.
func (c *control) recordLocked(st WatchStep) {
	c.last = &st
	if len(st.Action) == 0 || string(st.Action) == "null" { // a reset: a new episode
		c.history = c.history[:0]
	}
	h := st
	h.Screenshot = nil
	c.history = append(c.history, h)
	msg := frame("observation", watchStepJSON(st))
	for w := range c.watchers {
		w.sendLocked(msg, true)
	}
	c.broadcastSummaryLocked()
}

func (c *control) broadcastSummaryLocked() {
	b, _ := json.Marshal(c.summaryLocked())
	msg := frame("session", b)
	for w := range c.watchers {
		w.sendLocked(msg, true)
	}
}

func watchStepJSON(st WatchStep) json.RawMessage {
	b, _ := json.Marshal(st)
	return b
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

// startFrames forwards the session's live frames to its watchers, once.
func (c *control) startFramesLocked() {
	if c.framesOn || c.ss.srv.opts.NoLiveFrames {
		return
	}
	lf, ok := c.ss.base.(engine.LiveFrames)
	if !ok {
		return
	}
	c.framesOn = true
	ch := lf.Frames()
	go func() {
		for f := range ch {
			msg := frame("frame", obj(field{"seq", f.Seq}, field{"width", f.Width}, field{"height", f.Height},
				field{"jpeg", base64.StdEncoding.EncodeToString(f.JPEG)}))
			c.mu.Lock()
			for w := range c.watchers {
				w.sendLocked(msg, false)
			}
			c.mu.Unlock()
		}
	}()
}

// sessionRoutes adds GET /sessions and the watch socket.
func (s *Server) sessionRoutes() {
	s.mux.HandleFunc("GET /sessions", func(w http.ResponseWriter, r *http.Request) {
		list := s.sessionSummaries()
		b, _ := json.Marshal(struct {
			Sessions []SessionSummary `json:"sessions"`
		}{list})
		writeJSON(w, http.StatusOK, b)
	})
	s.mux.HandleFunc("GET /sessions/{id}/watch", s.serveWatch)
}

// sessionSummaries lists the live sessions, oldest first.
func (s *Server) sessionSummaries() []SessionSummary {
	s.mu.Lock()
	ss := make([]*session, 0, len(s.sessions))
	for _, x := range s.sessions {
		ss = append(ss, x)
	}
	s.mu.Unlock()
	list := make([]SessionSummary, 0, len(ss))
	for _, x := range ss {
		list = append(list, x.ctl.summary())
	}
	sort.Slice(list, func(i, j int) bool {
		if !list[i].CreatedAt.Equal(list[j].CreatedAt) {
			return list[i].CreatedAt.Before(list[j].CreatedAt)
		}
		return list[i].ID < list[j].ID
	})
	return list
}

func (s *Server) serveWatch(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	s.mu.Lock()
	ss := s.sessions[id]
	s.mu.Unlock()
	if ss == nil {
		writeJSON(w, http.StatusNotFound, obj(field{"detail", fmt.Sprintf("no live session %q: GET /sessions lists the live ones", id)}))
		return
	}
	conn, err := websocket.Accept(w, r, &websocket.AcceptOptions{
		OriginPatterns:     s.guard.origins,
		InsecureSkipVerify: s.guard.anyOrigin,
	})
	if err != nil {
		return
	}
	conn.SetReadLimit(MaxInFrame)
	defer conn.CloseNow() // after a polite close, a no-op
	s.wg.Add(1)
	defer s.wg.Done()
	ctx, cancel := context.WithCancel(s.ctx)
	defer cancel()

	c := ss.ctl
	c.mu.Lock()
	// Room for the episode's earlier steps besides the usual queue.
	wt := &watcher{out: make(chan []byte, 64+len(c.history)), done: make(chan struct{})}
	if c.ended {
		c.mu.Unlock()
		s.writeAndClose(conn, frame("ended", obj(field{"reason", "the session has ended"})))
		return
	}
	c.watchers[wt] = struct{}{}
	c.broadcastSummaryLocked()
	if c.last != nil {
		// The episode's earlier steps (without their screenshots), then
		// the latest with its own: the watcher's timeline is whole.
		for _, h := range c.history[:len(c.history)-1] {
			wt.sendLocked(frame("observation", watchStepJSON(h)), true)
		}
		wt.sendLocked(frame("observation", watchStepJSON(*c.last)), true)
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
				closeConn(conn, websocket.StatusNormalClosure)
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
			reply(errorFrame(CodeValidation, "send each message as one JSON text frame"))
			continue
		}
		var m struct {
			Type string          `json:"type"`
			Data json.RawMessage `json:"data"`
		}
		if err := json.Unmarshal(data, &m); err != nil {
			reply(errorFrame(CodeInvalidJSON, "Invalid JSON: "+err.Error()))
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
				reply(errorFrame(CodeValidation, `take_over needs your name: {"type":"take_over","data":{"name":"NAME"}} (1 to 190 characters)`))
				continue
			}
			if who != "" && who != humanPrefix+name {
				c.handBack(who)
			}
			if err := c.takeOver(humanPrefix + name); err != nil {
				reply(errorFrame(CodeExecution, err.Error()))
				continue
			}
			who = humanPrefix + name
		case "hand_back":
			if who == "" {
				reply(errorFrame(CodeExecution, "you are not in control: there is nothing to hand back"))
				continue
			}
			c.handBack(who)
			who = ""
		case "step":
			if who == "" {
				reply(errorFrame(CodeExecution, "you are not in control: take over first"))
				continue
			}
			v, err := decodeJSON(m.Data)
			if err != nil {
				reply(errorFrame(CodeInvalidJSON, "Invalid JSON: "+err.Error()))
				continue
			}
			a, err := action.FromValue(v, s.opts.ActionSet)
			if err != nil {
				var ve *action.ValidationError
				if errors.As(err, &ve) && len(ve.Errors) > 0 {
					reply(validationFrame(ve.Errors))
				} else {
					reply(errorFrame(CodeValidation, "Invalid action: "+err.Error()))
				}
				continue
			}
			if _, err := ss.humanStep(ctx, who, a); err != nil {
				reply(errorFrame(CodeExecution, err.Error()))
			}
		default:
			reply(errorFrame(CodeUnknownType, fmt.Sprintf("Unknown message type: %s (a watcher sends take_over, step or hand_back)", m.Type)))
		}
	}
}
