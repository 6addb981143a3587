package openenv

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"
	"github.com/google/uuid"

	"waymark/engine"
	"waymark/engine/action"
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
