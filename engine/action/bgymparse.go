package action

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// This file reads BrowserGym's high-level action strings (its
// HighLevelActionSet): a Python-style call, or with multiaction several
// separated by blanks or line ends, e.g. click('a51'), fill("a12", "red
// shoes"), mouse_click(312, 188), noop(wait_ms=500). Arguments are Python literals: strings in single or
// double quotes with Python's escapes, ints and floats (with an optional
// sign), True, False, None and lists of those; keyword arguments follow the
// positional ones. A trailing # comment is allowed. Anything else is refused
// with a message naming what is wrong and what is accepted. The parser knows
// every function of BrowserGym's chat, infeas, bid, coord, nav and tab
// subsets; which of them Waymark can perform is decided by GymCall.Waymark.

// GymKind is the type of a GymValue.
type GymKind int

// The kinds of GymValue.
const (
	GymString GymKind = iota + 1
	GymNumber
	GymBool
	GymNone
	GymList
)

// GymValue is one argument of a BrowserGym call.
type GymValue struct {
	Kind GymKind
	Str  string
	Num  float64
	// Int is true for a number written without a point or an exponent.
	Int  bool
	Bool bool
	List []GymValue
}

// GymCall is one parsed BrowserGym action: the function's name and every
// parameter by name, the defaults filled in.
type GymCall struct {
	Name string
	Args map[string]GymValue
	// Source is the line as given, without surrounding blanks.
	Source string
}

// gymType is what a parameter accepts.
type gymType int

const (
	tStr       gymType = iota + 1 // a string
	tNum                          // an int or a float
	tBool                         // True or False
	tStrList                      // a list of strings
	tStrOrList                    // a string or a list of strings
)

type gymParam struct {
	name string
	typ  gymType
	def  *GymValue // nil: required
}

func gymStr(s string) *GymValue  { return &GymValue{Kind: GymString, Str: s} }
func gymNum(n float64) *GymValue { return &GymValue{Kind: GymNumber, Num: n, Int: true} }
func gymBool(b bool) *GymValue   { return &GymValue{Kind: GymBool, Bool: b} }
func gymEmpty() *GymValue        { return &GymValue{Kind: GymList} }

// req is a required parameter, opt one with a default.
func req(n string, t gymType) gymParam              { return gymParam{name: n, typ: t} }
func opt(n string, t gymType, d *GymValue) gymParam { return gymParam{name: n, typ: t, def: d} }

// gymFunctions are BrowserGym's action functions (its core action module)
// with their parameters, in the order of its subsets.
var gymFunctions = []struct {
	name   string
	params []gymParam
}{
	{"noop", []gymParam{opt("wait_ms", tNum, gymNum(1000))}},
	{"send_msg_to_user", []gymParam{req("text", tStr)}},
	{"report_infeasible", []gymParam{req("reason", tStr)}},
	{"scroll", []gymParam{req("delta_x", tNum), req("delta_y", tNum)}},
	{"fill", []gymParam{req("bid", tStr), req("value", tStr), opt("enable_autocomplete_menu", tBool, gymBool(false))}},
	{"select_option", []gymParam{req("bid", tStr), req("options", tStrOrList)}},
	{"click", []gymParam{req("bid", tStr), opt("button", tStr, gymStr("left")), opt("modifiers", tStrList, gymEmpty())}},
	{"dblclick", []gymParam{req("bid", tStr), opt("button", tStr, gymStr("left")), opt("modifiers", tStrList, gymEmpty())}},
	{"hover", []gymParam{req("bid", tStr)}},
	{"press", []gymParam{req("bid", tStr), req("key_comb", tStr)}},
	{"focus", []gymParam{req("bid", tStr)}},
	{"clear", []gymParam{req("bid", tStr)}},
	{"drag_and_drop", []gymParam{req("from_bid", tStr), req("to_bid", tStr)}},
	{"upload_file", []gymParam{req("bid", tStr), req("file", tStrOrList)}},
	{"scroll_at", []gymParam{req("x", tNum), req("y", tNum), req("dx", tNum), req("dy", tNum)}},
	{"mouse_move", []gymParam{req("x", tNum), req("y", tNum)}},
	{"mouse_up", []gymParam{req("x", tNum), req("y", tNum), opt("button", tStr, gymStr("left"))}},
	{"mouse_down", []gymParam{req("x", tNum), req("y", tNum), opt("button", tStr, gymStr("left"))}},
	{"mouse_click", []gymParam{req("x", tNum), req("y", tNum), opt("button", tStr, gymStr("left"))}},
	{"mouse_dblclick", []gymParam{req("x", tNum), req("y", tNum), opt("button", tStr, gymStr("left"))}},
	{"mouse_drag_and_drop", []gymParam{req("from_x", tNum), req("from_y", tNum), req("to_x", tNum), req("to_y", tNum)}},
	{"mouse_upload_file", []gymParam{req("x", tNum), req("y", tNum), req("file", tStrOrList)}},
	{"keyboard_down", []gymParam{req("key", tStr)}},
	{"keyboard_up", []gymParam{req("key", tStr)}},
	{"keyboard_press", []gymParam{req("key", tStr)}},
	{"keyboard_type", []gymParam{req("text", tStr)}},
	{"keyboard_insert_text", []gymParam{req("text", tStr)}},
	{"goto", []gymParam{req("url", tStr)}},
	{"go_back", nil},
	{"go_forward", nil},
	{"new_tab", nil},
	{"tab_close", nil},
	{"tab_focus", []gymParam{req("index", tNum)}},
}

