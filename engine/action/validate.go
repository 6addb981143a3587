package action

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// FieldError is one validation error in pydantic's shape, so the OpenEnv
// server can send it as is in a VALIDATION_ERROR's "errors" list.
type FieldError struct {
	Type  string         `json:"type"`
	Loc   []any          `json:"loc"`
	Msg   string         `json:"msg"`
	Input any            `json:"input"`
	Ctx   map[string]any `json:"ctx,omitempty"`
	URL   string         `json:"url,omitempty"`
}

// ValidationError lists every reason an action was refused.
type ValidationError struct {
	Errors []FieldError
	// Hint, when set, is a friendlier summary than the field errors.
	Hint string
}

func (e *ValidationError) Error() string {
	if e.Hint != "" {
		return e.Hint
	}
	parts := make([]string, 0, len(e.Errors))
	for _, fe := range e.Errors {
		msg := strings.TrimPrefix(fe.Msg, "Value error, ")
		if len(fe.Loc) == 0 {
			parts = append(parts, msg)
			continue
		}
		locs := make([]string, len(fe.Loc))
		for i, l := range fe.Loc {
			locs[i] = fmt.Sprint(l)
		}
		parts = append(parts, strings.Join(locs, ".")+": "+msg)
	}
	return strings.Join(parts, "; ")
}

const pydanticURL = "https://errors.pydantic.dev/2.13/v/"

// NewFieldError builds a pydantic-shaped error dict (nil loc becomes [];
// json.Number inputs become the numbers they were).
func NewFieldError(typ string, loc []any, msg string, input any, ctx map[string]any) FieldError {
	if loc == nil {
		loc = []any{}
	}
	return FieldError{Type: typ, Loc: loc, Msg: msg, Input: PlainJSON(input), Ctx: ctx, URL: pydanticURL + typ}
}

// The reference's custom-validator messages.
const (
	MsgClickNeedsXY   = "click needs x and y"
	MsgTypeNeedsText  = "type needs text"
	MsgUnsupportedKey = "unsupported key"
)

func valueErr(msg string, input any) FieldError {
	return NewFieldError("value_error", []any{}, "Value error, "+msg, input, map[string]any{"error": msg})
}

func literalExpected(ops []Op) string {
	q := make([]string, len(ops))
	for i, o := range ops {
		q[i] = "'" + string(o) + "'"
	}
	if len(q) == 1 {
		return q[0]
	}
	return strings.Join(q[:len(q)-1], ", ") + " or " + q[len(q)-1]
}

// Parse decodes and validates one action JSON object against the set, with
// the reference's rules: unknown keys are refused, metadata is accepted, x and
// y may be null, and the cross-field rules run once the fields are valid.
func Parse(data []byte, set Set) (Action, error) {
	// encoding/json would silently turn invalid UTF-8 into U+FFFD, and a
	// type action would then type characters nobody sent.
	if !utf8.Valid(data) {
		return Action{}, &ValidationError{Errors: []FieldError{unicodeErr([]any{}, data)}}
	}
	var raw any
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&raw); err != nil {
		return Action{}, &ValidationError{Errors: []FieldError{NewFieldError("json_invalid", []any{},
			"Invalid JSON: "+err.Error(), string(data), map[string]any{"error": err.Error()})}}
	}
	// One action per message: anything but whitespace after the object is
	// refused as Python's json.loads does ("Extra data"), so a second
	// action on the same line is never silently dropped.
	if off := int(dec.InputOffset()); len(bytes.TrimSpace(data[off:])) > 0 {
		at := off + len(data[off:]) - len(bytes.TrimLeft(data[off:], " \t\r\n"))
		msg := "Extra data: " + pyPosition(data, at)
		return Action{}, &ValidationError{Errors: []FieldError{NewFieldError("json_invalid", []any{},
			"Invalid JSON: "+msg, string(data), map[string]any{"error": msg})}}
	}
	return FromValue(raw, set)
}

// pyPosition says where byte offset at is, as Python's json module does:
// "line L column C (char N)", counting characters, not bytes.
func pyPosition(data []byte, at int) string {
	before := data[:at]
	line := bytes.Count(before, []byte("\n")) + 1
	col := utf8.RuneCount(before[bytes.LastIndexByte(before, '\n')+1:]) + 1
	return fmt.Sprintf("line %d column %d (char %d)", line, col, utf8.RuneCount(before))
}

