package engine

import "testing"

func TestParseGrounding(t *testing.T) {
	for in, want := range map[string]Grounding{"": "", "off": "", "on": "on", "dom": "dom", "on+dom": "dom"} {
		g, err := ParseGrounding(in)
		if err != nil || g != want {
			t.Errorf("ParseGrounding(%q) = %q, %v; want %q", in, g, err, want)
		}
	}
	if _, err := ParseGrounding("yes"); err == nil || err.Error() != `unknown grounding "yes": use off, on or dom (on with the DOM snapshot)` {
		t.Errorf("bad value: %v", err)
	}
	if GroundingOff.On() || !GroundingOn.On() || !GroundingDOM.On() {
		t.Error("On")
	}
	s := DefaultSettings()
	if s.Grounding != "" {
		t.Errorf("grounding is on by default: %q", s.Grounding)
	}
	s.Grounding = "all"
	if err := s.Validate(); err == nil {
		t.Error("Validate took an unknown grounding")
	}
}
