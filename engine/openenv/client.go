package openenv

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/coder/websocket"

	"waymark/engine"
	"waymark/engine/action"
	"waymark/engine/openenv/wire"
)

// ClientOptions configure Dial.
type ClientOptions struct {
	// ActionSet is validated locally before sending (default: helium's).
	ActionSet action.Set
	// HealthTimeout bounds the wait for GET /health = 200 (default 30 s).
	HealthTimeout time.Duration
	// MessageTimeout bounds the wait for a step or state reply (default
	// 60 s, as the Python client); ResetTimeout bounds a reset (default 120 s:
	// browser start and page load).
	MessageTimeout, ResetTimeout time.Duration
	// MaxSteps is the server's step limit, used to tell a step-limit end
	// from others (default 20, the helium default).
	MaxSteps int
	// HTTPClient is used for /health and the WebSocket handshake.
	HTTPClient *http.Client
	// ResetExtra adds kwargs to every reset (e.g. {"task_id": "shop-1"}).
	ResetExtra map[string]any
	// StepDetails asks a Waymark server (reset metadata {"details": true})
	// for the page title and the step's action, settle and capture timings
	// in each observation; servers that do not know it ignore it.
	StepDetails bool
}

// Client is an engine.Engine driving a remote OpenEnv browser server over
// its WebSocket. It has no live frames: each observation carries the
// step's screenshot.
type Client struct {
	base string
	opts ClientOptions
	conn *websocket.Conn

	ctx    context.Context
	cancel context.CancelFunc

	reqMu   sync.Mutex    // one request at a time
	replies chan []byte   // frames read while a request waits
	dead    chan struct{} // closed when the reader stops

	mu      sync.Mutex
	pending bool
	early   *ServerError // an error frame that arrived with no request pending
	readErr error
	state   engine.State
	closed  bool
	// discarded: the episode was discarded; Close says so to the server
	// (the close frame's reason), so its store agrees.
	discarded bool
}

// Dial waits for the server's /health, opens /ws and checks that the server
// did not refuse the session straight away.
func Dial(ctx context.Context, baseURL string, opts ClientOptions) (*Client, error) {
	if opts.ActionSet == "" {
		opts.ActionSet = action.SetDefault
	}
	if opts.HealthTimeout <= 0 {
		opts.HealthTimeout = 30 * time.Second
	}
	if opts.MessageTimeout <= 0 {
		opts.MessageTimeout = 60 * time.Second
	}
	if opts.ResetTimeout <= 0 {
		opts.ResetTimeout = 120 * time.Second
	}
	if opts.MaxSteps <= 0 {
		opts.MaxSteps = 20
	}
	if opts.HTTPClient == nil {
		opts.HTTPClient = &http.Client{Timeout: 10 * time.Second}
	}
	base, wsURL, err := wsEndpoint(baseURL)
	if err != nil {
		return nil, err
	}
	if err := waitHealthy(ctx, opts.HTTPClient, base, opts.HealthTimeout); err != nil {
		return nil, err
	}
	dctx, dcancel := context.WithTimeout(ctx, 10*time.Second)
	defer dcancel()
	conn, resp, err := websocket.Dial(dctx, wsURL, &websocket.DialOptions{HTTPClient: opts.HTTPClient})
	if err != nil {
		if resp != nil && refused(resp.StatusCode) {
			body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
			return nil, fmt.Errorf("the OpenEnv server at %s refused the WebSocket (%s): %s", base, resp.Status, detail(body))
		}
		return nil, fmt.Errorf("connecting to the OpenEnv server at %s: %w", wsURL, err)
	}
	conn.SetReadLimit(MaxOutFrame)
	c := &Client{base: base, opts: opts, conn: conn, replies: make(chan []byte, 1), dead: make(chan struct{})}
	c.ctx, c.cancel = context.WithCancel(context.Background())
	go c.reader()
	// The server accepts first and refuses afterwards (capacity, factory):
	// give such a frame a moment to arrive so Dial can report it.
	select {
	case <-c.dead:
	case <-time.After(150 * time.Millisecond):
	}
	c.mu.Lock()
	early, rerr := c.early, c.readErr
	c.mu.Unlock()
	if early != nil {
		c.Close()
		return nil, early
	}
	if rerr != nil {
		c.Close()
		return nil, fmt.Errorf("the OpenEnv server at %s closed the connection: %w", base, rerr)
	}
	return c, nil
}

// ServerBase returns the http(s) base address of an OpenEnv server given as
// http(s)://host:port, host:port, or the WebSocket form ws(s)://host:port/ws.
func ServerBase(raw string) (string, error) { return wire.ServerBase(raw) }

// wsEndpoint maps a base URL to its /ws endpoint as the Python client does:
// http→ws, https→wss, bare host→ws, path prefix kept.
func wsEndpoint(raw string) (httpBase, ws string, err error) { return wire.Endpoints(raw) }

// refused tells whether an HTTP status is a refusal that waiting will not
// change (a Waymark server's Host or Origin check answers 403).
func refused(status int) bool {
	return status == http.StatusForbidden || status == http.StatusMisdirectedRequest || status == http.StatusUnauthorized
}

// detail is the reason in a refusal's body.
func detail(body []byte) string { return wire.Detail(body) }

