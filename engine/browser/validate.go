package browser

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"waymark/engine"
	"waymark/engine/action"
)

// scriptForm says how a validate script runs: as an expression (the
// default) or, when it does not parse as one, as a function body.
type scriptForm int

const (
	formUnknown scriptForm = iota
	formExpression
	formBody
)

var (
	// pointerRe is a manifest's "file#expression" pointer.
	pointerRe = regexp.MustCompile(`^[\w./-]+\.(?:html?|m?js)#([\s\S]+)$`)
	// memberRe is a plain member chain naming a function, e.g.
	// MiniShopGrader.validate: called on its object.
	memberRe = regexp.MustCompile(`^\s*([\w$]+(?:\.[\w$]+)*)\.([A-Za-z_$][\w$]*)\s*$`)
)

// scriptSource strips a "file#expression" pointer to its expression.
func scriptSource(src string) string {
	src = strings.TrimSpace(src)
	if m := pointerRe.FindStringSubmatch(src); m != nil {
		return m[1]
	}
	return src
}

// scriptExpr is the JavaScript that runs src in the given form and yields
// the JSON text of its result (a function result is awaited; a function
// is called, a member function on its object).
func scriptExpr(src string, form scriptForm) string {
	var call string
	switch m := memberRe.FindStringSubmatch(src); {
	case form == formBody:
		call = "(async () => {\n" + src + "\n})()"
	case m != nil:
		name, _ := json.Marshal(m[2])
		call = "(async () => { const o = (" + m[1] + "); const f = o == null ? undefined : o[" + string(name) +
			"]; return typeof f === 'function' ? await f.call(o) : f; })()"
	default:
		call = "(async () => { const v = (" + src + "\n); return typeof v === 'function' ? await v() : await v; })()"
	}
	return "Promise.resolve(" + call + ").then(v => { const s = JSON.stringify(v === undefined ? null : v); " +
		"return typeof s === 'string' && s.length > " + strconv.Itoa(action.MaxValidationJSON) + " ? " +
		strconv.Quote(tooLargeMark) + " + s.length : s; })"
}

// tooLargeMark starts what scriptExpr yields instead of a result longer
// than action.MaxValidationJSON, followed by its length; JSON never starts
// with a NUL.
const tooLargeMark = "\x00too large:"

// resultTooLargeError is a script result too long to read.
type resultTooLargeError struct{ chars int }

func (e *resultTooLargeError) Error() string {
	return fmt.Sprintf("its result is too large: %d characters of JSON, and at most %d (1 MiB) are read; return {reward, done, message, info} with a smaller info",
		e.chars, action.MaxValidationJSON)
}

// formOf finds whether src parses as an expression (compiled, not run:
// a SyntaxError the script throws when it runs is not mistaken for one).
func (e *Engine) formOf(ctx context.Context, t *tab, src string) scriptForm {
	var res runtime.CompileScriptResult
	err := t.do(ctx, e.set.OpTimeout, func(c context.Context) error {
		var err error
		res, err = chromedp.Call(c, runtime.CompileScript, runtime.CompileScriptParams{Expression: scriptExpr(src, formExpression)})
		return err
	})
	if err == nil && res.ExceptionDetails != nil {
		return formBody
	}
	return formExpression
}

// runScript evaluates src in the tab's top document and returns the JSON
// of its result; form is what worked before (formUnknown: found first).
func (e *Engine) runScript(ctx context.Context, t *tab, src string, form scriptForm) (string, scriptForm, error) {
	src = scriptSource(src)
	if src == "" {
		return "", form, errors.New("the script is empty")
	}
	if form == formUnknown {
		form = e.formOf(ctx, t, src)
	}
	var out string
	err := t.do(ctx, e.set.OpTimeout, func(c context.Context) error {
		var err error
		out, err = chromedp.Run(c, chromedp.Evaluate[string](scriptExpr(src, form), chromedp.EvalAwaitPromise))
		return err
	})
	if n, ok := strings.CutPrefix(out, tooLargeMark); err == nil && ok {
		chars, _ := strconv.Atoi(n)
		return "", form, &resultTooLargeError{chars: chars}
	}
	return out, form, err
}

// validate runs v in the active tab and reads its result; a script that
// fails or returns no result gives a Validation with Error set.
func (e *Engine) validate(ctx context.Context, ep *episode, v *action.Validator) action.Validation {
	raw, form, err := e.runScript(ctx, ep.tab, v.Script, ep.script)
	if err == nil {
		ep.script = form
	}
	res := action.Validation{Step: e.state.StepCount}
	var big *resultTooLargeError
	if errors.As(err, &big) {
		res.Error = "the validate script ran, but " + big.Error()
		return res
	}
	if err != nil {
		res.Error = "the validate script failed: " + oneLineErr(err)
		return res
	}
	parsed, err := action.ParseValidation([]byte(raw))
	if err != nil {
		res.Error = err.Error()
		return res
	}
	parsed.Step = res.Step
	return parsed
}

