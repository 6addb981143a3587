package openenv

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net"
	"net/http"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"
	"github.com/google/uuid"

	"waymark/engine"
	"waymark/engine/action"
	"waymark/engine/gym"
	"waymark/engine/openenv/control"
	"waymark/engine/openenv/wire"
)

// DefaultName is the environment name in /metadata and FACTORY_ERROR.
const DefaultName = "WaymarkBrowserEnvironment"

// Task is a built-in task an agent may ask for with the reset kwarg task_id.
type Task struct {
	ID       string
	Goal     string
	Category string
	StartURL string
	Check    *action.Check
	// ReferenceTime, Timezone and Locale are the page's clock, time zone
	// and locale (see engine.ResetOptions).
	ReferenceTime *time.Time
	Timezone      string
	Locale        string
}

// SessionInfo identifies one WebSocket session.
type SessionInfo struct {
	ID         string // uuid4, as openenv-core's SessionInfo
	RemoteAddr string
	CreatedAt  time.Time
}

// EpisodeStart describes an episode a session is about to reset into; it is
// what Options.WrapEpisode gets.
type EpisodeStart struct {
	Session SessionInfo
	// Agent is the agent's name: the "agent" reset kwarg, else the name a
	// step's metadata.agent gave earlier in the session, else the client's
	// host address.
	Agent string
	Reset engine.ResetOptions
	// Task is the task-pack task named by task_id, or nil for an ad-hoc
	// episode started from a bare start_url.
	Task *Task
	// Facts are what the client said of the episode in the reset's
	// metadata (Waymark's app sends them, other clients need not).
	Facts EpisodeFacts
}

// Options configure a Server.
type Options struct {
	// NewEngine creates one session's engine (its own browser and profile).
	// It is called when a socket is accepted, and for each stateless HTTP
	// request. Required.
	NewEngine func(ctx context.Context) (engine.Engine, error)
	// Name of the environment (/metadata, FACTORY_ERROR). Default DefaultName.
	Name string
	// MaxSessions caps concurrent WebSocket sessions (default 1, like the
	// reference).
	MaxSessions int
	// ActionSet is the vocabulary accepted from agents (default: helium's).
	ActionSet action.Set
	// BrowserGym: steps carry BrowserGym action strings and observations
	// are BrowserGym's (gym.go); the engines need element grounding.
	BrowserGym bool
	// SingleAction: with BrowserGym, an action string holds one call
	// unless the reset asks for multiaction. By default it may hold
	// several, as BrowserGym's HighLevelActionSet (multiaction=True).
	SingleAction bool
	// PingInterval is how often the server pings each client (default 20 s,
	// as uvicorn); a client that does not answer within PongTimeout (default
	// 20 s) loses its session. Tests shorten both.
	PingInterval, PongTimeout time.Duration
	// Task looks up a task-pack task by id; nil means task_id is refused.
	Task func(id string) (Task, bool)
	// TaskIDs lists the known task ids, for error messages.
	TaskIDs func() []string
	// WrapEpisode, when set, returns the engine that runs one episode, given
	// the session's engine (typically a recorder around it). The base engine
	// handed in ignores Close, so closing the wrapper at the next reset ends
	// only the episode; the server closes the real engine when the session
	// ends.
	WrapEpisode func(base engine.Engine, ep EpisodeStart) (engine.Engine, error)
	// OnAgentName, when set, is told when a step's metadata names the agent
	// ({"metadata":{"agent":"NAME"}}) differently from the episode's Agent;
	// eng is the episode's engine (the WrapEpisode result). Later episodes
	// of the session get the name as their Agent.
	OnAgentName func(eng engine.Engine, name string)
	// AllowHosts are host names (or name:port) served besides the loopback
	// names and the address a connection came in on; "*" allows any.
	AllowHosts []string
	// AllowOrigins are web origins ("http://host:port") or host patterns
	// ("*.lan") allowed besides the server's own origin; "*" allows any.
	AllowOrigins []string
	// Provider names where sessions' browsers come from (a provider with
	// leases, e.g. remote_cdp); when set, /health also reports the
	// sessions in use and their leases (lease.go). An engine that
	// implements engine.Lease is kept alive while its client is connected, and
	// a WrapEpisode engine with Interrupt(reason action.EndReason) error is told
	// when its lease expired. A renewal that fails with
	// engine.ErrBrowserGone ends the session at once; other failures
	// (a farm slow to answer) are retried until the lease's deadline.
	Provider string
	// ServesPractice: the built-in practice sites (*.waymark.test) resolve
	// in the sessions' browsers (serve --task-pack). Without it a page on
	// one of them is answered with what to do (practice.go).
	ServesPractice bool
	// IdleTimeout ends a session that sent no reset or step for that long
	// (counted from the last one's answer) with IDLE_TIMEOUT, freeing its
	// slot and browser (idle.go). 0: DefaultIdleTimeout (10 min); negative:
	// never.
	IdleTimeout time.Duration
	// Ready, when set, says whether a session started now gets a warm
	// browser, and if not why (GET /ready); nil: always ready.
	Ready func() (ready bool, why string)
	// NoLiveFrames keeps the pages' live frames from watchers: with a
	// redaction policy, what leaves the engine is the redacted step
	// screenshots only (a live frame shows the page as it is).
	NoLiveFrames bool
	// Logf receives one line per session event (default: log.Printf).
	Logf func(format string, args ...any)
	// DefaultStartURL is the start page of a reset that names none (a
	// serve that continues a stored episode); "" requires start_url.
	DefaultStartURL string
	// Admission refuses new sessions while the machine is at its limit
	// (admission.go); the zero value admits every session.
	Admission Admission
}

