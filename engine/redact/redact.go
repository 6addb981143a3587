// Package redact is what a recording keeps out of its stored data: a
// redaction policy says which parts of a page are personal — form fields by
// type and autocomplete token, text matching patterns (e-mail addresses,
// phone numbers, card numbers that pass Luhn, IBANs that pass their check,
// regular expressions of the user's) and elements by CSS selector — and the
// engine blacks them out of the stored screenshot and replaces their text
// in everything else it stores (see engine/browser/redact.go). This package
// holds the policy and the text side (Text); it imports only the standard
// library.
package redact

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// Placeholder replaces a personal value in text: the same one everywhere,
// so a replayed page that sends it back still matches its recording.
const Placeholder = "[personal]"

// Policy says what is personal on a page.
type Policy struct {
	// Name is "default", or the policy file's name.
	Name string `json:"name"`
	// InputTypes are <input> types whose fields are blacked out (email,
	// tel, …).
	InputTypes []string `json:"input_types,omitempty"`
	// Autocomplete are autocomplete tokens whose fields are blacked out; a
	// token ending in "-" or "*" is a prefix ("cc-", "address-").
	Autocomplete []string `json:"autocomplete,omitempty"`
	// Patterns are the built-in text patterns: email, phone, card (passes
	// Luhn), iban (passes its mod-97 check).
	Patterns []string `json:"patterns,omitempty"`
	// Regexps are the user's own text patterns (Go and JavaScript syntax
	// alike: keep to the common part, no look-behind).
	Regexps []string `json:"regexps,omitempty"`
	// Selectors are CSS selectors of elements blacked out whole.
	Selectors []string `json:"selectors,omitempty"`

	res []*regexp.Regexp
}

// Pattern names.
const (
	PatternEmail = "email"
	PatternPhone = "phone"
	PatternCard  = "card"
	PatternIBAN  = "iban"
)

// Default is the policy in force when none is chosen: form fields whose
// type or autocomplete token asks for a person's contact, name, address,
// birthday, payment card or one-time code; e-mail addresses, phone numbers
// written as phone numbers, card numbers that pass Luhn and IBANs that pass
// their check, in any text; and elements marked data-private or data-pii.
// It is conservative: a price, a date, an order number or a product code
// matches none of it.
func Default() *Policy {
	p := &Policy{Name: "default",
		InputTypes: []string{"email", "tel"},
		Autocomplete: []string{"name", "honorific-prefix", "given-name", "additional-name", "family-name", "honorific-suffix", "nickname",
			"email", "username", "tel*", "street-address", "address-*", "postal-code", "country-name", "bday*", "cc-*",
			"one-time-code", "sex", "impp", "photo"},
		Patterns:  []string{PatternEmail, PatternPhone, PatternCard, PatternIBAN},
		Selectors: []string{"[data-private]", "[data-pii]"}}
	_ = p.compile()
	return p
}

// Parse reads a --redact value: "off" (no policy: nil), "default", or the
// path of a policy file (JSON with the fields of Policy).
func Parse(v string) (*Policy, error) {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "off", "none":
		return nil, nil
	case "", "default":
		return Default(), nil
	}
	b, err := os.ReadFile(v)
	if err != nil {
		return nil, fmt.Errorf("the redaction policy %q is neither off, default nor a readable file: %w", v, err)
	}
	var p Policy
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		return nil, fmt.Errorf("the redaction policy file %s is not a policy (JSON with input_types, autocomplete, patterns, regexps, selectors): %w", v, err)
	}
	if p.Name == "" {
		p.Name = strings.TrimSuffix(filepath.Base(v), filepath.Ext(v))
	}
	if err := p.compile(); err != nil {
		return nil, fmt.Errorf("the redaction policy file %s: %w", v, err)
	}
	return &p, nil
}

// FromJSON reads a policy as Info stores it (nil for "null" or "").
func FromJSON(b []byte) (*Policy, error) {
	if len(b) == 0 || string(b) == "null" {
		return nil, nil
	}
	var p Policy
	if err := json.Unmarshal(b, &p); err != nil {
		return nil, err
	}
	if err := p.compile(); err != nil {
		return nil, err
	}
	return &p, nil
}

// compile checks the policy and compiles its regular expressions.
func (p *Policy) compile() error {
	var errs []error
	for _, n := range p.Patterns {
		switch n {
		case PatternEmail, PatternPhone, PatternCard, PatternIBAN:
		default:
			errs = append(errs, fmt.Errorf("unknown pattern %q (use email, phone, card or iban)", n))
		}
	}
	p.res = nil
	for _, r := range p.Regexps {
		re, err := regexp.Compile(r)
		if err != nil {
			errs = append(errs, fmt.Errorf("regexp %q: %v", r, err))
			continue
		}
		if re.MatchString("") {
			errs = append(errs, fmt.Errorf("regexp %q matches the empty text", r))
			continue
		}
		p.res = append(p.res, re)
	}
	for _, s := range p.Selectors {
		if strings.TrimSpace(s) == "" {
			errs = append(errs, errors.New("an empty selector"))
		}
	}
	return errors.Join(errs...)
}

