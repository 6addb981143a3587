package action

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// gymParser reads the arguments of one BrowserGym call (see ParseBrowserGym).
type gymParser struct {
	s     string
	i     int
	depth int
}

// maxGymDepth bounds how deep lists nest.
const maxGymDepth = 8

// col is the 1-based column, in characters, of byte offset i.
func (ps *gymParser) col(i int) int { return utf8.RuneCountInString(ps.s[:i]) + 1 }

func (ps *gymParser) blank() {
	for ps.i < len(ps.s) && (ps.s[ps.i] == ' ' || ps.s[ps.i] == '\t') {
		ps.i++
	}
}

// between skips what may follow a call: blanks and a # comment up to the
// line's end, and line ends with what follows them (BrowserGym's action
// strings are Python, so a multiaction string holds one call per line).
func (ps *gymParser) between() {
	for {
		ps.blank()
		if ps.i < len(ps.s) && ps.s[ps.i] == '#' {
			for ps.i < len(ps.s) && ps.s[ps.i] != '\n' {
				ps.i++
			}
		}
		if ps.i == len(ps.s) || ps.s[ps.i] != '\n' && ps.s[ps.i] != '\r' {
			return
		}
		ps.i++
	}
}

func (ps *gymParser) eat(c byte) bool {
	if ps.i < len(ps.s) && ps.s[ps.i] == c {
		ps.i++
		return true
	}
	return false
}

func isIdentStart(c byte) bool { return c == '_' || (c|0x20) >= 'a' && (c|0x20) <= 'z' }
func isDigit(c byte) bool      { return c >= '0' && c <= '9' }
func isIdentChar(c byte) bool  { return isIdentStart(c) || isDigit(c) }

// ident reads a Python name ([A-Za-z_][A-Za-z0-9_]*), "" when none.
func (ps *gymParser) ident() string {
	j := ps.i
	if j >= len(ps.s) || !isIdentStart(ps.s[j]) {
		return ""
	}
	for j < len(ps.s) && isIdentChar(ps.s[j]) {
		j++
	}
	n := ps.s[ps.i:j]
	ps.i = j
	return n
}

// rest quotes what follows the current position, for messages.
func (ps *gymParser) rest() string {
	r := ps.s[ps.i:]
	if r == "" {
		return "the end of the line"
	}
	if utf8.RuneCountInString(r) > 20 {
		r = string([]rune(r)[:20]) + "…"
	}
	return strconv.Quote(r)
}

// arguments reads the arguments after "(" up to the closing ")".
func (ps *gymParser) arguments() (pos []GymValue, kw map[string]GymValue, order []string, err error) {
	kw = map[string]GymValue{}
	for {
		ps.blank()
		if ps.eat(')') {
			return pos, kw, order, nil
		}
		if ps.i >= len(ps.s) || ps.s[ps.i] == '#' {
			return nil, nil, nil, errors.New("missing ) at the end of the call")
		}
		at := ps.i
		name := ps.ident()
		ps.blank()
		isKw := name != "" && ps.i < len(ps.s) && ps.s[ps.i] == '=' && !strings.HasPrefix(ps.s[ps.i:], "==")
		if isKw {
			ps.i++
			v, err := ps.value()
			if err != nil {
				return nil, nil, nil, err
			}
			if _, dup := kw[name]; dup {
				return nil, nil, nil, fmt.Errorf("keyword argument %s given twice (column %d)", name, ps.col(at))
			}
			kw[name] = v
			order = append(order, name)
		} else {
			ps.i = at
			if len(kw) > 0 {
				return nil, nil, nil, fmt.Errorf("positional argument at column %d after a keyword argument: write the positional arguments first", ps.col(at))
			}
			v, err := ps.value()
			if err != nil {
				return nil, nil, nil, err
			}
			pos = append(pos, v)
		}
		ps.blank()
		if ps.eat(',') {
			continue
		}
		if ps.eat(')') {
			return pos, kw, order, nil
		}
		if ps.i >= len(ps.s) || ps.s[ps.i] == '#' {
			return nil, nil, nil, errors.New("missing ) at the end of the call")
		}
		return nil, nil, nil, fmt.Errorf("expected , or ) at column %d, got %s", ps.col(ps.i), ps.rest())
	}
}