// Server serves engines over the OpenEnv protocol. It is an http.Handler.
type Server struct {
	opts   Options
	mux    *http.ServeMux
	ctx    context.Context
	cancel context.CancelFunc

	mu       sync.Mutex
	active   int
	sessions map[string]*session
	wg       sync.WaitGroup

	guard          *guard
	pongs          atomic.Int64
	statelessSlots chan struct{} // browsers started by stateless HTTP /reset
	adm            admission     // admission.go
	hub            *control.Hub  // shared control: GET /sessions and the watch sockets
}

// NewServer checks the options and builds the handler.
func NewServer(opts Options) (*Server, error) {
	if opts.NewEngine == nil {
		return nil, errors.New("openenv: Options.NewEngine is required")
	}
	if opts.Name == "" {
		opts.Name = DefaultName
	}
	if opts.MaxSessions <= 0 {
		opts.MaxSessions = 1
	}
	if opts.ActionSet == "" {
		opts.ActionSet = action.SetDefault
	}
	if opts.PingInterval <= 0 {
		opts.PingInterval = 20 * time.Second
	}
	if opts.PongTimeout <= 0 {
		opts.PongTimeout = 20 * time.Second
	}
	if opts.Logf == nil {
		opts.Logf = log.Printf
	}
	g, err := newGuard(opts.AllowHosts, opts.AllowOrigins)
	if err != nil {
		return nil, fmt.Errorf("openenv: %w", err)
	}
	s := &Server{opts: opts, guard: g, sessions: map[string]*session{}, statelessSlots: make(chan struct{}, opts.MaxSessions)}
	s.ctx, s.cancel = context.WithCancel(context.Background())
	s.hub = control.NewHub(s.ctx, s.controlled, s.controlledByID, s.acceptWatch)
	s.mux = http.NewServeMux()
	s.routes()
	s.SetAdmission(opts.Admission)
	return s, nil
}

// ServeHTTP implements http.Handler. Every request, the WebSocket upgrade
// included, first passes the Host, Origin and Content-Type checks.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if s.check(w, r) {
		s.mux.ServeHTTP(w, r)
	}
}

// ActiveSessions is the number of open WebSocket sessions.
func (s *Server) ActiveSessions() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.active
}

// Pongs counts the pongs received from clients (keep-alive diagnostics).
func (s *Server) Pongs() int64 { return s.pongs.Load() }

// Close ends every session (their engines are closed) and waits for them.
func (s *Server) Close() error {
	s.cancel()
	s.wg.Wait()
	s.hub.Wait()
	return nil
}

// reserve takes a session slot before the engine is built, so a slow start
// cannot overshoot the limit.
func (s *Server) reserve() (ok bool, active int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.active >= s.opts.MaxSessions {
		return false, s.active
	}
	s.active++
	return true, s.active
}

func (s *Server) release(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.active--
	delete(s.sessions, id)
}

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

