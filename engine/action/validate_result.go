package action

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Validator is a task's in-page validate script (a BrowserGym-style task
// manifest's validateScript). Script is one of:
//
//   - a JavaScript expression whose value is the result, a promise of it, or
//     a function returning it (called with no arguments; a plain member
//     chain such as MiniShopGrader.validate is called on its object);
//   - a function body with return statements (used when the text is not an
//     expression);
//   - a "file#expression" pointer (the file part, e.g. grader.js or
//     index.html, names where the page loads the grader from; only the
//     expression after '#' runs).
//
// The result is read with ParseValidation.
type Validator struct {
	Script string `json:"script"`
	// EachStep runs the script after every step (and at reset), not only
	// when the episode ends.
	EachStep bool `json:"each_step,omitempty"`
}

// Validation is a validate script's result: {reward, done, message, info}.
type Validation struct {
	// Reward is the script's reward as returned (1/0 for binary tasks).
	Reward  float64         `json:"reward"`
	Done    bool            `json:"done"`
	Message string          `json:"message,omitempty"`
	Info    json.RawMessage `json:"info,omitempty"`
	// Error says why the script could not run or what it returned was not
	// a result; Reward is then 0.
	Error string `json:"error,omitempty"`
	// Step is the step after which the script ran (0: at reset).
	Step int `json:"step"`
}

// Passed reports a reward of 1 or more with no error.
func (v Validation) Passed() bool { return v.Error == "" && v.Reward >= 1 }

// Hint is the reward as an automatic hint in [0, 1] (0 on an error).
func (v Validation) Hint() float64 {
	if v.Error != "" || math.IsNaN(v.Reward) {
		return 0
	}
	return min(max(v.Reward, 0), 1)
}

// MaxValidationJSON bounds the JSON text of a validate script's result
// that is read from the page (in characters): the result is stored with
// the episode, and {reward, done, message, info} needs far less.
const MaxValidationJSON = 1 << 20

// ParseValidation reads the JSON of what a validate script returned:
//
//   - an object {reward, done, message, info}: reward a number, a boolean or
//     a numeric string; without reward, verdict or v "PASS" gives 1 (other
//     verdicts 0), else pass/passed/success (booleans); message may be named
//     reason or r;
//   - a boolean (reward 1/0, done the same), a number (done when ≥ 1);
//   - a string holding a JSON object (parsed as above), or "PASS"/"FAIL".
func ParseValidation(raw []byte) (Validation, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return Validation{}, fmt.Errorf("the validate script's result is not JSON: %v", err)
	}
	return validationOf(v, 0)
}

var errNoResult = errors.New("the validate script returned nothing (undefined or null); it must return {reward, done, message, info} or a boolean")

func validationOf(v any, depth int) (Validation, error) {
	switch x := v.(type) {
	case nil:
		return Validation{}, errNoResult
	case bool:
		return Validation{Reward: b2f(x), Done: x}, nil
	case json.Number:
		f, err := x.Float64()
		if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
			return Validation{}, fmt.Errorf("the validate script returned the number %s, which is not a finite reward", x)
		}
		return Validation{Reward: f, Done: f >= 1}, nil
	case string:
		s := strings.TrimSpace(x)
		if depth == 0 && strings.HasPrefix(s, "{") {
			return parseNested([]byte(s))
		}
		switch strings.ToUpper(s) {
		case "PASS", "PASSED", "TRUE":
			return Validation{Reward: 1, Done: true}, nil
		case "FAIL", "FAILED", "PENDING", "FALSE", "":
			return Validation{Reward: 0, Message: s}, nil
		}
		return Validation{}, fmt.Errorf("the validate script returned the text %q; return {reward, done, message, info} or a boolean", clipText(s, 80))
	case map[string]any:
		return objectValidation(x)
	case []any:
		return Validation{}, errors.New("the validate script returned a list; return {reward, done, message, info} or a boolean")
	}
	return Validation{}, fmt.Errorf("the validate script returned %T", v)
}

// parseNested parses a result given as text inside a result (one
// level only: a string holding a string is not unwrapped again).
func parseNested(raw []byte) (Validation, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return Validation{}, fmt.Errorf("the validate script returned text that is not a JSON object: %v", err)
	}
	return validationOf(v, 1)
}

func objectValidation(o map[string]any) (Validation, error) {
	var out Validation
	switch r := o["reward"].(type) {
	case json.Number:
		f, err := r.Float64()
		if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
			return out, fmt.Errorf("the validate script's reward %s is not a finite number", r)
		}
		out.Reward = f
	case bool:
		out.Reward = b2f(r)
	case string:
		f, err := strconv.ParseFloat(strings.TrimSpace(r), 64)
		if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
			return out, fmt.Errorf("the validate script's reward %q is not a number", clipText(r, 40))
		}
		out.Reward = f
	case nil:
		found := false
		for _, k := range []string{"verdict", "v"} {
			if s, ok := o[k].(string); ok {
				out.Reward, found = b2f(strings.EqualFold(s, "PASS")), true
				break
			}
		}
		for _, k := range []string{"pass", "passed", "success"} {
			if b, ok := o[k].(bool); ok && !found {
				out.Reward, found = b2f(b), true
			}
		}
		if !found {
			return out, errors.New("the validate script's result has no reward (give reward: 1 or 0, or verdict: \"PASS\")")
		}
		out.Done = out.Reward >= 1
	default:
		return out, fmt.Errorf("the validate script's reward is a %T, not a number", r)
	}
	switch d := o["done"].(type) {
	case bool:
		out.Done = d
	case nil:
	default:
		return out, fmt.Errorf("the validate script's done is a %T, not a boolean", d)
	}
	for _, k := range []string{"message", "reason", "r"} {
		if s, ok := o[k].(string); ok {
			out.Message = s
			break
		}
	}
	if info, ok := o["info"]; ok && info != nil {
		b, err := json.Marshal(info)
		if err == nil {
			out.Info = b
		}
	}
	return out, nil
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

func clipText(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

// CombineReward is the automatic hint of an episode whose task has a check
// (check, nil when none) and a validate result (v, nil when none): either
// alone gives its own; both give the smaller, so the hint is 1 only when
// both pass.
func CombineReward(check *float64, v *Validation) *float64 {
	if v == nil {
		return check
	}
	h := v.Hint()
	if check != nil {
		h = min(h, *check)
	}
	return &h
}
