package action

import (
	"strings"
	"testing"
)

// A multiaction string is Python: its calls may stand on lines of their
// own, each with a # comment, as BrowserGym's agents write them. With
// multiaction off a second call on another line is a multi-action, not
// text to ignore after a comment.
func TestGymMultiactionLines(t *testing.T) {
	src := "keyboard_down('Control')  # hold\r\nkeyboard_press('a')\n\n\tkeyboard_up('Control') # release\n"
	calls, err := ParseBrowserGymMulti(src)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range calls {
		got = append(got, c.Source)
	}
	if want := "keyboard_down('Control')|keyboard_press('a')|keyboard_up('Control')"; strings.Join(got, "|") != want {
		t.Errorf("calls %q, want %s", got, want)
	}
	for _, single := range []string{"click('a1')\nclick('a2')", "click('a1') # one\nclick('a2')"} {
		_, err := ParseBrowserGym(single)
		if g := GymLastActionError(err); !strings.HasPrefix(g, "ValueError: Received a multi-action, only single-actions are allowed.") {
			t.Errorf("%q with multiaction off: %q", single, g)
		}
	}
	if c, err := ParseBrowserGym("click('a1')  # the button\n"); err != nil || c.Name != "click" {
		t.Errorf("one call and a comment: %+v %v", c, err)
	}
}