// gymButtons and gymModifiers are the values BrowserGym's signatures allow.
var (
	gymButtons   = []string{"left", "middle", "right"}
	gymModifiers = []string{"Alt", "Control", "ControlOrMeta", "Meta", "Shift"}
)

// GymError is why an action string cannot run, with what BrowserGym says
// for such a string where Waymark knows it. Its Error is Waymark's
// explanation; GymLastActionError writes it as BrowserGym's
// last_action_error.
type GymError struct {
	// Type is the Python exception BrowserGym raises for the case
	// (ValueError, NameError, TypeError), or NotImplementedError for an
	// action BrowserGym performs and Waymark does not.
	Type string
	// Msg is Waymark's explanation.
	Msg string
	// Gym, when set, is the message in BrowserGym's own words (with
	// Waymark's detail after them), used instead of Msg in
	// last_action_error.
	Gym string
}

func (e *GymError) Error() string { return e.Msg }

// GymEmptyAction is BrowserGym's message for an action string holding no
// call (its HighLevelActionSet.to_python_code).
const GymEmptyAction = "Received an empty action."

// GymLastActionError writes why an action string could not run as
// BrowserGym's last_action_error does, "ExceptionType: message": a
// *GymError with its type, an *ElementError as it is, any other refusal
// as a ValueError.
func GymLastActionError(err error) string {
	var ge *GymError
	var ee *ElementError
	switch {
	case errors.As(err, &ee):
		return ee.Msg
	case errors.As(err, &ge):
		if ge.Gym != "" {
			return ge.Type + ": " + ge.Gym
		}
		return ge.Type + ": " + ge.Msg
	}
	return "ValueError: " + err.Error()
}

// ParseBrowserGym reads one BrowserGym action call. The error says what is
// wrong, where (a 1-based column), and what is accepted.
func ParseBrowserGym(line string) (GymCall, error) {
	calls, err := parseGym(line, false)
	if err != nil {
		return GymCall{}, err
	}
	return calls[0], nil
}

// ParseBrowserGymMulti reads the calls of an action string with
// BrowserGym's multiaction on: one or more calls separated by blanks or
// line ends, e.g. fill('a12', 'red') click('a13'), each optionally
// followed by a # comment. Each call's Source is its own text.
func ParseBrowserGymMulti(line string) ([]GymCall, error) { return parseGym(line, true) }

