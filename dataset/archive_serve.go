package dataset

import (
	"fmt"
	"net/url"
	"regexp"
	"sort"
	"strings"
	"sync"

	"waymark/engine"
	"waymark/engine/har"
)

// How an offline replay is served from an episode's archive (see archive.go
// for how it is stored): the matching of a request to a recorded response,
// and the fidelity report of what each step was served, refused and never
// used.

// Archive is a recorded episode's traffic as a replay is served from it
// (engine.Archive). A request is matched by its method and URL, then by
// the recorded order: the n-th request for a key gets the n-th recorded
// response, then the last one again. The key is tried from the most
// exact to the least, and the first that has records wins:
//
//  1. method, URL and body (a POST's form or JSON), as recorded;
//  2. method and URL, the body ignored;
//  3. method and URL without its volatile query parameters (VolatileParams,
//     and any parameter whose value looks like a time stamp or a random id:
//     10–13 digits, a UUID, 16 or more hex digits), the body ignored.
//
// The request's secrets are redacted as the recording's were before it is
// matched, so a page that sends a redacted value back still matches. A
// record of a request that failed (the page gave it up, net::ERR_…) is
// used only when the same key has no answered record. Nothing else is
// matched: a request with no record is refused. Archive keeps, per step of
// the replay, what it served and refused, and at the end what it never
// used (Fidelity).
type Archive struct {
	red  *har.Redactor
	body func(hash string) ([]byte, error)

	mu      sync.Mutex
	levels  [3]map[string][]*archRec
	sockets []har.Entry
	all     []*archRec
	steps   map[int]*StepFidelity
}

type archRec struct {
	e    *har.Entry
	used int
}

// VolatileParams are query parameters an offline replay ignores when
// nothing matches the URL as it is (match level 3).
var VolatileParams = []string{"_", "_t", "t", "ts", "timestamp", "time", "cb", "cachebust", "cachebuster", "nocache", "rnd", "rand", "random", "nonce", "callback", "jsonp", "requestid", "request_id"}

var volatileValue = regexp.MustCompile(`^(\d{10,13}|[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}|[0-9a-fA-F]{16,})$`)

func newArchive(recs []har.Entry, body func(string) ([]byte, error)) *Archive {
	a := &Archive{body: body, steps: map[int]*StepFidelity{}}
	for i := range a.levels {
		a.levels[i] = map[string][]*archRec{}
	}
	for i := range recs {
		e := &recs[i]
		if e.ResourceType == "websocket" {
			a.sockets = append(a.sockets, *e)
			continue
		}
		r := &archRec{e: e}
		a.all = append(a.all, r)
		body := ""
		if e.Request.PostData != nil {
			body = e.Request.PostData.Text
		}
		for lv, k := range matchKeys(e.Request.Method, e.Request.URL, body) {
			a.levels[lv][k] = append(a.levels[lv][k], r)
		}
	}
	// A key with answered records does not serve the failed ones.
	for _, m := range a.levels {
		for k, rs := range m {
			var ok []*archRec
			for _, r := range rs {
				if !failed(r.e) {
					ok = append(ok, r)
				}
			}
			if len(ok) > 0 && len(ok) < len(rs) {
				m[k] = ok
			}
		}
	}
	return a
}

func failed(e *har.Entry) bool { return e.Response.Error != "" || e.Response.Status == 0 }

// matchKeys are the keys of a request at each match level.
func matchKeys(method, rawURL, body string) [3]string {
	u := strings.SplitN(rawURL, "#", 2)[0]
	m := strings.ToUpper(method)
	return [3]string{m + " " + u + "\n" + body, m + " " + u, m + " " + stripVolatile(u)}
}

// stripVolatile removes the volatile query parameters of u.
func stripVolatile(u string) string {
	pu, err := url.Parse(u)
	if err != nil || pu.RawQuery == "" {
		return u
	}
	var keep []string
	for _, p := range strings.Split(pu.RawQuery, "&") {
		name, value, _ := strings.Cut(p, "=")
		n, _ := url.QueryUnescape(name)
		v, _ := url.QueryUnescape(value)
		if isVolatile(strings.ToLower(n), v) {
			continue
		}
		keep = append(keep, p)
	}
	sort.Strings(keep)
	pu.RawQuery = strings.Join(keep, "&")
	return pu.String()
}

func isVolatile(name, value string) bool {
	for _, v := range VolatileParams {
		if name == v {
			return true
		}
	}
	return volatileValue.MatchString(value)
}

var levelWhy = [3]string{"method, URL and body as recorded", "method and URL (the body differs from the recording's)", "method and URL without its volatile query parameters"}