// waitHealthy polls GET /health every 0.5 s until it answers 200.
func waitHealthy(ctx context.Context, hc *http.Client, base string, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	var last error
	for {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"/health", nil)
		if err != nil {
			return err
		}
		resp, err := hc.Do(req)
		if err == nil {
			body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
			if refused(resp.StatusCode) {
				// A refusal does not go away by waiting.
				return fmt.Errorf("the OpenEnv server at %s refused the connection (GET /health answered %s): %s", base, resp.Status, detail(body))
			}
			last = fmt.Errorf("GET /health answered %s", resp.Status)
		} else {
			last = err
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the OpenEnv server at %s is not answering (waited %s): %v; is it running?", base, timeout, last)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(500 * time.Millisecond):
		}
	}
}

// reader runs for the client's life, so pings are answered between steps.
func (c *Client) reader() {
	defer close(c.dead)
	for {
		_, data, err := c.conn.Read(c.ctx)
		if err != nil {
			c.mu.Lock()
			c.readErr = err
			c.mu.Unlock()
			return
		}
		c.mu.Lock()
		pending := c.pending
		if !pending {
			if se := parseErrorFrame(data); se != nil {
				c.early = se
			}
		}
		c.mu.Unlock()
		if pending {
			select {
			case c.replies <- data:
			case <-c.ctx.Done():
				return
			}
		}
	}
}

// request sends one message and waits for its reply (nil for close).
func (c *Client) request(ctx context.Context, msg []byte, timeout time.Duration) (json.RawMessage, string, error) {
	c.reqMu.Lock()
	defer c.reqMu.Unlock()
	c.mu.Lock()
	if c.early != nil {
		e := c.early
		c.mu.Unlock()
		return nil, "", e
	}
	if c.readErr != nil || c.closed {
		err := c.readErr
		c.mu.Unlock()
		return nil, "", &engine.Error{Kind: engine.ErrClosed,
			Msg: fmt.Sprintf("the connection to the OpenEnv server at %s is closed (%v): connect again", c.base, err)}
	}
	c.pending = true
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		c.pending = false
		c.mu.Unlock()
	}()
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	if err := c.conn.Write(ctx, websocket.MessageText, msg); err != nil {
		return nil, "", fmt.Errorf("sending to the OpenEnv server at %s: %w", c.base, err)
	}
	var data []byte
	select {
	case data = <-c.replies:
	case <-c.dead:
		c.mu.Lock()
		err := c.readErr
		c.mu.Unlock()
		return nil, "", fmt.Errorf("the OpenEnv server at %s closed the connection: %v", c.base, err)
	case <-ctx.Done():
		// The reply may still come; the session is no longer in step.
		c.Close()
		return nil, "", fmt.Errorf("no reply from the OpenEnv server at %s within %s; the connection was closed: %w", c.base, timeout, ctx.Err())
	}
	var env struct {
		Type string          `json:"type"`
		Data json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(data, &env); err != nil {
		return nil, "", fmt.Errorf("the OpenEnv server sent something that is not JSON: %.200q", data)
	}
	if env.Type == "error" {
		se := parseErrorFrame(data)
		if se.Fatal() {
			c.Close()
		}
		return nil, "", se
	}
	return env.Data, env.Type, nil
}

// EndDiscardedReason is the WebSocket close frame's reason a client gives
// when its episode was discarded: a Waymark server then stores the episode
// as discarded, not interrupted. Other OpenEnv servers ignore close
// reasons, so the message protocol is unchanged.
const EndDiscardedReason = string(action.EndDiscarded)

// Discard marks the episode discarded: Close tells the server so, in the
// close frame's reason, instead of sending {"type":"close"}.
func (c *Client) Discard() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.discarded = true
	return nil
}

// Close sends {"type":"close"} (best effort) and closes the socket; after
// Discard it closes the socket with the reason EndDiscardedReason instead.
// It is safe to call more than once.
func (c *Client) Close() error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil
	}
	c.closed = true
	alive := c.readErr == nil
	discarded := c.discarded
	c.mu.Unlock()
	if alive && discarded {
		done := make(chan struct{})
		go func() {
			_ = c.conn.Close(websocket.StatusNormalClosure, EndDiscardedReason)
			close(done)
		}()
		select {
		case <-done:
		case <-time.After(2 * time.Second):
			_ = c.conn.CloseNow()
		}
	} else if alive {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		_ = c.conn.Write(ctx, websocket.MessageText, []byte(`{"type":"close"}`))
		cancel()
		closeConn(c.conn, websocket.StatusNormalClosure)
	} else {
		_ = c.conn.CloseNow()
	}
	c.cancel()
	<-c.dead
	return nil
}

// Lost is closed when the connection to the server has ended, whether the
// server went away or Close was called; LostErr tells which.
func (c *Client) Lost() <-chan struct{} { return c.dead }

// LostErr says why the connection ended when the server went away (nil while
// it is up, or after Close).
func (c *Client) LostErr() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed || c.readErr == nil {
		return nil
	}
	return fmt.Errorf("the connection to the OpenEnv server at %s was lost (%v)", c.base, c.readErr)
}

var _ engine.Engine = (*Client)(nil)
