package app

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"unicode/utf8"

	"waymark/engine"
	"waymark/engine/action"
	"waymark/engine/gym"
)

// play --obs browsergym: observations with BrowserGym's keys and Gym's
// terminated/truncated/reward, actions as BrowserGym action strings.

// gymFlags are play's options for the BrowserGym mode.
type gymFlags struct {
	obs   *string
	goal  *string
	dom   *bool
	multi *bool
}

func addGymFlags(fs *flag.FlagSet) *gymFlags {
	return &gymFlags{
		obs:   fs.String("obs", "waymark", "observation and action format: waymark (JSON actions in, Waymark's JSON lines out) or browsergym (BrowserGym action strings in, BrowserGym observations out; element grounding on; --max-steps counts BrowserGym steps)"),
		goal:  fs.String("goal", "", "with --obs browsergym: the task's goal, given to the agent as goal, goal_object and a user chat message"),
		dom:   fs.Bool("dom", false, "with --obs browsergym: add dom_object (a DOMSnapshot: large)"),
		multi: fs.Bool("multiaction", true, "with --obs browsergym: a line may hold several calls, performed in order (BrowserGym's default, multiaction=True); --multiaction=false: one call per line"),
	}
}

// mode reports whether play runs in the BrowserGym mode, refusing options
// that do not go with the mode asked for.
func (g *gymFlags) mode(given map[string]bool) (bool, error) {
	switch *g.obs {
	case "waymark":
		for _, name := range []string{"goal", "dom", "multiaction"} {
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

// runPlayGym plays one episode in the BrowserGym mode. settings are play's;
// their MaxSteps counts BrowserGym steps (one may take up to three Waymark
// actions, so the engine itself gets the largest limit).
func runPlayGym(ctx context.Context, env *Env, f *playFlags, settings engine.Settings, prov engine.Provider) error {
	g, startURL := f.gym, f.startURL
	limit := settings.MaxSteps
	settings.MaxSteps = engine.MaxMaxSteps
	settings.Grounding = engine.GroundingOn
	if *g.dom {
		settings.Grounding = engine.GroundingDOM
	}
	if !f.given["action-set"] {
		settings.ActionSet = action.SetBrowserGym // every BrowserGym action Waymark performs
	}
	eng, err := newEngine(ctx, engineSpec{Settings: settings, Provider: prov, OwnsProvider: true,
		Metadata: map[string]string{"client": "waymark play --obs browsergym"}, LeaseLost: playWarn(env)})
	if err != nil {
		return err
	}
	defer eng.Close()
	var elements gym.Elements
	if el, ok := engine.As[gym.Elements](eng); ok {
		elements = el
	}
	out := json.NewEncoder(env.Stdout)
	sess := gym.New(eng, gym.Config{Goal: *g.goal, Multi: *g.multi, Limit: limit, Shots: f.shots, Set: settings.ActionSet, Elements: elements})
	obs, err := eng.Reset(ctx, engine.ResetOptions{StartURL: startURL})
	if err != nil {
		return fmt.Errorf("could not open %s: %w", startURL, err)
	}
	line, err := sess.First(obs)
	if err != nil {
		return err
	}
	if err := out.Encode(line); err != nil || line.Terminated || line.Truncated {
		return err
	}
	// Every line read is answered. A line that is no action string at all
	// (over-long, not UTF-8) is refused with play's {"line":N,"error":…};
	// every other line is a BrowserGym step, answered with an observation.
	_, err = answerLines(ctx, env.Stdin, out, " (an action is one BrowserGym call of a few kilobytes)", func(n int, raw []byte) (*playRefusal, bool, error) {
		if !utf8.Valid(raw) {
			return &playRefusal{Line: n, Error: fmt.Sprintf("line %d is not UTF-8 text: send action strings as UTF-8; nothing was done", n)}, false, nil
		}
		line, err := sess.Step(ctx, string(raw))
		if err != nil {
			return nil, false, err
		}
		if err := out.Encode(line); err != nil {
			return nil, false, err
		}
		return nil, line.Terminated || line.Truncated, nil
	})
	return err
}