// parseGym reads a line's call, or with multi its calls.
func parseGym(line string, multi bool) ([]GymCall, error) {
	src := strings.TrimSpace(line)
	if !utf8.ValidString(src) {
		return nil, fmt.Errorf("the action is not valid UTF-8 text: send it as UTF-8")
	}
	if src == "" || src[0] == '#' {
		return nil, &GymError{Type: "ValueError", Gym: GymEmptyAction,
			Msg: "no action: write one BrowserGym call such as click('a51') or mouse_click(312, 188)"}
	}
	ps := &gymParser{s: src}
	var calls []GymCall
next:
	begin := ps.i
	name := ps.ident()
	if name == "" {
		return nil, fmt.Errorf("expected an action call such as click('a51') at column 1, got %s", ps.rest())
	}
	sig := -1
	for i, f := range gymFunctions {
		if f.name == name {
			sig = i
		}
	}
	if sig < 0 {
		return nil, &GymError{Type: "NameError", Msg: fmt.Sprintf("unknown action %q: the BrowserGym actions are %s", name, gymNames()),
			Gym: fmt.Sprintf("Invalid action type '%s'. The BrowserGym actions are %s", name, gymNames())}
	}
	ps.blank()
	if !ps.eat('(') {
		return nil, fmt.Errorf("%s at column %d: expected ( after the action's name, got %s", name, ps.i+1, ps.rest())
	}
	pos, kw, kwOrder, err := ps.arguments()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	end := ps.i
	ps.between()
	if ps.i < len(ps.s) {
		at := ps.i + 1
		if n := (&gymParser{s: ps.s[ps.i:]}).ident(); n != "" && multi {
			c, err := bind(gymFunctions[sig].name, gymFunctions[sig].params, pos, kw, kwOrder)
			if err != nil {
				return nil, err
			}
			c.Source = src[begin:end]
			calls = append(calls, c)
			goto next
		} else if n != "" {
			return nil, &GymError{Type: "ValueError",
				Msg: fmt.Sprintf("only one call per action (multiaction is off): found %s after the call at column %d", ps.rest(), at),
				Gym: fmt.Sprintf("Received a multi-action, only single-actions are allowed. Found %s after the call at column %d (multiaction is off: one call per action).", ps.rest(), at)}
		}
		// Say how calls are told apart: by blanks and line ends (with
		// multiaction), not by , or ;.
		if multi {
			return nil, fmt.Errorf("unexpected %s after the call at column %d: separate calls with blanks or line ends, each optionally followed by a # comment", ps.rest(), at)
		}
		return nil, fmt.Errorf("unexpected %s after the call at column %d: an action is one call, optionally followed by a # comment", ps.rest(), at)
	}
	c, err := bind(gymFunctions[sig].name, gymFunctions[sig].params, pos, kw, kwOrder)
	if err != nil {
		return nil, err
	}
	c.Source = src
	if multi {
		c.Source = src[begin:end]
	}
	return append(calls, c), nil
}

// gymNames lists every function name the parser knows.
func gymNames() string {
	names := make([]string, len(gymFunctions))
	for i, f := range gymFunctions {
		names[i] = f.name
	}
	return strings.Join(names, ", ")
}

// signature writes f's parameters as BrowserGym documents them.
func signature(name string, params []gymParam) string {
	parts := make([]string, len(params))
	for i, p := range params {
		parts[i] = p.name
		if p.def != nil {
			parts[i] += "=" + p.def.python()
		}
	}
	return name + "(" + strings.Join(parts, ", ") + ")"
}

// bind matches the arguments to the parameters, checks their types and
// fills the defaults.
func bind(name string, params []gymParam, pos []GymValue, kw map[string]GymValue, kwOrder []string) (GymCall, error) {
	sig := signature(name, params)
	if len(pos) > len(params) {
		return GymCall{}, typeError("%s takes at most %d arguments, got %d: write %s", name, len(params), len(pos), sig)
	}
	args := map[string]GymValue{}
	for i, v := range pos {
		args[params[i].name] = v
	}
	for _, k := range kwOrder {
		known := false
		for _, p := range params {
			known = known || p.name == k
		}
		if !known {
			return GymCall{}, typeError("%s has no argument %q: write %s", name, k, sig)
		}
		if _, dup := args[k]; dup {
			return GymCall{}, typeError("%s got two values for %s: write %s", name, k, sig)
		}
		args[k] = kw[k]
	}
	for _, p := range params {
		v, given := args[p.name]
		if !given {
			if p.def == nil {
				return GymCall{}, typeError("%s is missing its argument %s: write %s", name, p.name, sig)
			}
			args[p.name] = *p.def
			continue
		}
		if err := p.check(v); err != nil {
			return GymCall{}, fmt.Errorf("%s: %s %v: write %s", name, p.name, err, sig)
		}
	}
	return GymCall{Name: name, Args: args}, nil
}