func (s *Server) serveWS(w http.ResponseWriter, r *http.Request) {
	c, err := websocket.Accept(w, r, &websocket.AcceptOptions{
		// The library's own Origin check, with the same allowed origins
		// as the guard (which has already run).
		OriginPatterns:     s.guard.origins,
		InsecureSkipVerify: s.guard.anyOrigin,
		OnPongReceived:     func(context.Context, []byte) { s.pongs.Add(1) },
	})
	if err != nil {
		return // Accept has answered the HTTP request
	}
	c.SetReadLimit(MaxInFrame)
	s.wg.Add(1)
	defer s.wg.Done()

	ok, active := s.reserve()
	if !ok {
		msg := fmt.Sprintf("Server at capacity: %d/%d sessions active. Cannot accept new connections.", active, s.opts.MaxSessions)
		s.opts.Logf("openenv: refused %s: %s", r.RemoteAddr, msg)
		s.writeAndClose(c, errorFrame(CodeCapacityReached, msg,
			field{"active_sessions", active}, field{"max_sessions", s.opts.MaxSessions}))
		return
	}
	info := SessionInfo{ID: uuid.NewString(), RemoteAddr: r.RemoteAddr, CreatedAt: time.Now().UTC()}

	ctx, cancel := context.WithCancel(s.ctx)
	defer cancel()
	base, err := s.opts.NewEngine(ctx)
	if err != nil {
		s.release(info.ID)
		s.opts.Logf("openenv: session %s: creating the engine failed: %v", info.ID, err)
		s.writeAndClose(c, errorFrame(CodeFactoryError,
			fmt.Sprintf("Environment factory '%s' failed to create instance.", s.opts.Name),
			field{"factory_name", s.opts.Name}))
		return
	}
	ss := &session{srv: s, info: info, conn: c, base: base, eng: base, lease: s.newLeaseKeeper(base, info.ID, c.Ping)}
	ss.touch()
	ss.ctl = ss.newControl()
	s.mu.Lock()
	s.sessions[info.ID] = ss
	s.mu.Unlock()
	s.opts.Logf("openenv: session %s opened for %s", info.ID, info.RemoteAddr)
	ss.run(ctx, cancel)
}

func (s *Server) writeAndClose(c *websocket.Conn, msg []byte) { wire.WriteAndClose(c, msg) }

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

// envelope keys each message type allows (every message model forbids extras).
var envelopeKeys = map[string][]string{
	"reset": {"type", "data"},
	"step":  {"type", "data"},
	"state": {"type"},
	"close": {"type"},
	"mcp":   {"type", "data"},
}

// handle answers one text frame. end means the session must stop (close).
func (ss *session) handle(ctx context.Context, data []byte) (reply []byte, end bool) {
	v, err := decodeJSON(data)
	if err != nil {
		return errorFrame(CodeInvalidJSON, "Invalid JSON: "+err.Error()), false
	}
	msg, ok := v.(map[string]any)
	if !ok {
		// The Python server crashes here (SESSION_ERROR); Waymark answers
		// like any malformed message and keeps the session.
		return validationFrame([]action.FieldError{action.NewFieldError("model_type", nil,
			"Input should be a valid dictionary or instance of a message model", v, nil)}), false
	}
	rawType, present := msg["type"]
	typ, isStr := rawType.(string)
	if !present {
		typ, isStr = "", true
	}
	allowed, known := envelopeKeys[typ]
	if !isStr || !known {
		if !present {
			rawType = ""
		}
		return errorFrame(CodeUnknownType, "Unknown message type: "+pyStr(rawType)), false
	}
	if errs := checkEnvelope(typ, msg, allowed); len(errs) > 0 {
		return validationFrame(errs), false
	}
	payload, _ := msg["data"].(map[string]any)
	switch typ {
	case "close":
		return nil, true
	case "state":
		return frame("state", stateData(ss.state())), false
	case "mcp":
		return frame("mcp", mcpResponse(payload)), false
	}
	ss.counted = true
	if !ss.lease.renew(ctx) {
		return nil, false // the lease ended: the session loop says so
	}
	if typ == "reset" {
		return ss.reset(ctx, payload), false
	}
	return ss.step(ctx, payload), false
}

func (ss *session) state() engine.State {
	return ss.eng.State()
}

