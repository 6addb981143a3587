// Package gym runs an episode as BrowserGym sees it: each step is one
// BrowserGym action string (click('a51'), fill('a12', 'red shoes'),
// mouse_click(312, 188), ...) performed through the step engine as Waymark
// actions, and each answer an observation with BrowserGym's keys plus
// Gym's terminated, truncated and reward. play --obs browsergym and serve
// --obs browsergym share it.
package gym

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"waymark/engine"
	"waymark/engine/action"
)

// Chat is one of BrowserGym's chat messages.
type Chat struct {
	Role      string  `json:"role"`
	Timestamp float64 `json:"timestamp"`
	Message   string  `json:"message"`
}

// Obs is one BrowserGym observation: BrowserGym's keys in its order
// (arrays where BrowserGym has numpy arrays), then Gym's terminated,
// truncated and reward, and info.
type Obs struct {
	ChatMessages    []Chat                         `json:"chat_messages"`
	Goal            string                         `json:"goal"`
	GoalObject      []map[string]string            `json:"goal_object"`
	OpenPagesURLs   []string                       `json:"open_pages_urls"`
	OpenPagesTitles []string                       `json:"open_pages_titles"`
	ActivePageIndex []int                          `json:"active_page_index"`
	URL             string                         `json:"url"`
	Screenshot      string                         `json:"screenshot"` // base64 PNG
	DOMObject       json.RawMessage                `json:"dom_object,omitempty"`
	AXTreeObject    json.RawMessage                `json:"axtree_object"`
	ElementProps    map[string]action.ElementProps `json:"extra_element_properties"`
	FocusedBid      string                         `json:"focused_element_bid"`
	LastAction      string                         `json:"last_action"`
	LastActionError string                         `json:"last_action_error"`
	ElapsedTime     []float64                      `json:"elapsed_time"`
	Terminated      bool                           `json:"terminated"`
	Truncated       bool                           `json:"truncated"`
	Reward          float64                        `json:"reward"`
	Info            Info                           `json:"info"`
}

// Info is Waymark's side of a step.
type Info struct {
	Step       int    `json:"step"`        // BrowserGym steps taken (0 at reset)
	EngineStep int    `json:"engine_step"` // Waymark actions performed
	Title      string `json:"title"`
	// Actions are the Waymark actions the step performed.
	Actions []action.Action `json:"waymark_actions,omitempty"`
	// Redacted is true when the step typed into a password or payment
	// field: its actions carry action.RedactedText in place of the text,
	// and so does last_action.
	Redacted  bool   `json:"redacted,omitempty"`
	EndReason string `json:"end_reason,omitempty"`
	Answer    string `json:"answer,omitempty"`
	ShotFile  string `json:"screenshot_file,omitempty"`
}

// EmptyAction is BrowserGym's last_action_error for an action string
// holding no call (HighLevelActionSet.to_python_code).
const EmptyAction = "ValueError: " + action.GymEmptyAction

// Greeting is BrowserGym's first chat message.
const Greeting = "Hi! I am your UI assistant, I can perform web tasks for you. What can I help you with?"

// Config sets up a Session.
type Config struct {
	// Goal is the task's goal, given as goal, goal_object and a user chat
	// message.
	Goal string
	// Multi is BrowserGym's multiaction: a step may hold several calls,
	// performed in order until one fails.
	Multi bool
	// Limit is the number of BrowserGym steps after which the episode is
	// truncated (0: none).
	Limit int
	// Shots, when set, is a folder each observation's screenshot is saved
	// in (step-NNN.png).
	Shots string
	// Set is the engine's action set (action.SetBrowserGym for every
	// action; a smaller set refuses what it lacks).
	Set action.Set
	// Elements finds elements by bid (the engine, or the engine under a
	// wrapper), its error wrapping action.ErrNoElement for a bid not in
	// the page; nil when none does, and element actions are refused.
	Elements Elements
	// Observer observes the page again after a step that performed
	// nothing; nil: the engine, when it can.
	Observer engine.Observer
}

// Elements finds an element of the current page by its bid.
type Elements interface {
	Element(ctx context.Context, bid string) (action.Target, error)
}

