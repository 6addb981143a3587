package app

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"time"
	"unicode/utf8"

	"waymark/engine"
	"waymark/engine/action"
	"waymark/engine/browser"
)

// play --obs browsergym: observations with BrowserGym's keys and Gym's
// terminated/truncated/reward, actions as BrowserGym action strings.

// gymFlags are play's options for the BrowserGym mode.
type gymFlags struct {
	obs  *string
	goal *string
	dom  *bool
}

func addGymFlags(fs *flag.FlagSet) *gymFlags {
	return &gymFlags{
		obs:  fs.String("obs", "waymark", "observation and action format: waymark (JSON actions in, Waymark's JSON lines out) or browsergym (BrowserGym action strings in, BrowserGym observations out; element grounding on; --max-steps counts BrowserGym steps)"),
		goal: fs.String("goal", "", "with --obs browsergym: the task's goal, given to the agent as goal, goal_object and a user chat message"),
		dom:  fs.Bool("dom", false, "with --obs browsergym: add dom_object (a DOMSnapshot: large)"),
	}
}

// mode reports whether play runs in the BrowserGym mode, refusing options
// that do not go with the mode asked for.
func (g *gymFlags) mode(given map[string]bool) (bool, error) {
	switch *g.obs {
	case "waymark":
		for _, name := range []string{"goal", "dom"} {
			if given[name] {
				return false, fmt.Errorf("%w: --%s is only for --obs browsergym", errUsage, name)
			}
		}
		return false, nil
	case "browsergym":
		for _, name := range []string{"restore", "server"} {
			if given[name] {
				return false, fmt.Errorf("%w: --%s cannot go with --obs browsergym: BrowserGym observations need the element grounding of a local browser started at --start-url", errUsage, name)
			}
		}
		return true, nil
	}
	return false, fmt.Errorf("%w: --obs %q: use waymark or browsergym", errUsage, *g.obs)
}

// gymChat is one of BrowserGym's chat messages.
type gymChat struct {
	Role      string  `json:"role"`
	Timestamp float64 `json:"timestamp"`
	Message   string  `json:"message"`
}

// gymObs is one line of play --obs browsergym: BrowserGym's observation
// keys in its order (arrays where BrowserGym has numpy arrays), then Gym's
// terminated, truncated and reward, and info.
type gymObs struct {
	ChatMessages    []gymChat                      `json:"chat_messages"`
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
	Info            gymInfo                        `json:"info"`
}

// gymInfo is Waymark's side of a step.
type gymInfo struct {
	Step       int    `json:"step"`        // BrowserGym steps taken (0 at reset)
	EngineStep int    `json:"engine_step"` // Waymark actions performed
	Title      string `json:"title"`
	// Actions are the Waymark actions the step performed.
	Actions   []action.Action `json:"waymark_actions,omitempty"`
	EndReason string          `json:"end_reason,omitempty"`
	Answer    string          `json:"answer,omitempty"`
	ShotFile  string          `json:"screenshot_file,omitempty"`
}

// gymEmptyAction is BrowserGym's last_action_error for an action string
// holding no call (HighLevelActionSet.to_python_code).
const gymEmptyAction = "ValueError: " + action.GymEmptyAction

// gymGreeting is BrowserGym's first chat message.
const gymGreeting = "Hi! I am your UI assistant, I can perform web tasks for you. What can I help you with?"