// unicodeErr refuses text that is not valid UTF-8 (pydantic's string_unicode).
func unicodeErr(loc []any, b []byte) FieldError {
	at := 0
	for at < len(b) {
		r, n := utf8.DecodeRune(b[at:])
		if r == utf8.RuneError && n <= 1 {
			break
		}
		at += n
	}
	msg := fmt.Sprintf("Input should be a valid string, unable to parse raw data as a unicode string: it is not valid UTF-8 (bad byte 0x%02x at byte %d); send text as UTF-8", b[min(at, len(b)-1)], at)
	return NewFieldError("string_unicode", loc, msg, strings.ToValidUTF8(string(b), "\uFFFD"), nil)
}

// FromValue validates an already-decoded JSON value (numbers as json.Number or
// float64). The OpenEnv server uses it for the "data" of a step message.
func FromValue(raw any, set Set) (Action, error) {
	obj, ok := raw.(map[string]any)
	if !ok {
		return Action{}, &ValidationError{Errors: []FieldError{NewFieldError("model_attributes_type", []any{},
			"Input should be a valid dictionary or object to extract fields from", PlainJSON(raw), nil)}}
	}
	var a Action
	var errs []FieldError
	allowed := map[string]bool{"metadata": true, "op": true, "x": true, "y": true, "text": true, "dy": true}
	if set.extended() {
		allowed["x2"], allowed["y2"], allowed["url"] = true, true, true
	}
	if set == SetBrowserGym {
		allowed["values"], allowed["index"] = true, true
	}
	ops := set.Ops()

	if v, present := obj["op"]; !present {
		errs = append(errs, NewFieldError("missing", []any{"op"}, "Field required", PlainJSON(obj), nil))
	} else if s, ok := v.(string); !ok || !set.HasOp(Op(s)) {
		exp := literalExpected(ops)
		errs = append(errs, NewFieldError("literal_error", []any{"op"}, "Input should be "+exp, PlainJSON(v),
			map[string]any{"expected": exp}))
	} else {
		a.Op = Op(s)
	}
	intField := func(name string, lo, hi int, hiExclusive, nullable bool) *int {
		v, present := obj[name]
		if !present || (v == nil && nullable) {
			return nil
		}
		n, fe, ok := toInt(v, name)
		if !ok {
			errs = append(errs, fe)
			return nil
		}
		if fe, bad := rangeErr(name, n, v, lo, hi, hiExclusive); bad {
			errs = append(errs, fe)
			return nil
		}
		return &n
	}
	a.X = intField("x", 0, ViewportWidth, true, true)
	a.Y = intField("y", 0, ViewportHeight, true, true)
	if set.extended() {
		a.X2 = intField("x2", 0, ViewportWidth, true, true)
		a.Y2 = intField("y2", 0, ViewportHeight, true, true)
	}
	if set == SetBrowserGym {
		a.Index = intField("index", 0, 1000, true, true)
		if v, present := obj["values"]; present {
			l, ok := v.([]any)
			if !ok {
				errs = append(errs, NewFieldError("list_type", []any{"values"}, "Input should be a valid list", PlainJSON(v), nil))
			}
			a.Values = []string{}
			for i, e := range l {
				if s, ok := e.(string); !ok || !utf8.ValidString(s) {
					errs = append(errs, NewFieldError("string_type", []any{"values", i}, "Input should be a valid string", PlainJSON(e), nil))
				} else {
					a.Values = append(a.Values, s)
				}
			}
		}
	}
	if v, present := obj["text"]; present {
		if s, ok := v.(string); !ok {
			errs = append(errs, NewFieldError("string_type", []any{"text"}, "Input should be a valid string", PlainJSON(v), nil))
		} else if !utf8.ValidString(s) {
			errs = append(errs, unicodeErr([]any{"text"}, []byte(s)))
		} else if n := len([]rune(s)); n > MaxTextLen {
			errs = append(errs, NewFieldError("string_too_long", []any{"text"},
				fmt.Sprintf("String should have at most %d characters", MaxTextLen), s, map[string]any{"max_length": MaxTextLen}))
		} else {
			a.Text = s
		}
	}
	if _, present := obj["dy"]; present {
		if p := intField("dy", -MaxScroll, MaxScroll, false, false); p != nil {
			a.DY = *p
		}
	}
	if v, present := obj["url"]; present && set.extended() {
		if s, ok := v.(string); !ok {
			errs = append(errs, NewFieldError("string_type", []any{"url"}, "Input should be a valid string", PlainJSON(v), nil))
		} else if !utf8.ValidString(s) {
			errs = append(errs, unicodeErr([]any{"url"}, []byte(s)))
		} else {
			a.URL = s
		}
	}
	if v, present := obj["metadata"]; present {
		if m, ok := v.(map[string]any); !ok {
			errs = append(errs, NewFieldError("dict_type", []any{"metadata"}, "Input should be a valid dictionary", PlainJSON(v), nil))
		} else {
			a.Metadata = PlainJSON(m).(map[string]any)
		}
	}
	for _, k := range sortedKeys(obj) {
		if !allowed[k] {
			errs = append(errs, NewFieldError("extra_forbidden", []any{k}, "Extra inputs are not permitted", PlainJSON(obj[k]), nil))
		}
	}
	if len(errs) > 0 {
		ve := &ValidationError{Errors: errs}
		if op, ok := obj["op"].(string); ok && set == SetDefault && SetExtended.HasOp(Op(op)) && !SetDefault.HasOp(Op(op)) {
			ve.Hint = fmt.Sprintf("%q is an extended action; this episode uses the default action set", op)
		} else if ok && set != SetBrowserGym && SetBrowserGym.HasOp(Op(op)) && !SetExtended.HasOp(Op(op)) {
			ve.Hint = fmt.Sprintf("%q is a BrowserGym action; this episode uses the %s action set", op, set)
		}
		return Action{}, ve
	}
	if fe, bad := crossField(a, set, PlainJSON(obj)); bad {
		return Action{}, &ValidationError{Errors: []FieldError{fe}}
	}
	return a, nil
}