// typeError is a call that does not fit its function's signature: Python
// raises a TypeError for it.
func typeError(format string, a ...any) error {
	return &GymError{Type: "TypeError", Msg: fmt.Sprintf(format, a...)}
}

// check refuses a value of the wrong type, an empty bid, a button or a
// modifier BrowserGym does not name.
func (p gymParam) check(v GymValue) error {
	switch p.typ {
	case tStr:
		if v.Kind != GymString {
			return fmt.Errorf("must be a string, got %s", v.describe())
		}
		if strings.HasSuffix(p.name, "bid") && v.Str == "" {
			return fmt.Errorf("must not be empty (a bid names an element, e.g. 'a51')")
		}
		if p.name == "button" && !contains(gymButtons, v.Str) {
			return fmt.Errorf("must be one of %s, got %s", quoteAll(gymButtons), v.describe())
		}
	case tNum:
		if v.Kind != GymNumber {
			return fmt.Errorf("must be a number, got %s", v.describe())
		}
	case tBool:
		if v.Kind != GymBool {
			return fmt.Errorf("must be True or False, got %s", v.describe())
		}
	case tStrList, tStrOrList:
		if p.typ == tStrOrList && v.Kind == GymString {
			return nil
		}
		what := "a list of strings"
		if p.typ == tStrOrList {
			what = "a string or a list of strings"
		}
		if v.Kind != GymList {
			return fmt.Errorf("must be %s, got %s", what, v.describe())
		}
		for _, e := range v.List {
			if e.Kind != GymString {
				return fmt.Errorf("must be %s, got a list holding %s", what, e.describe())
			}
			if p.name == "modifiers" && !contains(gymModifiers, e.Str) {
				return fmt.Errorf("must name modifiers among %s, got %s", quoteAll(gymModifiers), e.describe())
			}
		}
	}
	return nil
}

func contains(list []string, s string) bool {
	for _, e := range list {
		if e == s {
			return true
		}
	}
	return false
}

func quoteAll(list []string) string {
	q := make([]string, len(list))
	for i, s := range list {
		q[i] = "'" + s + "'"
	}
	return strings.Join(q, ", ")
}

// describe names a value in a message: "the number 3", "the string 'x'".
func (v GymValue) describe() string {
	switch v.Kind {
	case GymString:
		return "the string " + v.python()
	case GymNumber:
		return "the number " + v.python()
	case GymList:
		return "the list " + v.python()
	}
	return v.python()
}

// python writes v as a Python literal.
func (v GymValue) python() string {
	switch v.Kind {
	case GymString:
		return pyQuoteSingle(v.Str)
	case GymNumber:
		if v.Int && math.Abs(v.Num) < 1e15 {
			return strconv.FormatFloat(v.Num, 'f', 0, 64)
		}
		return strconv.FormatFloat(v.Num, 'g', -1, 64)
	case GymBool:
		if v.Bool {
			return "True"
		}
		return "False"
	case GymList:
		parts := make([]string, len(v.List))
		for i, e := range v.List {
			parts[i] = e.python()
		}
		return "[" + strings.Join(parts, ", ") + "]"
	}
	return "None"
}

// String writes c back as a call with every argument by keyword, in the
// function's order: click(bid='a51', button='left', modifiers=[]). It
// parses again to the same call.
func (c GymCall) String() string {
	for _, f := range gymFunctions {
		if f.name != c.Name {
			continue
		}
		parts := make([]string, 0, len(f.params))
		for _, p := range f.params {
			if v, ok := c.Args[p.name]; ok {
				parts = append(parts, p.name+"="+v.python())
			}
		}
		return c.Name + "(" + strings.Join(parts, ", ") + ")"
	}
	return c.Source
}
