// Package pyrepr writes strings and numbers as Python's repr() does, for
// the places where Waymark speaks to Python programs in their own terms:
// BrowserGym action strings (read back by Python's ast.literal_eval), the
// accessibility tree text BrowserGym agents read, and the OpenEnv server's
// JSON rewards and messages. It imports only the standard library.
package pyrepr

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// String is Python's repr() of s: in single quotes, or in double quotes
// when s holds a single quote and no double quote, with the escapes of
// Quote. Invalid UTF-8 bytes are read as U+FFFD (what Python's decoding
// with errors="replace" gives), which is printable and written as it is.
func String(s string) string {
	q := byte('\'')
	if strings.IndexByte(s, '\'') >= 0 && strings.IndexByte(s, '"') < 0 {
		q = '"'
	}
	return Quote(s, q)
}

// Quote writes s as a Python string literal in the quote q (' or "), with
// the escapes of Python's repr(): the quote and the backslash escaped,
// \t \n \r, other control and unprintable characters (by Python's
// str.isprintable, which Go's unicode.IsPrint matches) as \xNN, \uNNNN or
// \UNNNNNNNN, and printable characters, non-ASCII ones included, as they
// are, so the literal never spans lines. Python reads the literal back as
// s.
func Quote(s string, q byte) string {
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte(q)
	for _, r := range s { // an invalid byte reads as utf8.RuneError, U+FFFD
		switch {
		case r == rune(q) || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == utf8.RuneError || unicode.IsPrint(r):
			b.WriteRune(r)
		case r < 0x100:
			fmt.Fprintf(&b, `\x%02x`, r)
		case r < 0x10000:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			fmt.Fprintf(&b, `\U%08x`, r)
		}
	}
	b.WriteByte(q)
	return b.String()
}

// Float is Python's repr() of a float: the shortest digits that read back
// as f, with a ".0" on whole numbers (1.0, 1000000.0), the exponent form
// only below 1e-4 and from 1e16 on (1e-05, 1e+16), and inf, -inf, nan.
func Float(f float64) string {
	switch {
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	case math.IsNaN(f):
		return "nan"
	}
	if f != 0 {
		// The decimal exponent of the shortest digits ("1e+16", "1.5e-05":
		// Go writes the exponent as Python does, with at least two digits).
		es := strconv.FormatFloat(f, 'e', -1, 64)
		exp, _ := strconv.Atoi(es[strings.IndexByte(es, 'e')+1:])
		if exp < -4 || exp >= 16 {
			return es
		}
	}
	s := strconv.FormatFloat(f, 'f', -1, 64)
	if !strings.Contains(s, ".") {
		s += ".0"
	}
	return s
}