// Validate checks a typed action against the set (ranges and cross-field
// rules), as Parse would have.
func (a Action) Validate(set Set) error {
	// json.Marshal would turn invalid UTF-8 into U+FFFD before Parse sees it.
	for name, v := range map[string]string{"text": a.Text, "url": a.URL} {
		if !utf8.ValidString(v) {
			return &ValidationError{Errors: []FieldError{unicodeErr([]any{name}, []byte(v))}}
		}
	}
	b, err := json.Marshal(a)
	if err != nil {
		return err
	}
	_, err = Parse(b, set)
	return err
}

func crossField(a Action, set Set, input any) (FieldError, bool) {
	switch a.Op {
	case Click:
		if a.X == nil || a.Y == nil {
			return valueErr(MsgClickNeedsXY, input), true
		}
	case Type:
		if a.Text == "" {
			return valueErr(MsgTypeNeedsText, input), true
		}
	case Key:
		if set.HasKey(a.Text) {
			break
		}
		if _, err := SplitKeyCombo(a.Text); set == SetBrowserGym && err == nil {
			break
		}
		return valueErr(MsgUnsupportedKey, input), true
	case KeyDown, KeyUp:
		if _, ok := LookupPWKey(a.Text); !ok {
			return valueErr(string(a.Op)+" needs one of Playwright's key names, e.g. Shift or a", input), true
		}
	case SetValue, Select, MouseDown, MouseUp:
		if a.X == nil || a.Y == nil {
			return valueErr(string(a.Op)+" needs x and y", input), true
		}
	case TabFocus:
		if a.Index == nil {
			return valueErr("tab_focus needs index", input), true
		}
	case DoubleClick, Move:
		if a.X == nil || a.Y == nil {
			return valueErr(string(a.Op)+" needs x and y", input), true
		}
	case Drag:
		if a.X == nil || a.Y == nil || a.X2 == nil || a.Y2 == nil {
			return valueErr("drag needs x, y, x2 and y2", input), true
		}
	case Goto:
		if err := CheckURL(a.URL); err != nil {
			return valueErr("goto needs "+err.Error(), input), true
		}
	}
	return FieldError{}, false
}

