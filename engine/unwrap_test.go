package engine

import (
	"context"
	"testing"

	"waymark/engine/har"
)

type plainEngine struct{}

func (plainEngine) Reset(context.Context, ResetOptions) (Observation, error) {
	return Observation{}, nil
}
func (plainEngine) Step(context.Context, Action) (Observation, error) { return Observation{}, nil }
func (plainEngine) State() State                                      { return State{} }
func (plainEngine) Info() Info                                        { return Info{} }
func (plainEngine) Close() error                                      { return nil }

type capturing struct{ plainEngine }

func (capturing) TakeHAR(bool) har.Capture { return har.Capture{Entries: []har.Entry{{Step: 7}}} }

type transparent struct{ Engine }

func (t transparent) Unwrap() Engine { return t.Engine }

type opaque struct{ Engine }

func TestAsFindsCapabilitiesThroughTransparentWrappers(t *testing.T) {
	inner := capturing{}
	for name, c := range map[string]struct {
		e    Engine
		want bool
	}{
		"the engine itself":    {inner, true},
		"one wrapper":          {transparent{inner}, true},
		"two wrappers":         {transparent{transparent{inner}}, true},
		"an opaque wrapper":    {opaque{inner}, false},
		"opaque under one":     {transparent{opaque{inner}}, false},
		"an engine without it": {transparent{plainEngine{}}, false},
		"nil":                  {nil, false},
		"a wrapper around nil": {transparent{nil}, false},
	} {
		nc, ok := As[NetworkCapture](c.e)
		if ok != c.want {
			t.Errorf("%s: found %v, want %v", name, ok, c.want)
			continue
		}
		if ok && nc.TakeHAR(false).Entries[0].Step != 7 {
			t.Errorf("%s: As returned another engine's capture", name)
		}
	}
}
