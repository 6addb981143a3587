// Package control is Waymark's shared control of a serve's live sessions:
// a person watches one (GET /sessions lists them, the watch socket at
// /sessions/{id}/watch streams its steps and live frames), takes over,
// acts in the same episode and hands back. While a person holds control
// the agent's reset and step requests are held; the agent's first step
// after a person acted is answered with the page as it is now, its own
// action not performed.
//
// The OpenEnv server (engine/openenv) gives each of its sessions a Session
// and asks it for the agent's turn before each reset and step; it mounts
// the Hub's routes. This package does not know the OpenEnv protocol: it
// shares only the frames and codes of engine/openenv/wire. Its client side
// (ListSessions, Watch) is what the Sessions screen and play --attach use.
package control

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"waymark/engine"
	"waymark/engine/action"
	"waymark/engine/openenv/wire"
)

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

// StepOf is the step of action a that answered obs, as watchers see it
// (its Actor left to the caller). The action is as the store keeps it,
// since it leaves the engine: a type action whose text went into a
// password or payment field carries action.RedactedText.
func StepOf(a engine.Action, obs engine.Observation) WatchStep {
	if obs.Redacted {
		a = a.Redact()
	}
	aj, _ := a.MarshalJSON()
	return WatchStep{Step: obs.Step, Action: aj, URL: obs.URL, Title: obs.Title, Error: string(obs.Error),
		Done: obs.Done, Screenshot: obs.Screenshot, Reward: obs.Reward}
}

// Info is what a session's control knows of it from the start.
type Info struct {
	ID        string
	CreatedAt time.Time
	// ActionSet is the vocabulary the session accepts (a person's actions
	// too).
	ActionSet action.Set
	// Frames are the page's live frames, forwarded to the watchers from
	// the first one on; nil: none (the engine has none, or they are kept
	// from watchers).
	Frames engine.LiveFrames
}

// Session is one session's shared-control state. The engine is used by
// one side at a time: whoever sets busy.
type Session struct {
	info    Info
	episode func() engine.Engine // the engine of the episode now
	touch   func()               // a person handed back: the agent's idle bound counts again

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

// NewSession is the shared control of a session: episode returns the
// engine of its episode now (a person's steps go there), touch is called
// when a person hands back (the agent's idle bound counts from then).
func NewSession(info Info, episode func() engine.Engine, touch func()) *Session {
	return &Session{info: info, episode: episode, touch: touch, changed: make(chan struct{}), agentConnected: true, watchers: map[*watcher]struct{}{}}
}

// notify wakes every waiter; c.mu is held.
func (c *Session) notify() {
	close(c.changed)
	c.changed = make(chan struct{})
}

// waitChanged waits, with c.mu held, for the next change or for ctx to
// end (ctx's error); it lets go of c.mu while it waits and holds it again
// when it returns.
func (c *Session) waitChanged(ctx context.Context) error {
	ch := c.changed
	c.mu.Unlock()
	defer c.mu.Lock()
	select {
	case <-ch:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (c *Session) summaryLocked() SessionSummary {
	s := SessionSummary{ID: c.info.ID, Agent: c.agent, EpisodeID: c.episodeID, StartURL: c.startURL,
		Control: c.holder, AgentConnected: c.agentConnected, AgentWaiting: c.agentWaiting,
		Watchers: len(c.watchers), CreatedAt: c.info.CreatedAt, ActionSet: c.info.ActionSet}
	if s.Control == "" {
		s.Control = agentPrefix + c.agent
	}
	if c.last != nil {
		s.URL, s.Steps, s.Done = c.last.URL, c.last.Step, c.last.Done
	}
	return s
}

// Summary is the session as GET /sessions lists it.
func (c *Session) Summary() SessionSummary {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.summaryLocked()
}

// PersonHolds reports whether a person holds control now.
func (c *Session) PersonHolds() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.holder != ""
}

// acquireAgent waits until no person holds control and nobody uses the
// engine, then takes it; watchers see that the agent is waiting.
func (c *Session) acquireAgent(ctx context.Context) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	for c.holder != "" || c.busy {
		if c.holder != "" && !c.agentWaiting {
			c.agentWaiting = true
			c.broadcastSummaryLocked()
		}
		if err := c.waitChanged(ctx); err != nil {
			c.agentWaiting = false
			return err
		}
	}
	c.busy = true
	if c.agentWaiting {
		c.agentWaiting = false
		c.broadcastSummaryLocked()
	}
	return nil
}

// acquireHuman takes the engine for who, who must hold control.
func (c *Session) acquireHuman(ctx context.Context, who string) error {
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
		if err := c.waitChanged(ctx); err != nil {
			return err
		}
	}
}

func (c *Session) release() {
	c.mu.Lock()
	c.busy = false
	c.notify()
	c.mu.Unlock()
}