var (
	reEmail = regexp.MustCompile(`[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}`)
	// A phone number written as one: an optional +country code, then
	// groups split by spaces, dots, dashes or parentheses, 9 to 15 digits
	// in all (checked by isPhone).
	rePhone = regexp.MustCompile(`(?:\+\d{1,3}[\s.-]?)?(?:\(\d{1,4}\)[\s.-]?|\d{2,4}[\s.-])\d{2,4}(?:[\s.-]\d{2,4}){1,3}`)
	reCard  = regexp.MustCompile(`\d(?:[ -]?\d){12,18}`)
	reIBAN  = regexp.MustCompile(`[A-Z]{2}\d{2}(?: ?[A-Z0-9]){11,30}`)
)

// Match is one personal value found in a text.
type Match struct {
	Start, End int
	// Why is the pattern's name, or "regexp N".
	Why string
}

// Find lists the personal values in s, in order, without overlaps.
func (p *Policy) Find(s string) []Match {
	if p == nil || s == "" {
		return nil
	}
	var out []Match
	add := func(re *regexp.Regexp, why string, ok func(string) bool) {
		for _, m := range re.FindAllStringIndex(s, -1) {
			if ok != nil && !ok(s[m[0]:m[1]]) {
				continue
			}
			glued := m[0] > 0 && isWordByte(s[m[0]-1]) || m[1] < len(s) && isWordByte(s[m[1]])
			if glued && why != PatternEmail {
				continue // part of a longer word or number
			}
			out = append(out, Match{m[0], m[1], why})
		}
	}
	for _, n := range p.Patterns {
		switch n {
		case PatternEmail:
			add(reEmail, n, nil)
		case PatternPhone:
			add(rePhone, n, isPhone)
		case PatternCard:
			add(reCard, n, luhn)
		case PatternIBAN:
			add(reIBAN, n, ibanOK)
		}
	}
	for i, re := range p.res {
		for _, m := range re.FindAllStringIndex(s, -1) {
			out = append(out, Match{m[0], m[1], fmt.Sprintf("regexp %d", i+1)})
		}
	}
	return merge(out)
}

func isWordByte(b byte) bool {
	return b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b == '_'
}

// merge sorts matches and drops those inside an earlier one.
func merge(ms []Match) []Match {
	for i := 1; i < len(ms); i++ {
		for j := i; j > 0 && ms[j].Start < ms[j-1].Start; j-- {
			ms[j], ms[j-1] = ms[j-1], ms[j]
		}
	}
	var out []Match
	for _, m := range ms {
		if n := len(out); n > 0 && m.Start < out[n-1].End {
			if m.End > out[n-1].End {
				out[n-1].End = m.End
			}
			continue
		}
		out = append(out, m)
	}
	return out
}

// Text is s with every personal value the policy finds, and every one of
// known (values found on the page: a name in a selected element, a typed
// e-mail address), replaced by Placeholder.
func (p *Policy) Text(s string, known []string) string {
	if p == nil || s == "" {
		return s
	}
	for _, v := range known {
		if len(v) >= 3 && v != Placeholder {
			s = strings.ReplaceAll(s, v, Placeholder)
		}
	}
	ms := p.Find(s)
	if len(ms) == 0 {
		return s
	}
	var b strings.Builder
	at := 0
	for _, m := range ms {
		b.WriteString(s[at:m.Start])
		b.WriteString(Placeholder)
		at = m.End
	}
	b.WriteString(s[at:])
	return b.String()
}

func digits(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r >= '0' && r <= '9' {
			b.WriteRune(r)
		}
	}
	return b.String()
}

func isPhone(s string) bool {
	n := len(digits(s))
	return n >= 9 && n <= 15
}

// luhn reports whether s's 13 to 19 digits pass the Luhn check.
func luhn(s string) bool {
	d := digits(s)
	if len(d) < 13 || len(d) > 19 {
		return false
	}
	sum := 0
	for i := len(d) - 1; i >= 0; i-- {
		n := int(d[i] - '0')
		if (len(d)-1-i)%2 == 1 {
			n *= 2
			if n > 9 {
				n -= 9
			}
		}
		sum += n
	}
	return sum%10 == 0
}

// ibanOK reports whether s is an IBAN whose check digits are right.
func ibanOK(s string) bool {
	s = strings.ReplaceAll(s, " ", "")
	if len(s) < 15 || len(s) > 34 {
		return false
	}
	r := s[4:] + s[:4]
	rem := 0
	for _, c := range r {
		switch {
		case c >= '0' && c <= '9':
			rem = (rem*10 + int(c-'0')) % 97
		case c >= 'A' && c <= 'Z':
			v := int(c-'A') + 10
			rem = (rem*100 + v) % 97
		default:
			return false
		}
	}
	return rem == 1
}
