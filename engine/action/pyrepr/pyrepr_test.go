package pyrepr

import (
	"testing"
)

// String, Quote and Float write what Python writes: the expected values in
// cases_test.go are Python's own output (testdata/gen_expected.py).
func TestStringMatchesPython(t *testing.T) {
	for _, c := range stringCases {
		if got := String(c.in); got != c.repr {
			t.Errorf("String(%q) = %s, Python's repr: %s", c.in, got, c.repr)
		}
		if got := Quote(c.in, '\''); got != c.single {
			t.Errorf("Quote(%q, ') = %s, want %s", c.in, got, c.single)
		}
		if got := Quote(c.in, '"'); got != c.double {
			t.Errorf(`Quote(%q, ") = %s, want %s`, c.in, got, c.double)
		}
	}
}

func TestFloatMatchesPython(t *testing.T) {
	for _, c := range floatCases {
		if got := Float(c.in); got != c.repr {
			t.Errorf("Float(%v) = %s, Python's repr: %s", c.in, got, c.repr)
		}
	}
}

// Invalid UTF-8 reads as U+FFFD, printed as it is (Python's repr of the
// text decoded with errors="replace").
func TestInvalidUTF8(t *testing.T) {
	if got := String("a\xffb"); got != "'a\ufffdb'" {
		t.Errorf("String(invalid) = %s", got)
	}
}
