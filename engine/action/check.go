package action

import (
	"regexp"
	"strings"
	"unicode"
)

// Check is a task's automatic check, run at the end of an episode.
type Check struct {
	// Kind is "answer" (information tasks), "url" (navigation) or "js"
	// (interaction: an expression run in the page that yields true).
	Kind string `json:"kind"`
	// Answer is the expected answer; alternatives separated by "|".
	Answer string `json:"answer,omitempty"`
	// URL is a regular expression the final URL must match.
	URL string `json:"url,omitempty"`
	// JS is a JavaScript expression evaluated in the final page.
	JS string `json:"js,omitempty"`
}

// Check kinds.
const (
	CheckKindAnswer = "answer"
	CheckKindURL    = "url"
	CheckKindJS     = "js"
)

// Normalize folds case, accents-free punctuation and spacing so "$1,299.00 "
// and "1299" compare equal where reasonable: lower case, punctuation except
// '.' between digits removed, whitespace collapsed, trailing ".0+" dropped.
func Normalize(s string) string {
	s = strings.ToLower(strings.TrimSpace(s))
	var b strings.Builder
	rs := []rune(s)
	for i, r := range rs {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		case r == '.' && i > 0 && i+1 < len(rs) && unicode.IsDigit(rs[i-1]) && unicode.IsDigit(rs[i+1]):
			b.WriteRune(r)
		case unicode.IsSpace(r) || r == '-' || r == '/':
			b.WriteRune(' ')
		}
	}
	out := strings.Join(strings.Fields(b.String()), " ")
	out = trailingZeros.ReplaceAllString(out, "$1")
	return out
}

var trailingZeros = regexp.MustCompile(`(\d)\.0+\b`)

// MatchAnswer reports whether answer matches one of the expected
// alternatives after normalisation.
func (c Check) MatchAnswer(answer string) bool {
	got := Normalize(answer)
	if got == "" {
		return false
	}
	for _, alt := range strings.Split(c.Answer, "|") {
		if want := Normalize(alt); want != "" && got == want {
			return true
		}
	}
	return false
}

// MatchURL reports whether the final URL matches the check's pattern.
func (c Check) MatchURL(u string) (bool, error) {
	re, err := regexp.Compile(c.URL)
	if err != nil {
		return false, err
	}
	return re.MatchString(u), nil
}