// value reads one literal: a string, a number, True, False, None or a list.
func (ps *gymParser) value() (GymValue, error) {
	ps.blank()
	if ps.i >= len(ps.s) {
		return GymValue{}, errors.New("missing a value at the end of the line")
	}
	at := ps.i
	c := ps.s[ps.i]
	switch {
	case c == '\'' || c == '"':
		v, err := ps.str()
		if err != nil {
			return v, err
		}
		ps.blank()
		if ps.i < len(ps.s) && (ps.s[ps.i] == '\'' || ps.s[ps.i] == '"') {
			return v, fmt.Errorf("two strings side by side at column %d: join them into one string", ps.col(ps.i))
		}
		return v, nil
	case isDigit(c) || c == '.' && ps.i+1 < len(ps.s) && isDigit(ps.s[ps.i+1]):
		return ps.number(false)
	case c == '-' || c == '+':
		ps.i++
		ps.blank()
		if ps.i < len(ps.s) && (isDigit(ps.s[ps.i]) || ps.s[ps.i] == '.') {
			return ps.number(c == '-')
		}
		return GymValue{}, fmt.Errorf("expected a number after %c at column %d, got %s", c, ps.col(at), ps.rest())
	case c == '[':
		return ps.list()
	case c == '(':
		return GymValue{}, fmt.Errorf("a tuple or parenthesis at column %d is not accepted: write a list [...] or the value itself", ps.col(at))
	case c == '{':
		return GymValue{}, fmt.Errorf("a dict or set at column %d is not accepted: BrowserGym's arguments are strings, numbers, True/False/None and lists", ps.col(at))
	case isIdentStart(c):
		name := ps.ident()
		switch name {
		case "True", "False":
			return GymValue{Kind: GymBool, Bool: name == "True"}, nil
		case "None":
			return GymValue{Kind: GymNone}, nil
		}
		if ps.i < len(ps.s) && (ps.s[ps.i] == '\'' || ps.s[ps.i] == '"') && len(name) <= 2 {
			return GymValue{}, fmt.Errorf("the string prefix %s at column %d is not accepted: write a plain '...' string", name, ps.col(at))
		}
		switch strings.ToLower(name) {
		case "true", "false", "none", "null":
			return GymValue{}, fmt.Errorf("unknown name %s at column %d: write True, False or None", name, ps.col(at))
		}
		return GymValue{}, fmt.Errorf("unknown name %s at column %d: arguments are literal values ('text', 12, 0.5, True, None, [...]), not names", name, ps.col(at))
	}
	return GymValue{}, fmt.Errorf("expected a value at column %d, got %s", ps.col(at), ps.rest())
}

// list reads [v, v, ...] (a trailing comma allowed).
func (ps *gymParser) list() (GymValue, error) {
	at := ps.i
	ps.i++ // [
	if ps.depth++; ps.depth > maxGymDepth {
		return GymValue{}, fmt.Errorf("lists nested more than %d deep at column %d", maxGymDepth, ps.col(at))
	}
	defer func() { ps.depth-- }()
	v := GymValue{Kind: GymList}
	for {
		ps.blank()
		if ps.eat(']') {
			return v, nil
		}
		if ps.i >= len(ps.s) {
			break
		}
		e, err := ps.value()
		if err != nil {
			return v, err
		}
		v.List = append(v.List, e)
		ps.blank()
		if ps.eat(',') {
			continue
		}
		if ps.eat(']') {
			return v, nil
		}
		if ps.i < len(ps.s) {
			return v, fmt.Errorf("expected , or ] in the list at column %d, got %s", ps.col(ps.i), ps.rest())
		}
	}
	return v, fmt.Errorf("missing ] for the list that starts at column %d", ps.col(at))
}