// validateStep runs the episode's validate script into obs when the
// episode ends, or after every step when the script asks (EachStep). A
// page that is gone (fatal error) gives a result with Error set.
func (e *Engine) validateStep(ctx context.Context, ep *episode, obs *action.Observation, pageOK bool) {
	v := ep.valid
	if v == nil || (!ep.done && !v.EachStep) {
		return
	}
	var res action.Validation
	if pageOK {
		res = e.validate(ctx, ep, v)
	} else {
		res = action.Validation{Step: e.state.StepCount, Error: "the page was gone, so the validate script could not run"}
	}
	if res.Error != "" {
		e.logf("browser: %s", res.Error)
	}
	obs.Validation = &res
}

func oneLineErr(err error) string {
	s := err.Error()
	if i := strings.IndexByte(s, '\n'); i > 0 {
		s = s[:i]
	}
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return s
}

// Validate runs a validate script in the current episode's active page,
// outside any step (for checking a task's grader). The result's Error says
// when the script failed or returned no result.
func (e *Engine) Validate(ctx context.Context, v action.Validator) (action.Validation, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return action.Validation{}, engine.ErrClosed
	}
	if e.ep == nil {
		return action.Validation{}, engine.ErrResetBeforeStepping
	}
	return e.validate(ctx, &episode{tab: e.ep.tab}, &v), nil
}

// CheatStep is one step of a gold recipe given as a list: a click on a
// selector, or a fill of a selector with text (the tools chrome_click and
// chrome_fill; click and fill are accepted too).
type CheatStep struct {
	Tool   string `json:"tool"`
	Params struct {
		Selector string `json:"selector"`
		Text     string `json:"text"`
		Value    string `json:"value"`
	} `json:"params"`
}

// cheatSteps reads a recipe: a JSON list of steps, or a script (one
// step: the script itself).
func cheatSteps(script string) ([]string, error) {
	s := strings.TrimSpace(script)
	if !strings.HasPrefix(s, "[") {
		return []string{s}, nil
	}
	var steps []CheatStep
	if err := json.Unmarshal([]byte(s), &steps); err != nil {
		return nil, fmt.Errorf("the cheat script looks like a list of steps but is not one: %v; write [{\"tool\": \"chrome_click\", \"params\": {\"selector\": \"#save\"}}, …] or a JavaScript body", err)
	}
	var out []string
	for i, st := range steps {
		sel, _ := json.Marshal(st.Params.Selector)
		find := "const el = document.querySelector(" + string(sel) + "); if (!el) throw new Error('cheat step " +
			fmt.Sprint(i+1) + ": no element matches ' + " + string(sel) + ");"
		switch strings.TrimPrefix(st.Tool, "chrome_") {
		case "click":
			out = append(out, find+" el.scrollIntoView({block: 'center'}); el.click(); return true;")
		case "fill":
			text := st.Params.Text
			if text == "" {
				text = st.Params.Value
			}
			tj, _ := json.Marshal(text)
			out = append(out, find+` el.focus();
const proto = el instanceof HTMLTextAreaElement ? HTMLTextAreaElement.prototype : el instanceof HTMLSelectElement ? HTMLSelectElement.prototype : HTMLInputElement.prototype;
Object.getOwnPropertyDescriptor(proto, 'value').set.call(el, `+string(tj)+`);
el.dispatchEvent(new Event('input', {bubbles: true})); el.dispatchEvent(new Event('change', {bubbles: true})); return true;`)
		default:
			return nil, fmt.Errorf("cheat step %d: unknown tool %q; use chrome_click or chrome_fill", i+1, st.Tool)
		}
		if strings.TrimSpace(st.Params.Selector) == "" {
			return nil, fmt.Errorf("cheat step %d (%s) has no selector", i+1, st.Tool)
		}
	}
	if len(out) == 0 {
		return nil, errors.New("the cheat script is an empty list")
	}
	return out, nil
}

// navigatedAway reports the errors of a script whose page navigated while
// it ran (a form submitted, a link followed): the script did its part.
func navigatedAway(err error) bool {
	if err == nil {
		return false
	}
	s := err.Error()
	return strings.Contains(s, "Execution context was destroyed") || strings.Contains(s, "Inspected target navigated") ||
		strings.Contains(s, "Cannot find context with specified id")
}

// RunCheat runs a task's gold recipe (a manifest's cheatScript: a
// JavaScript expression or function body, or a JSON list of chrome_click
// and chrome_fill steps) in the active page, each step followed by the
// settle wait a step gets, so the page has done what the recipe caused
// when it returns.
func (e *Engine) RunCheat(ctx context.Context, script string) error {
	steps, err := cheatSteps(script)
	if err != nil {
		return err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return engine.ErrClosed
	}
	ep := e.ep
	if ep == nil {
		return engine.ErrResetBeforeStepping
	}
	for i, st := range steps {
		begin := time.Now()
		_, _, err := e.runScript(ctx, ep.tab, st, formUnknown)
		var big *resultTooLargeError
		if err != nil && !navigatedAway(err) && !errors.As(err, &big) { // a recipe's result is not read
			if len(steps) > 1 {
				return fmt.Errorf("cheat step %d: %s", i+1, oneLineErr(err))
			}
			return fmt.Errorf("the cheat script failed: %s", oneLineErr(err))
		}
		if _, err := e.settleAndFollow(ctx, ep, begin, e.set.ActionWait); err != nil {
			return fmt.Errorf("the page did not settle after the cheat script: %w", err)
		}
	}
	return nil
}