func toInt(v any, name string) (int, FieldError, bool) {
	bad := func(typ, msg string) (int, FieldError, bool) {
		return 0, NewFieldError(typ, []any{name}, msg, PlainJSON(v), nil), false
	}
	switch t := v.(type) {
	case json.Number:
		// Integers beyond int64 come back clamped with ErrRange: still
		// integers, refused by the range check as too large or too small.
		if i, err := strconv.ParseInt(string(t), 10, 64); err == nil || errors.Is(err, strconv.ErrRange) {
			return clampInt(i), FieldError{}, true
		}
		f, err := t.Float64()
		if errors.Is(err, strconv.ErrRange) && math.IsInf(f, 0) {
			// 1e400: Python reads it as infinity.
			return bad("finite_number", "Input should be a finite number")
		}
		if err != nil {
			return bad("int_type", "Input should be a valid integer")
		}
		return floatInt(f, v, name)
	case float64:
		return floatInt(t, v, name)
	case int:
		return t, FieldError{}, true
	case bool:
		// pydantic's lax mode takes true and false as 1 and 0.
		if t {
			return 1, FieldError{}, true
		}
		return 0, FieldError{}, true
	case string:
		if i, err := strconv.ParseInt(strings.TrimSpace(t), 10, 64); err == nil || errors.Is(err, strconv.ErrRange) {
			return clampInt(i), FieldError{}, true
		}
		return bad("int_parsing", "Input should be a valid integer, unable to parse string as an integer")
	}
	return bad("int_type", "Input should be a valid integer")
}

func floatInt(f float64, v any, name string) (int, FieldError, bool) {
	if f != math.Trunc(f) || math.IsInf(f, 0) || math.IsNaN(f) {
		return 0, NewFieldError("int_from_float", []any{name}, "Input should be a valid integer, got a number with a fractional part", PlainJSON(v), nil), false
	}
	// Clamp before converting: int64(f) of a float beyond int64's range is
	// undefined (99999999999999999999 would come out negative).
	return int(max(min(f, math.MaxInt32), math.MinInt32)), FieldError{}, true
}

func clampInt(i int64) int {
	if i > math.MaxInt32 {
		return math.MaxInt32
	}
	if i < math.MinInt32 {
		return math.MinInt32
	}
	return int(i)
}

func rangeErr(name string, n int, input any, lo, hi int, hiExclusive bool) (FieldError, bool) {
	in := PlainJSON(input)
	if n < lo {
		return NewFieldError("greater_than_equal", []any{name}, fmt.Sprintf("Input should be greater than or equal to %d", lo), in, map[string]any{"ge": lo}), true
	}
	if hiExclusive && n >= hi {
		return NewFieldError("less_than", []any{name}, fmt.Sprintf("Input should be less than %d", hi), in, map[string]any{"lt": hi}), true
	}
	if !hiExclusive && n > hi {
		return NewFieldError("less_than_equal", []any{name}, fmt.Sprintf("Input should be less than or equal to %d", hi), in, map[string]any{"le": hi}), true
	}
	return FieldError{}, false
}

// PlainJSON converts json.Number values (in maps and slices too) into int64
// or float64, so decoded inputs marshal as the numbers they were.
func PlainJSON(v any) any {
	switch t := v.(type) {
	case json.Number:
		if i, err := t.Int64(); err == nil {
			return i
		}
		f, err := t.Float64()
		if err != nil {
			// 1e400 is no float64: quoted as the text it was, so the error
			// that quotes it can be sent as JSON (+Inf cannot) and read by
			// any JSON reader (1e400 as a number cannot).
			return t.String()
		}
		return f
	case map[string]any:
		m := make(map[string]any, len(t))
		for k, x := range t {
			m[k] = PlainJSON(x)
		}
		return m
	case []any:
		s := make([]any, len(t))
		for i, x := range t {
			s[i] = PlainJSON(x)
		}
		return s
	}
	return v
}

func sortedKeys(m map[string]any) []string {
	order := []string{"metadata", "op", "x", "y", "text", "dy", "x2", "y2", "url"}
	var keys []string
	seen := map[string]bool{}
	for _, k := range order {
		if _, ok := m[k]; ok {
			keys = append(keys, k)
			seen[k] = true
		}
	}
	var rest []string
	for k := range m {
		if !seen[k] {
			rest = append(rest, k)
		}
	}
	sortStrings(rest)
	return append(keys, rest...)
}
