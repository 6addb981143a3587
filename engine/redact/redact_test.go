package redact

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The default policy finds what it names and nothing a shop, a wiki or a
// form shows otherwise.
func TestDefaultFindsPersonalValuesOnly(t *testing.T) {
	p := Default()
	for _, c := range []struct{ in, want string }{
		{"Signed in as ada.lovelace@example.org.", "Signed in as [personal]."},
		{"Call +1 (415) 555-0132 or 020 7946 0958 today", "Call [personal] or [personal] today"},
		{"Phone: 415-555-0132", "Phone: [personal]"},
		{"Card 4111 1111 1111 1111, exp 12/29", "Card [personal], exp 12/29"},
		{"IBAN DE89 3704 0044 0532 0130 00 (Berlin)", "IBAN [personal] (Berlin)"},
		{"IBAN GB82WEST12345698765432", "IBAN [personal]"},
	} {
		if got := p.Text(c.in, nil); got != c.want {
			t.Errorf("%q → %q, want %q", c.in, got, c.want)
		}
	}
	for _, keep := range []string{
		"Total $1,299.00 on 2024-03-15 at 10:30", "Order #100234, SKU KT-2044-RED", "4111 1111 1111 1112 fails Luhn",
		"DE89 3704 0044 0532 0130 01 fails its check", "Version 1.2.3.4", "Page 12 of 345", "ISBN 978-3-16-148410-0",
		"the kettle holds 1.7 litres", "item-12345678901234",
	} {
		if got := p.Text(keep, nil); got != keep {
			t.Errorf("%q was changed to %q", keep, got)
		}
	}
	if got := p.Text("Welcome back, Ada Lovelace", []string{"Ada Lovelace"}); got != "Welcome back, [personal]" {
		t.Errorf("a known value: %q", got)
	}
}

func TestParsePolicies(t *testing.T) {
	if p, err := Parse("off"); p != nil || err != nil {
		t.Errorf("off: %v %v", p, err)
	}
	if p, err := Parse("default"); err != nil || p.Name != "default" || len(p.Patterns) != 4 {
		t.Errorf("default: %+v %v", p, err)
	}
	dir := t.TempDir()
	good := filepath.Join(dir, "staff.json")
	os.WriteFile(good, []byte(`{"patterns":["email"],"regexps":["EMP-[0-9]{5}"],"selectors":[".user-name"]}`), 0o600)
	p, err := Parse(good)
	if err != nil || p.Name != "staff" || p.Text("EMP-12345 is bob@x.io", nil) != "[personal] is [personal]" {
		t.Fatalf("a policy file: %+v %v", p, err)
	}
	for body, msg := range map[string]string{
		`{"patterns":["ssn"]}`:      `unknown pattern "ssn"`,
		`{"regexps":["(unclosed"]}`: `regexp "(unclosed"`,
		`{"regexps":["a*"]}`:        "matches the empty text",
		`{"selector":[".x"]}`:       "unknown field",
		`{"selectors":["  "]}`:      "an empty selector",
	} {
		f := filepath.Join(dir, "bad.json")
		os.WriteFile(f, []byte(body), 0o600)
		if _, err := Parse(f); err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("%s: %v, want %q", body, err, msg)
		}
	}
	if _, err := Parse(filepath.Join(dir, "missing.json")); err == nil || !strings.Contains(err.Error(), "neither off, default nor a readable file") {
		t.Errorf("a missing file: %v", err)
	}
}
