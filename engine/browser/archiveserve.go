package browser

import (
	_ "embed"
	"encoding/json"
	"strconv"
	"strings"
	"sync"

	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"waymark/engine"
)

// An episode replayed from an archive (engine.ResetOptions.Archive): every
// request of every target of its browser context is paused before it is
// sent (fetchroute.go) and answered from the archive — fulfilled with the
// recorded response, failed as the recorded request failed, or refused
// (the page sees a network error) when the archive has no answer; with the
// fallback, that one goes to the network. Nothing is sent otherwise. The
// pages get a determinism script first (replay.js): Math.random and
// crypto's random numbers seeded per episode, and a stand-in WebSocket that
// plays the recorded conversations.

//go:embed replay.js
var replayScript string

// archiveServer answers one replayed episode's requests.
type archiveServer struct {
	arch     engine.Archive
	fallback bool
	logf     func(string, ...any)

	mu   sync.Mutex
	step int
	off  map[int]int // step → requests the archive could not answer
}

func newArchiveServer(arch engine.Archive, fallback bool, logf func(string, ...any)) *archiveServer {
	return &archiveServer{arch: arch, fallback: fallback, logf: logf, off: map[int]int{}}
}

// setStep says which step the requests from now on belong to.
func (s *archiveServer) setStep(n int) {
	if s == nil {
		return
	}
	s.mu.Lock()
	s.step = n
	s.mu.Unlock()
}

// offArchive is how many requests of step n the archive could not answer.
func (s *archiveServer) offArchive(n int) int {
	if s == nil {
		return 0
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.off[n]
}

// request answers one paused request.
func (s *archiveServer) request(r *fetchRouter, ev *fetch.EventRequestPaused) {
	req := ev.Request
	if req == nil {
		r.fail(ev.RequestID, network.ErrorReasonBlockedByClient)
		return
	}
	s.mu.Lock()
	step := s.step
	s.mu.Unlock()
	ar := engine.ArchiveRequest{Step: step, Method: req.Method, URL: req.URL, ResourceType: strings.ToLower(string(ev.ResourceType))}
	if req.HasPostData {
		for _, pe := range req.PostDataEntries {
			ar.Body = append(ar.Body, pe.Bytes...)
		}
	}
	resp, ok := s.arch.Answer(ar)
	if !ok {
		s.mu.Lock()
		s.off[step]++
		first := s.off[step] == 1
		s.mu.Unlock()
		if s.fallback {
			if first {
				s.logf("browser: offline replay: step %d: %s %s is not in the archive (%s); fetched from the network (fallback)", step, req.Method, req.URL, resp.Why)
			}
			r.resume(ev.RequestID)
			return
		}
		if first {
			s.logf("browser: offline replay: step %d: refused %s %s: %s", step, req.Method, req.URL, resp.Why)
		}
		r.fail(ev.RequestID, network.ErrorReasonBlockedByClient)
		return
	}
	if resp.Fail != "" {
		r.fail(ev.RequestID, failReason(resp.Fail))
		return
	}
	var hs []*fetch.HeaderEntry
	for _, h := range resp.Headers {
		switch strings.ToLower(h.Name) {
		case "content-encoding", "content-length", "transfer-encoding":
			// The archive keeps the decoded body.
			continue
		}
		hs = append(hs, &fetch.HeaderEntry{Name: h.Name, Value: h.Value})
	}
	status := resp.Status
	if status <= 0 {
		status = 200
	}
	p := fetch.FulfillRequestParams{RequestID: ev.RequestID, ResponseCode: int64(status), ResponseHeaders: hs, Body: resp.Body}
	if resp.StatusText != "" {
		p.ResponsePhrase = resp.StatusText
	}
	if _, err := chromedp.CallBrowser(r.bctx, fetch.FulfillRequest, p); err != nil && r.bctx.Err() == nil {
		s.logf("browser: offline replay: could not answer %s: %v", req.URL, err)
	}
}

// failReason is the Fetch error reason for a recorded net::ERR_ name.
func failReason(netErr string) network.ErrorReason {
	name := strings.TrimPrefix(netErr, "net::ERR_")
	for _, r := range []network.ErrorReason{network.ErrorReasonFailed, network.ErrorReasonAborted, network.ErrorReasonTimedOut,
		network.ErrorReasonAccessDenied, network.ErrorReasonConnectionClosed, network.ErrorReasonConnectionReset,
		network.ErrorReasonConnectionRefused, network.ErrorReasonConnectionAborted, network.ErrorReasonConnectionFailed,
		network.ErrorReasonNameNotResolved, network.ErrorReasonInternetDisconnected, network.ErrorReasonAddressUnreachable,
		network.ErrorReasonBlockedByClient, network.ErrorReasonBlockedByResponse} {
		if errorName(r) == name {
			return r
		}
	}
	return network.ErrorReasonFailed
}

// replayEnvScript is the determinism script of an episode replayed from
// arch: seed seeds its random numbers, and the recorded WebSocket
// conversations are played by a stand-in socket.
func replayEnvScript(arch engine.Archive, seed int64) string {
	type msg struct {
		Send   bool   `json:"s"`
		Opcode int    `json:"o"`
		Data   string `json:"d"`
	}
	type sock struct {
		URL  string `json:"url"`
		Msgs []msg  `json:"msgs"`
	}
	var socks []sock
	for _, e := range arch.Sockets() {
		s := sock{URL: e.Request.URL, Msgs: []msg{}}
		for _, m := range e.WebSocketMessages {
			s.Msgs = append(s.Msgs, msg{Send: m.Type == "send", Opcode: m.Opcode, Data: m.Data})
		}
		socks = append(socks, s)
	}
	sj, _ := json.Marshal(socks)
	if socks == nil {
		sj = []byte("[]")
	}
	out := strings.Replace(replayScript, "__SEED__", strconv.FormatInt(seed, 10), 1)
	out = strings.Replace(out, "__REPLAY__", "true", 1)
	return strings.Replace(out, "__SOCKETS__", string(sj), 1)
}

// recordEnvScript is the determinism script of an episode recording its
// archive: Math.random seeded as its replay will seed it.
func recordEnvScript(seed int64) string {
	out := strings.Replace(replayScript, "__SEED__", strconv.FormatInt(seed, 10), 1)
	out = strings.Replace(out, "__REPLAY__", "false", 1)
	return strings.Replace(out, "__SOCKETS__", "[]", 1)
}

// replayBinding is the page's way to say what it did that the archive
// cannot answer (a WebSocket message not recorded, a WebRTC connection).
const replayBinding = "__waymarkNotHermetic"

// notHermetic takes the page's report (the binding's payload).
func (s *archiveServer) notHermetic(payload string) {
	if s == nil {
		return
	}
	s.mu.Lock()
	step := s.step
	s.off[step]++
	s.mu.Unlock()
	s.arch.NotHermetic(step, payload)
}

// seedOf is the seed of an episode's random numbers: the reset's, else one
// made from the episode's id (a replay's reset gives the seed of the
// recorded episode's id: see dataset/replay).
func seedOf(opts engine.ResetOptions, id string) int64 {
	if opts.Seed != nil {
		return *opts.Seed
	}
	return engine.EpisodeSeed(id)
}