// Session is one episode in BrowserGym's terms over an engine.
type Session struct {
	eng   engine.Engine
	cfg   Config
	start time.Time
	chat  []Chat
	step  int // BrowserGym steps taken
}

// New starts a session over eng; its clock (elapsed_time) starts now.
func New(eng engine.Engine, cfg Config) *Session {
	s := &Session{eng: eng, cfg: cfg, start: time.Now()}
	s.chat = append(s.chat, Chat{Role: "assistant", Timestamp: unixSecs(s.start), Message: Greeting})
	if cfg.Goal != "" {
		s.chat = append(s.chat, Chat{Role: "user", Timestamp: unixSecs(s.start), Message: cfg.Goal})
	}
	return s
}

// First is the observation of the reset, obs being the engine's.
func (s *Session) First(obs action.Observation) (Obs, error) {
	// A start page that did not load says why, as a step's error would.
	return s.observe(obs, "", string(obs.Error), nil)
}

// Step performs one action string (a line, without its newline) and
// returns the observation after it. As in BrowserGym every string is a
// step: an empty one, a malformed or unknown call, an action Waymark does
// not perform or a bid missing from the page performs nothing and is
// answered with the page observed again and last_action_error saying why.
// The error is only for an engine that failed (the episode cannot go on).
func (s *Session) Step(ctx context.Context, line string) (Obs, error) {
	text := strings.TrimSpace(line)
	if text == "" || text[0] == '#' {
		// BrowserGym's empty action (its parser skips comments).
		return s.again(ctx, text, EmptyAction)
	}
	if text[0] == '{' {
		return s.again(ctx, text, "ValueError: this looks like a Waymark JSON action; with --obs browsergym send one BrowserGym call, such as mouse_click(312, 188) or click('a51')")
	}
	var calls []action.GymCall
	if s.cfg.Multi {
		cs, err := action.ParseBrowserGymMulti(text)
		if err != nil {
			return s.again(ctx, text, action.GymLastActionError(err))
		}
		calls = cs
	} else {
		c, err := action.ParseBrowserGym(text)
		if err != nil {
			return s.again(ctx, text, action.GymLastActionError(err))
		}
		calls = []action.GymCall{c}
	}
	last := calls[0].Source
	if len(calls) > 1 {
		last = text
	}
	var resolve action.Resolver
	if s.cfg.Elements != nil {
		resolve = func(bid string) (action.Target, error) { return s.cfg.Elements.Element(ctx, bid) }
	}
	var done []action.Action
	var obs *action.Observation
	var secrets []string // texts typed into password or payment fields
	stepErr := ""
	for _, c := range calls {
		// Each call is translated on the page the calls before it left,
		// so its bids are looked up there.
		acts, err := c.Waymark(resolve)
		if err == nil {
			for _, a := range acts {
				if verr := a.Validate(s.cfg.Set); verr != nil {
					err = fmt.Errorf("%s becomes the Waymark action %s, which the %s action set refuses (%v): use --action-set browsergym", c.Name, a, s.cfg.Set, verr)
					break
				}
			}
		}
		if err != nil {
			// Nothing of this call is performed: a step error.
			stepErr = action.GymLastActionError(err)
			break
		}
		for _, a := range acts {
			o, err := s.eng.Step(ctx, a)
			if err != nil {
				return Obs{}, err
			}
			obs = &o
			if o.Redacted {
				secrets = append(secrets, a.Text)
				a = a.Redact()
			}
			done = append(done, a)
			if o.Error != "" || o.Done {
				break // the rest would act on a page that did not do what it expected
			}
		}
		switch c.Name {
		case "send_msg_to_user":
			s.chat = append(s.chat, Chat{Role: "assistant", Timestamp: unixSecs(time.Now()), Message: c.Args["text"].Str})
		case "report_infeasible":
			s.chat = append(s.chat, Chat{Role: "infeasible", Timestamp: unixSecs(time.Now()), Message: c.Args["reason"].Str})
		}
		if obs != nil && (obs.Error != "" || obs.Done) {
			break
		}
	}
	if obs == nil {
		// Nothing was performed (a refusal, or a press outside the
		// viewport): the page as it is now.
		return s.again(ctx, last, stepErr)
	}
	s.step++
	if stepErr == "" {
		stepErr = string(obs.Error)
	}
	if len(secrets) > 0 {
		last = redactLine(last, secrets)
	}
	o, err := s.observe(*obs, last, stepErr, done)
	o.Info.Redacted = len(secrets) > 0
	return o, err
}

