package control

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/coder/websocket"

	"waymark/engine/action"
	"waymark/engine/openenv/wire"
)

// ListSessions asks a Waymark serve at baseURL for its live sessions
// (GET /sessions).
func ListSessions(ctx context.Context, baseURL string) ([]SessionSummary, error) {
	base, err := wire.ServerBase(baseURL)
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"/sessions", nil)
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, fmt.Errorf("cannot reach %s: %w; is waymark serve running there?", base, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s/sessions: HTTP %d: %s (live sessions are listed by waymark serve)", base, resp.StatusCode, wire.Detail(body))
	}
	var out struct {
		Sessions []SessionSummary `json:"sessions"`
	}
	if err := json.Unmarshal(body, &out); err != nil {
		return nil, fmt.Errorf("GET %s/sessions: the answer is not a session list: %w", base, err)
	}
	return out.Sessions, nil
}

// WatchFrame is one live JPEG frame of a watched session.
type WatchFrame struct {
	Seq           uint64 `json:"seq"`
	Width, Height int
	JPEG          []byte `json:"jpeg"`
}

// WatchEvent is one message of the watch socket: exactly one of its
// pointers is set, or Ended.
type WatchEvent struct {
	Session *SessionSummary
	Step    *WatchStep
	Frame   *WatchFrame
	Error   *wire.ServerError
	// Ended is the reason the session ended ("" while it goes on; see
	// End.String), and EndedCode the error code the agent got then
	// (IDLE_TIMEOUT, LEASE_EXPIRED; "" for other ends).
	Ended     string
	EndedCode wire.Code
}

// WatchConn watches one live session and can take it over.
type WatchConn struct {
	c *websocket.Conn
}

// Watch connects to a live session's watch socket.
func Watch(ctx context.Context, baseURL, sessionID string) (*WatchConn, error) {
	base, err := wire.ServerBase(baseURL)
	if err != nil {
		return nil, err
	}
	u, _ := url.Parse(base)
	u.Scheme = map[string]string{"http": "ws", "https": "wss"}[u.Scheme]
	u.Path = strings.TrimRight(u.Path, "/") + "/sessions/" + url.PathEscape(sessionID) + "/watch"
	c, resp, err := websocket.Dial(ctx, u.String(), nil)
	if err != nil {
		if resp != nil && resp.StatusCode == http.StatusNotFound {
			return nil, fmt.Errorf("session %s is not live on %s: list the live ones with GET %s/sessions", sessionID, base, base)
		}
		return nil, fmt.Errorf("cannot watch session %s on %s: %w", sessionID, base, err)
	}
	c.SetReadLimit(wire.MaxOutFrame)
	return &WatchConn{c: c}, nil
}

// Next reads the next message.
func (w *WatchConn) Next(ctx context.Context) (WatchEvent, error) {
	_, data, err := w.c.Read(ctx)
	if err != nil {
		return WatchEvent{}, err
	}
	var m struct {
		Type string          `json:"type"`
		Data json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(data, &m); err != nil {
		return WatchEvent{}, fmt.Errorf("watch: a message that is not JSON: %w", err)
	}
	var ev WatchEvent
	switch m.Type {
	case "session":
		ev.Session = new(SessionSummary)
		err = json.Unmarshal(m.Data, ev.Session)
	case "observation":
		ev.Step = new(WatchStep)
		err = json.Unmarshal(m.Data, ev.Step)
	case "frame":
		ev.Frame = new(WatchFrame)
		err = json.Unmarshal(m.Data, ev.Frame)
	case "error":
		ev.Error = wire.ParseErrorFrame(data)
	case "ended":
		var d struct {
			Reason string    `json:"reason"`
			Code   wire.Code `json:"code"`
		}
		err = json.Unmarshal(m.Data, &d)
		ev.Ended, ev.EndedCode = d.Reason, d.Code
		if ev.Ended == "" {
			ev.Ended = "ended"
		}
	default:
		return WatchEvent{}, fmt.Errorf("watch: unknown message type %q", m.Type)
	}
	return ev, err
}

func (w *WatchConn) send(ctx context.Context, typ string, data any) error {
	fs := []wire.Field{{"type", typ}}
	if data != nil {
		fs = append(fs, wire.Field{"data", data})
	}
	return w.c.Write(ctx, websocket.MessageText, wire.Obj(fs...))
}

// TakeOver asks for control as the person name; the server answers with a
// session message naming "human:NAME" in Control, or an error.
func (w *WatchConn) TakeOver(ctx context.Context, name string) error {
	return w.send(ctx, "take_over", wire.Obj(wire.Field{"name", name}))
}

// Step sends a person's action (after TakeOver); the answer is an
// observation message by "human:NAME", or an error.
func (w *WatchConn) Step(ctx context.Context, a action.Action) error {
	b, err := a.MarshalJSON()
	if err != nil {
		return err
	}
	return w.send(ctx, "step", json.RawMessage(b))
}

// HandBack returns control to the agent.
func (w *WatchConn) HandBack(ctx context.Context) error { return w.send(ctx, "hand_back", nil) }

// Close closes the watch socket (a person still in control hands back).
func (w *WatchConn) Close() error {
	err := w.c.Close(websocket.StatusNormalClosure, "")
	if errors.Is(err, context.Canceled) {
		return nil
	}
	return err
}