// checkEnvelope validates the message model: allowed keys, data a dict,
// data required for step and mcp.
func checkEnvelope(typ string, msg map[string]any, allowed []string) []action.FieldError {
	var errs []action.FieldError
	if d, ok := msg["data"]; ok && len(allowed) > 1 {
		if _, isMap := d.(map[string]any); !isMap {
			errs = append(errs, action.NewFieldError("dict_type", []any{"data"}, "Input should be a valid dictionary", d, nil))
		}
	} else if !ok && (typ == "step" || typ == "mcp") {
		errs = append(errs, action.NewFieldError("missing", []any{"data"}, "Field required", msg, nil))
	}
	var extra []string
	for k := range msg {
		if !contains(allowed, k) {
			extra = append(extra, k)
		}
	}
	sort.Strings(extra)
	for _, k := range extra {
		errs = append(errs, action.NewFieldError("extra_forbidden", []any{k}, "Extra inputs are not permitted", msg[k], nil))
	}
	return errs
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func (ss *session) reset(ctx context.Context, data map[string]any) []byte {
	rr, err := ss.srv.parseReset(data)
	if err != nil {
		return errorFrame(CodeExecution, err.Error())
	}
	if busy := ss.admitWS(); busy != nil {
		return busy
	}
	done, err := ss.control().HoldReset(ctx)
	if err != nil {
		return errorFrame(CodeExecution, err.Error())
	}
	var obs engine.Observation
	reset := false
	defer func() { done(ss.agentName(rr.agent), rr.opts.StartURL, obs, reset) }()
	if ss.wrap != nil {
		if d, ok := ss.wrap.(interface{ Discard() error }); ok && ss.discarded {
			if err := d.Discard(); err != nil {
				ss.srv.opts.Logf("openenv: session %s: discarding the episode: %v", ss.info.ID, err)
			}
		}
		if err := ss.wrap.Close(); err != nil {
			ss.srv.opts.Logf("openenv: session %s: closing the previous episode: %v", ss.info.ID, err)
		}
		ss.wrap, ss.eng = nil, ss.base
	}
	ss.started, ss.done, ss.details = false, false, rr.details
	if rr.opts.EpisodeID == "" {
		rr.opts.EpisodeID = uuid.NewString()
	}
	if ss.srv.opts.WrapEpisode != nil {
		agent := rr.agent
		if agent == "" {
			agent = ss.agent
		}
		if agent == "" {
			agent = remoteHost(ss.info.RemoteAddr)
		}
		ss.epAgent = agent
		w, err := ss.srv.opts.WrapEpisode(keepOpen{ss.base}, EpisodeStart{
			Session: ss.info, Agent: agent, Reset: rr.opts, Task: rr.task, Facts: rr.facts})
		if err != nil {
			return errorFrame(CodeExecution, err.Error())
		}
		ss.wrap, ss.eng = w, w
	}
	obs, err = ss.eng.Reset(ctx, rr.opts)
	if err != nil {
		return errorFrame(CodeExecution, err.Error())
	}
	obs.Error = ss.srv.explainPractice(rr.opts.StartURL, obs.Error)
	ss.started, ss.done, reset = true, obs.Done, true
	if ss.srv.opts.BrowserGym {
		return ss.gymReset(data, rr, obs) // gym.go
	}
	return frame("observation", observationData(obs, wsReward(obs), ss.details))
}

func (ss *session) step(ctx context.Context, data map[string]any) []byte {
	if ss.srv.opts.BrowserGym {
		return ss.gymStep(ctx, data) // gym.go
	}
	if errs := checkMetadata(data); len(errs) > 0 {
		return validationFrame(errs)
	}
	a, err := action.FromValue(data, ss.srv.opts.ActionSet)
	if err != nil {
		var ve *action.ValidationError
		if errors.As(err, &ve) && len(ve.Errors) > 0 {
			return validationFrame(ve.Errors)
		}
		return errorFrame(CodeValidation, "Invalid message")
	}
	if !ss.started || ss.done {
		return errorFrame(CodeExecution, action.MsgResetBeforeStepping)
	}
	if name, ok := a.Metadata["agent"].(string); ok && strings.TrimSpace(name) != "" && strings.TrimSpace(name) != ss.epAgent {
		ss.agent = strings.TrimSpace(name) // names the next episodes
		ss.epAgent = ss.agent
		if ss.srv.opts.OnAgentName != nil {
			ss.srv.opts.OnAgentName(ss.eng, ss.agent)
		}
	}
	obs, held, err := ss.agentStep(ctx, a)
	if held != nil {
		return held
	}
	if err != nil {
		var ve *action.ValidationError
		if errors.As(err, &ve) && len(ve.Errors) > 0 {
			return validationFrame(ve.Errors)
		}
		return errorFrame(CodeExecution, err.Error())
	}
	ss.done = obs.Done
	if a.Op == action.Goto {
		obs.Error = ss.srv.explainPractice(a.URL, obs.Error)
	}
	return frame("observation", observationData(obs, wsReward(obs), ss.details))
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