// HoldReset is called at the start of an agent's reset: it waits while a
// person holds control. The returned function, called with the reset's
// result, records it and releases the engine.
func (c *Session) HoldReset(ctx context.Context) (func(agent, startURL string, obs engine.Observation, ok bool), error) {
	if err := c.acquireAgent(ctx); err != nil {
		return nil, fmt.Errorf("the reset was held while a person had control, and then: %w", err)
	}
	return func(agent, startURL string, obs engine.Observation, ok bool) {
		c.mu.Lock()
		if ok {
			c.agent, c.startURL, c.started, c.pending = agent, startURL, true, nil
			c.episodeID = c.episode().State().EpisodeID
			c.recordLocked(WatchStep{Step: obs.Step, Actor: agentPrefix + agent, Action: json.RawMessage("null"),
				URL: obs.URL, Title: obs.Title, Error: string(obs.Error), Done: obs.Done, Screenshot: obs.Screenshot})
		}
		c.busy = false
		c.notify()
		c.mu.Unlock()
	}, nil
}

// Turn is the agent's hold on the engine for one step (AgentTurn); Done
// gives it back.
type Turn struct {
	c *Session
	// Pending are the steps a person made since the agent's last
	// observation: when there are some, the agent's action is not
	// performed and it is shown the page after Last.
	Pending []WatchStep
	// Last is the episode's latest step (nil before its reset).
	Last *WatchStep
}

// AgentTurn waits for the agent's turn (while a person holds control it
// waits) and takes the steps a person made since the agent's last
// observation. agent is the agent's name now ("": unchanged); the caller
// calls the turn's Done.
func (c *Session) AgentTurn(ctx context.Context, agent string) (*Turn, error) {
	if err := c.acquireAgent(ctx); err != nil {
		return nil, fmt.Errorf("the step was held while a person had control, and then: %w", err)
	}
	c.mu.Lock()
	if agent != "" { // a step's metadata may have renamed it
		c.agent = agent
	}
	t := &Turn{c: c, Pending: c.pending, Last: c.last}
	c.pending = nil
	c.mu.Unlock()
	return t, nil
}

// Record keeps the agent's step (its Actor is set here) and shows it to
// the watchers.
func (t *Turn) Record(st WatchStep) {
	c := t.c
	c.mu.Lock()
	st.Actor = agentPrefix + c.agent
	c.recordLocked(st)
	c.mu.Unlock()
}

// Done gives the engine back.
func (t *Turn) Done() { t.c.release() }

// humanStep performs a person's action in the session's episode, stored
// as who's ("human:NAME") when the episode engine records actors.
func (c *Session) humanStep(ctx context.Context, who string, a engine.Action) (WatchStep, error) {
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
	eng := c.episode()
	if sa, ok := eng.(actorStepper); ok {
		obs, err = sa.StepAs(ctx, a, who)
	} else {
		obs, err = eng.Step(ctx, a)
	}
	if err != nil {
		return WatchStep{}, err
	}
	st := StepOf(a, obs)
	st.Actor = who
	c.mu.Lock()
	c.pending = append(c.pending, st)
	c.recordLocked(st)
	c.mu.Unlock()
	return st, nil
}

// takeOver gives control to who; refused while another person holds it.
func (c *Session) takeOver(who string) error {
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
func (c *Session) handBack(who string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.holder != who {
		return
	}
	c.holder = ""
	c.touch() // the agent's idle bound counts from the hand-back
	c.notify()
	c.broadcastSummaryLocked()
}

// AgentLeft is called when the agent's socket has closed. While a person
// holds control and the episode goes on, the session stays up so the
// person goes on recording; it returns when they hand back or leave, the
// episode ends, or stop ends (control then goes back to the agent, and a
// step the person has under way is waited for).
func (c *Session) AgentLeft(stop context.Context) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.agentConnected = false
	c.broadcastSummaryLocked()
	for {
		wait := stop
		if stop.Err() != nil {
			c.holder = ""
			wait = context.WithoutCancel(stop)
		}
		if !c.busy && (c.holder == "" || (c.last != nil && c.last.Done)) {
			return
		}
		c.waitChanged(wait)
	}
}

// End tells the watchers the session is over and why, and closes them.
func (c *Session) End(e End) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.ended = true
	c.holder = ""
	c.notify()
	fs := []wire.Field{{"reason", e.String()}}
	if code := e.Reason.Code(); code != "" {
		fs = append(fs, wire.Field{"code", code})
	}
	msg := wire.Frame("ended", wire.Obj(fs...))
	for w := range c.watchers {
		w.sendLocked(msg, true)
		w.close()
	}
	c.watchers = map[*watcher]struct{}{}
}

// recordLocked keeps st as the latest step and sends it to the watchers.
func (c *Session) recordLocked(st WatchStep) {
	c.last = &st
	if len(st.Action) == 0 || string(st.Action) == "null" { // a reset: a new episode
		c.history = c.history[:0]
	}
	h := st
	h.Screenshot = nil
	c.history = append(c.history, h)
	msg := wire.Frame("observation", watchStepJSON(st))
	for w := range c.watchers {
		w.sendLocked(msg, true)
	}
	c.broadcastSummaryLocked()
}

func (c *Session) broadcastSummaryLocked() {
	b, _ := json.Marshal(c.summaryLocked())
	msg := wire.Frame("session", b)
	for w := range c.watchers {
		w.sendLocked(msg, true)
	}
}

func watchStepJSON(st WatchStep) json.RawMessage {
	b, _ := json.Marshal(st)
	return b
}