// runPlayGym plays one episode in the BrowserGym mode. settings are play's;
// their MaxSteps counts BrowserGym steps (one may take up to three Waymark
// actions, so the engine itself gets the largest limit).
func runPlayGym(ctx context.Context, env *Env, g *gymFlags, given map[string]bool, settings engine.Settings, prov engine.Provider, startURL, shots string) error {
	limit := settings.MaxSteps
	settings.MaxSteps = engine.MaxMaxSteps
	settings.Grounding = engine.GroundingOn
	if *g.dom {
		settings.Grounding = engine.GroundingDOM
	}
	if !given["action-set"] {
		settings.ActionSet = action.SetExtended // hover, dblclick, drag, goto, scroll_at
	}
	eng, err := newEngine(ctx, engineSpec{Settings: settings, Provider: prov, OwnsProvider: true,
		Metadata: map[string]string{"client": "waymark play --obs browsergym"}, LeaseLost: playWarn(env)})
	if err != nil {
		return err
	}
	defer eng.Close()
	var resolve action.Resolver
	if el, ok := engine.As[interface {
		Element(context.Context, string) (action.Target, error)
	}](eng); ok {
		resolve = func(bid string) (action.Target, error) {
			t, err := el.Element(ctx, bid)
			if errors.Is(err, browser.ErrNoElement) {
				return t, fmt.Errorf("%w: %v", action.ErrNoElement, err)
			}
			return t, err
		}
	}

	start := time.Now()
	out := json.NewEncoder(env.Stdout)
	st := gymState{goal: *g.goal, start: start, shots: shots, limit: limit}
	st.chat = append(st.chat, gymChat{Role: "assistant", Timestamp: unixSecs(start), Message: gymGreeting})
	if st.goal != "" {
		st.chat = append(st.chat, gymChat{Role: "user", Timestamp: unixSecs(start), Message: st.goal})
	}
	obs, err := eng.Reset(ctx, engine.ResetOptions{StartURL: startURL})
	if err != nil {
		return fmt.Errorf("could not open %s: %w", startURL, err)
	}
	line, err := st.observe(obs, "", "", nil)
	if err != nil {
		return err
	}
	if err := out.Encode(line); err != nil || line.Terminated || line.Truncated {
		return err
	}
	// Every line read is answered. A line that is no action string at all
	// (over-long, not UTF-8) is refused with play's {"line":N,"error":…};
	// every other line is a BrowserGym step, answered with an observation.
	refuse := func(n int, msg string) error { return out.Encode(playRefusal{Line: n, Error: msg}) }
	// answer observes the page again after an action that performed
	// nothing and failed with lastErr, as BrowserGym does after such a
	// step: the step counts, the episode goes on.
	answer := func(last, lastErr string) error {
		st.step++
		if o, ok := engine.As[engine.Observer](eng); ok {
			again, err := o.Observe(ctx)
			if err != nil {
				return err
			}
			obs = again
		}
		line, err := st.observe(obs, last, lastErr, nil)
		if err != nil {
			return err
		}
		if err := st.emit(out, line); err != nil {
			return err
		}
		if ctx.Err() != nil {
			return errors.New("interrupted")
		}
		return nil
	}
	err = readActionLines(env.Stdin, maxPlayLine, func(n int, raw []byte, size int) error {
		if raw == nil {
			return refuse(n, fmt.Sprintf("line %d has %d bytes, more than the %d a line may have (an action is one BrowserGym call of a few kilobytes); it was skipped", n, size, maxPlayLine))
		}
		if !utf8.Valid(raw) {
			return refuse(n, fmt.Sprintf("line %d is not UTF-8 text: send action strings as UTF-8; nothing was done", n))
		}
		text := string(bytes.TrimSpace(raw))
		if text == "" || text[0] == '#' {
			// BrowserGym's empty action (its parser skips comments): the
			// page observed again, nothing performed.
			return answer(text, gymEmptyAction)
		}
		if text[0] == '{' {
			return answer(text, "ValueError: this looks like a Waymark JSON action; with --obs browsergym write one BrowserGym call per line, such as mouse_click(312, 188) or click('a51')")
		}
		c, err := action.ParseBrowserGym(text)
		if err != nil {
			// A malformed or unknown call: BrowserGym's step fails with
			// last_action_error and the episode goes on.
			return answer(text, action.GymLastActionError(err))
		}
		acts, err := c.Waymark(resolve)
		if err != nil {
			// An action Waymark does not perform, an argument it cannot
			// act on, or (an *action.ElementError) a bid missing from the
			// page: a step error, nothing performed.
			return answer(c.Source, action.GymLastActionError(err))
		}
		for _, a := range acts {
			if verr := a.Validate(settings.ActionSet); verr != nil {
				return answer(c.Source, fmt.Sprintf("ValueError: %s becomes the Waymark action %s, which the %s action set refuses (%v): play with --action-set extended", c.Name, a, settings.ActionSet, verr))
			}
		}
		var done []action.Action
		for _, a := range acts {
			if obs, err = eng.Step(ctx, a); err != nil {
				return err
			}
			done = append(done, a)
			if obs.Error != "" || obs.Done {
				break // the rest of a compound action would act on a page that did not do what it expected
			}
		}
		st.step++
		switch c.Name {
		case "send_msg_to_user":
			st.chat = append(st.chat, gymChat{Role: "assistant", Timestamp: unixSecs(time.Now()), Message: c.Args["text"].Str})
		case "report_infeasible":
			st.chat = append(st.chat, gymChat{Role: "infeasible", Timestamp: unixSecs(time.Now()), Message: c.Args["reason"].Str})
		}
		line, err := st.observe(obs, c.Source, string(obs.Error), done)
		if err != nil {
			return err
		}
		if err := st.emit(out, line); err != nil {
			return err
		}
		if ctx.Err() != nil {
			return errors.New("interrupted")
		}
		return nil
	})
	if errors.Is(err, errPlayDone) {
		return nil
	}
	return err
}

// gymState is what a BrowserGym episode carries between observations.
type gymState struct {
	goal  string
	start time.Time
	shots string
	chat  []gymChat
	step  int // BrowserGym steps taken
	limit int
}

// emit writes a line and stops the reading once the episode is over.
func (st *gymState) emit(out *json.Encoder, line gymObs) error {
	if err := out.Encode(line); err != nil {
		return err
	}
	if line.Terminated || line.Truncated {
		return errPlayDone
	}
	return nil
}

// observe builds the line for obs after the BrowserGym action last (""
// at reset), which failed with lastErr ("" when it did not) after
// performing acts.
func (st *gymState) observe(obs action.Observation, last, lastErr string, acts []action.Action) (gymObs, error) {
	line := gymObs{
		ChatMessages:    append([]gymChat(nil), st.chat...),
		Goal:            st.goal,
		GoalObject:      []map[string]string{},
		OpenPagesURLs:   []string{obs.URL},
		OpenPagesTitles: []string{obs.Title},
		ActivePageIndex: []int{0},
		URL:             obs.URL,
		Screenshot:      base64.StdEncoding.EncodeToString(obs.Screenshot),
		LastAction:      last,
		LastActionError: lastErr,
		ElapsedTime:     []float64{time.Since(st.start).Seconds()},
		Info:            gymInfo{Step: st.step, EngineStep: obs.Step, Title: obs.Title, Actions: acts, EndReason: string(obs.EndReason), Answer: obs.Answer},
	}
	if st.goal != "" {
		line.GoalObject = append(line.GoalObject, map[string]string{"type": "text", "text": st.goal})
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
	line.Truncated = !line.Terminated && (obs.Done || (st.limit > 0 && st.step >= st.limit))
	if st.shots != "" && len(obs.Screenshot) > 0 {
		p := filepath.Join(st.shots, fmt.Sprintf("step-%03d.png", st.step))
		if err := os.WriteFile(p, obs.Screenshot, 0o644); err != nil {
			return line, fmt.Errorf("cannot save the screenshot: %w", err)
		}
		line.Info.ShotFile = p
	}
	return line, nil
}

func unixSecs(t time.Time) float64 { return float64(t.UnixNano()) / 1e9 }