// redactLine is the action string line with each secret's text replaced by
// action.RedactedText; a line where a secret is not found as written (its
// literal spelled with escapes) is action.RedactedText as a whole.
func redactLine(line string, secrets []string) string {
	for _, x := range secrets {
		if x == "" || x == action.RedactedText {
			continue
		}
		if !strings.Contains(line, x) {
			return action.RedactedText
		}
		line = strings.ReplaceAll(line, x, action.RedactedText)
	}
	return line
}

// NotPerformed answers the action string line without performing it: the
// page observed again, last_action_error saying why (e.g. a person took
// control and acted since the agent's last observation).
func (s *Session) NotPerformed(ctx context.Context, line, why string) (Obs, error) {
	return s.again(ctx, strings.TrimSpace(line), why)
}

// again observes the page again after a step that performed nothing and
// failed with lastErr ("" when it did not fail), as BrowserGym does: the
// step counts, the episode goes on.
func (s *Session) again(ctx context.Context, last, lastErr string) (Obs, error) {
	s.step++
	var obs action.Observation
	o := s.cfg.Observer
	if o == nil {
		o, _ = engine.As[engine.Observer](s.eng)
	}
	if o != nil {
		again, err := o.Observe(ctx)
		if err != nil {
			return Obs{}, err
		}
		obs = again
	}
	return s.observe(obs, last, lastErr, nil)
}

// observe builds the observation for obs after the action string last (""
// at reset), which failed with lastErr ("" when it did not) after
// performing acts.
func (s *Session) observe(obs action.Observation, last, lastErr string, acts []action.Action) (Obs, error) {
	line := Obs{
		ChatMessages:    append([]Chat(nil), s.chat...),
		Goal:            s.cfg.Goal,
		GoalObject:      []map[string]string{},
		OpenPagesURLs:   []string{obs.URL},
		OpenPagesTitles: []string{obs.Title},
		ActivePageIndex: []int{0},
		URL:             obs.URL,
		Screenshot:      base64.StdEncoding.EncodeToString(obs.Screenshot),
		LastAction:      last,
		LastActionError: lastErr,
		ElapsedTime:     []float64{time.Since(s.start).Seconds()},
		Info:            Info{Step: s.step, EngineStep: obs.Step, Title: obs.Title, Actions: acts, EndReason: string(obs.EndReason), Answer: obs.Answer},
	}
	if s.cfg.Goal != "" {
		line.GoalObject = append(line.GoalObject, map[string]string{"type": "text", "text": s.cfg.Goal})
	}
	if x := obs.Extras; x != nil {
		if len(x.OpenPagesURLs) > 0 {
			line.OpenPagesURLs, line.OpenPagesTitles, line.ActivePageIndex = x.OpenPagesURLs, x.OpenPagesTitles, []int{x.ActivePageIndex}
		}
		line.DOMObject, line.AXTreeObject = x.DOM, x.AXTree
		line.ElementProps, line.FocusedBid = x.ElementProps, x.FocusedBid
	}
	if obs.Reward != nil {
		line.Reward = *obs.Reward
	}
	// Gym: terminated when the task is over (an answer was given),
	// truncated when the episode was cut short (step limit, a crash);
	// never both.
	line.Terminated = obs.Done && obs.EndReason == action.EndFinished
	line.Truncated = !line.Terminated && (obs.Done || (s.cfg.Limit > 0 && s.step >= s.cfg.Limit))
	if s.cfg.Shots != "" && len(obs.Screenshot) > 0 {
		p := filepath.Join(s.cfg.Shots, fmt.Sprintf("step-%03d.png", s.step))
		if err := os.WriteFile(p, obs.Screenshot, 0o600); err != nil {
			return line, fmt.Errorf("cannot save the screenshot: %w", err)
		}
		line.Info.ShotFile = p
	}
	return line, nil
}

func unixSecs(t time.Time) float64 { return float64(t.UnixNano()) / 1e9 }
