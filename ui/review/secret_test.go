package review

import (
	"testing"

	"waymark/engine/action"
)

// A type action whose text was redacted (a password or payment field) reads
// "type [redacted]", not as a quoted text someone typed.
func TestActionTextRedacted(t *testing.T) {
	red := action.TypeText("secret").Redact()
	plain := action.TypeText("red shoes")
	for _, c := range []struct {
		a    *action.Action
		want string
	}{{&red, "type [redacted]"}, {&plain, `type "red shoes"`}, {nil, "start"}} {
		if got := actionText(c.a); got != c.want {
			t.Errorf("actionText(%v) = %q, want %q", c.a, got, c.want)
		}
	}
}