// number reads a decimal int or float (underscores between digits allowed,
// as Python does); neg negates it.
func (ps *gymParser) number(neg bool) (GymValue, error) {
	s, at := ps.s, ps.i
	j := at
	digits := func() {
		for j < len(s) && (isDigit(s[j]) || s[j] == '_') {
			j++
		}
	}
	digits()
	isInt := true
	if j < len(s) && s[j] == '.' {
		isInt = false
		j++
		digits()
	}
	if j < len(s) && (s[j] == 'e' || s[j] == 'E') {
		isInt = false
		j++
		if j < len(s) && (s[j] == '+' || s[j] == '-') {
			j++
		}
		digits()
	}
	end := j
	for j < len(s) && (isIdentChar(s[j]) || s[j] == '.') {
		j++
	}
	text := s[at:j]
	ps.i = j
	bad := fmt.Errorf("malformed number %s at column %d: write a decimal number such as 12, -3 or 0.5", strconv.Quote(text), ps.col(at))
	if j != end { // 0x10, 12px, 1j, 1.2.3
		return GymValue{}, bad
	}
	for k := 0; k < len(text); k++ {
		if text[k] == '_' && (k == 0 || k == len(text)-1 || !isDigit(text[k-1]) || !isDigit(text[k+1])) {
			return GymValue{}, bad
		}
	}
	clean := strings.ReplaceAll(text, "_", "")
	if isInt && len(clean) > 1 && clean[0] == '0' && strings.Trim(clean, "0") != "" {
		return GymValue{}, fmt.Errorf("the number %s at column %d has a leading zero, which Python refuses: write %s", text, ps.col(at), strings.TrimLeft(clean, "0"))
	}
	f, err := strconv.ParseFloat(clean, 64)
	if err != nil {
		if errors.Is(err, strconv.ErrRange) {
			return GymValue{}, fmt.Errorf("the number %s at column %d is too large", text, ps.col(at))
		}
		return GymValue{}, bad
	}
	if neg {
		f = -f
	}
	return GymValue{Kind: GymNumber, Num: f, Int: isInt}, nil
}

// str reads a single- or double-quoted Python string with its escapes.
func (ps *gymParser) str() (GymValue, error) {
	s, at := ps.s, ps.i
	q := s[at]
	if strings.HasPrefix(s[at:], strings.Repeat(string(q), 3)) {
		return GymValue{}, fmt.Errorf("a triple-quoted string at column %d is not accepted: write '...' with \\n for line breaks", ps.col(at))
	}
	unterminated := fmt.Errorf("unterminated string starting at column %d: close it with %c", ps.col(at), q)
	var b strings.Builder
	i := at + 1
	for {
		if i >= len(s) {
			return GymValue{}, unterminated
		}
		c := s[i]
		switch {
		case c == q:
			ps.i = i + 1
			return GymValue{Kind: GymString, Str: b.String()}, nil
		case c == 0:
			return GymValue{}, fmt.Errorf("a NUL character in the string at column %d: write \\x00 instead", ps.col(i))
		case c != '\\':
			r, n := utf8.DecodeRuneInString(s[i:])
			b.WriteRune(r)
			i += n
			continue
		}
		// A backslash escape.
		if i+1 >= len(s) {
			return GymValue{}, unterminated
		}
		e := s[i+1]
		simple := map[byte]rune{'\\': '\\', '\'': '\'', '"': '"', 'a': 7, 'b': 8, 'f': 12, 'n': '\n', 'r': '\r', 't': '\t', 'v': 11}
		if r, ok := simple[e]; ok {
			b.WriteRune(r)
			i += 2
			continue
		}
		switch e {
		case '0', '1', '2', '3', '4', '5', '6', '7':
			j, v := i+1, 0
			for j < len(s) && j < i+4 && s[j] >= '0' && s[j] <= '7' {
				v = v*8 + int(s[j]-'0')
				j++
			}
			b.WriteRune(rune(v))
			i = j
		case 'x', 'u', 'U':
			n := map[byte]int{'x': 2, 'u': 4, 'U': 8}[e]
			hex := s[i+2 : min(i+2+n, len(s))]
			v, err := strconv.ParseUint(hex, 16, 32)
			if len(hex) < n || err != nil || strings.ContainsAny(hex, "+-_") {
				return GymValue{}, fmt.Errorf("truncated \\%c escape at column %d: write \\%c followed by %d hex digits", e, ps.col(i), e, n)
			}
			if v > utf8.MaxRune || (v >= 0xd800 && v <= 0xdfff) {
				return GymValue{}, fmt.Errorf("the escape \\%c%s at column %d is not a Unicode character", e, hex, ps.col(i))
			}
			b.WriteRune(rune(v))
			i += 2 + n
		case 'N':
			return GymValue{}, fmt.Errorf("a \\N{...} escape at column %d is not accepted: write the character itself or \\uXXXX", ps.col(i))
		default:
			// Python keeps an unknown escape as it is: backslash and all.
			b.WriteByte('\\')
			i++
		}
	}
}
