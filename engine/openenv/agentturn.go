package openenv

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/coder/websocket"

	"waymark/engine"
	"waymark/engine/openenv/control"
)

// Shared control (engine/openenv/control) from the agent's side: while a
// person holds control the agent's reset and step requests are held; the
// agent's first step after a person acted is answered with the page as it
// is now, its own action not performed (ErrorNotExecuted,
// observation.metadata.intervention).

// ErrorNotExecuted is the observation's error when the agent's action was
// not performed because a person acted since the agent's last observation.
const ErrorNotExecuted = "action_not_executed"

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

// controlled lists the live sessions' shared control (the hub's list).
func (s *Server) controlled() []*control.Session {
	s.mu.Lock()
	defer s.mu.Unlock()
	list := make([]*control.Session, 0, len(s.sessions))
	for _, ss := range s.sessions {
		list = append(list, ss.ctl)
	}
	return list
}

// controlledByID is a live session's shared control, nil when there is no
// such session.
func (s *Server) controlledByID(id string) *control.Session {
	s.mu.Lock()
	defer s.mu.Unlock()
	if ss := s.sessions[id]; ss != nil {
		return ss.ctl
	}
	return nil
}

// acceptWatch accepts a watch socket with the same allowed origins as /ws
// (the guard has already run).
func (s *Server) acceptWatch(w http.ResponseWriter, r *http.Request) (*websocket.Conn, error) {
	return websocket.Accept(w, r, &websocket.AcceptOptions{
		OriginPatterns:     s.guard.origins,
		InsecureSkipVerify: s.guard.anyOrigin,
	})
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

// agentStep runs the agent's step under shared control. While a person
// holds control it waits; if the person acted since the agent's last
// observation, held is the reply: the page as it is now, the agent's
// action not performed.
func (ss *session) agentStep(ctx context.Context, a engine.Action) (obs engine.Observation, held []byte, err error) {
	turn, err := ss.control().AgentTurn(ctx, ss.epAgent)
	if err != nil {
		return obs, nil, err
	}
	defer turn.Done()
	if len(turn.Pending) > 0 && turn.Last != nil {
		ss.done = turn.Last.Done
		return obs, frame("observation", interventionData(*turn.Last, turn.Pending, ss.details)), nil
	}
	obs, err = ss.eng.Step(ctx, a)
	if err == nil {
		turn.Record(control.StepOf(a, obs))
	}
	return obs, nil, err
}

// interventionData is the observation the agent gets for a step that was
// not performed: the page after the person's last step, error
// ErrorNotExecuted, metadata.intervention listing the person's steps.
func interventionData(last control.WatchStep, steps []control.WatchStep, details bool) json.RawMessage {
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