// Answer serves one request of the replay (engine.Archive).
func (a *Archive) Answer(req engine.ArchiveRequest) (engine.ArchiveResponse, bool) {
	u, body := req.URL, string(req.Body)
	if a.red != nil {
		// Redacted as the recording was, so the keys compare alike.
		probe := har.Entry{Request: har.Request{Method: req.Method, URL: req.URL}}
		if len(req.Body) > 0 {
			probe.Request.PostData = &har.PostData{Text: body}
		}
		a.red.Entry(&probe)
		u = probe.Request.URL
		if probe.Request.PostData != nil {
			body = probe.Request.PostData.Text
		}
	}
	keys := matchKeys(req.Method, u, body)
	a.mu.Lock()
	st := a.stepLocked(req.Step)
	var pick *archRec
	why := ""
	for lv, k := range keys {
		rs := a.levels[lv][k]
		if len(rs) == 0 {
			continue
		}
		// The first record of the key not used yet, in recorded order;
		// then the last one again.
		n := 0
		for n < len(rs)-1 && rs[n].used > 0 {
			n++
		}
		pick = rs[n]
		why = fmt.Sprintf("%s; recorded answer %d of %d at step %d", levelWhy[lv], n+1, len(rs), pick.e.Step)
		break
	}
	refuse := func(reason string) (engine.ArchiveResponse, bool) {
		st.Refused++
		if st.FirstRefusal == "" {
			st.FirstRefusal = fmt.Sprintf("%s %s: %s", req.Method, req.URL, reason)
		}
		a.mu.Unlock()
		return engine.ArchiveResponse{Why: reason}, false
	}
	if pick == nil {
		return refuse("the recording made no such request")
	}
	e := pick.e
	if e.Response.Status == 0 && e.Response.Error == "" {
		return refuse("the recording ended before this request was answered")
	}
	pick.used++
	a.mu.Unlock()
	resp := engine.ArchiveResponse{Status: e.Response.Status, StatusText: e.Response.StatusText, Headers: e.Response.Headers, Fail: e.Response.Error, Why: why}
	if e.Response.Error == "" && !noBody(e) {
		if e.Response.Content.Hash == "" {
			a.mu.Lock()
			pick.used--
			r, ok := refuse("its body was not kept: " + orWords(e.Response.Content.Comment, "the recording has no body for it"))
			return r, ok
		}
		b, err := a.body(e.Response.Content.Hash)
		if err != nil {
			a.mu.Lock()
			pick.used--
			r, ok := refuse("its body cannot be read: " + err.Error())
			return r, ok
		}
		resp.Body = b
	}
	a.mu.Lock()
	st.Served++
	a.mu.Unlock()
	return resp, true
}

// noBody reports whether a recorded response has no body to serve.
func noBody(e *har.Entry) bool {
	s := e.Response.Status
	return s == 204 || s == 304 || (s >= 300 && s < 400) || strings.EqualFold(e.Request.Method, "HEAD")
}

func orWords(s, alt string) string {
	if s == "" {
		return alt
	}
	return s
}

// Sockets are the recorded WebSocket conversations (engine.Archive).
func (a *Archive) Sockets() []har.Entry { return a.sockets }

// NotHermetic notes what step did that the archive cannot answer.
func (a *Archive) NotHermetic(step int, why string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	st := a.stepLocked(step)
	st.NotHermetic = append(st.NotHermetic, why)
}

func (a *Archive) stepLocked(n int) *StepFidelity {
	st := a.steps[n]
	if st == nil {
		st = &StepFidelity{Step: n}
		a.steps[n] = st
	}
	return st
}

var _ engine.Archive = (*Archive)(nil)

// StepFidelity is what an offline replay's step was served.
type StepFidelity struct {
	Step    int `json:"step"`
	Served  int `json:"served"`
	Refused int `json:"refused"`
	// FirstRefusal names the step's first request the archive could not
	// answer, and why.
	FirstRefusal string `json:"first_refusal,omitempty"`
	// NotHermetic lists what the step did that no archive answers (a
	// WebSocket message not recorded, WebRTC).
	NotHermetic []string `json:"not_hermetic,omitempty"`
}

// Fidelity is an offline replay's report on its archive: per step what
// was served and refused, and the recorded requests never used.
type Fidelity struct {
	Steps   []StepFidelity `json:"steps"`
	Served  int            `json:"served"`
	Refused int            `json:"refused"`
	// Unused counts the recorded requests (answered ones) the replay never
	// asked for; UnusedSample names a few.
	Unused       int      `json:"unused"`
	UnusedSample []string `json:"unused_sample,omitempty"`
	// Hermetic is true when nothing was refused and every step did only
	// what the archive answers.
	Hermetic bool `json:"hermetic"`
}

// Line is the one-line verdict of an offline replay whose matched of
// steps steps matched: "hermetic: 14/14 steps matched, 212 requests
// served, 0 refused, 3 recorded requests unused" (not hermetic when a
// request was refused or a step did what no archive answers).
func (f *Fidelity) Line(matched, steps int) string {
	word := "hermetic"
	if !f.Hermetic {
		word = "not hermetic"
	}
	s := fmt.Sprintf("%s: %d/%d steps matched, %d requests served, %d refused, %d recorded requests unused", word, matched, steps, f.Served, f.Refused, f.Unused)
	for _, st := range f.Steps {
		if st.FirstRefusal != "" {
			s += fmt.Sprintf("; first refused at step %d: %s", st.Step, st.FirstRefusal)
			break
		}
	}
	for _, st := range f.Steps {
		if len(st.NotHermetic) > 0 {
			s += fmt.Sprintf("; step %d: %s", st.Step, st.NotHermetic[0])
			break
		}
	}
	return s
}

// Step returns step n's figures (zero when it made no request).
func (f *Fidelity) Step(n int) StepFidelity {
	for _, s := range f.Steps {
		if s.Step == n {
			return s
		}
	}
	return StepFidelity{Step: n}
}

// Fidelity reports what the replay was served so far.
func (a *Archive) Fidelity() Fidelity {
	a.mu.Lock()
	defer a.mu.Unlock()
	f := Fidelity{Steps: []StepFidelity{}, Hermetic: true}
	for _, st := range a.steps {
		f.Steps = append(f.Steps, *st)
		f.Served += st.Served
		f.Refused += st.Refused
		if st.Refused > 0 || len(st.NotHermetic) > 0 {
			f.Hermetic = false
		}
	}
	sort.Slice(f.Steps, func(i, j int) bool { return f.Steps[i].Step < f.Steps[j].Step })
	for _, r := range a.all {
		if r.used == 0 && !failed(r.e) {
			f.Unused++
			if len(f.UnusedSample) < 10 {
				f.UnusedSample = append(f.UnusedSample, r.e.Request.Method+" "+r.e.Request.URL)
			}
		}
	}
	return f
}
