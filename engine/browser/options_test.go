package browser

import (
	"strings"
	"testing"

	"waymark/engine"
)

func TestDisplayChoiceAndMissingPrograms(t *testing.T) {
	e, err := New(Options{XvfbPath: "/nonexistent/Xvfb"})
	if err != nil {
		t.Fatal(err)
	}
	if e.Info().Display != engine.DisplayHeadless || e.Info().Kind != "local" || e.Info().MaxSteps != 20 {
		t.Errorf("without Xvfb: %+v", e.Info())
	}
	e.Close()
	if _, err := New(Options{XvfbPath: "/nonexistent/Xvfb", Display: engine.DisplayXvfb}); err == nil || !strings.Contains(err.Error(), "Xvfb was not found") {
		t.Errorf("xvfb asked but missing: %v", err)
	}
	if _, err := New(Options{ChromiumPath: "/nonexistent/chromium"}); err == nil || !strings.Contains(err.Error(), "was not found") {
		t.Errorf("missing browser: %v", err)
	}
	bad := engine.DefaultSettings()
	bad.MaxSteps = 500
	if _, err := New(Options{Settings: bad}); err == nil || !strings.Contains(err.Error(), "max steps") {
		t.Errorf("bad settings: %v", err)
	}
	e, err = New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if e.Info().Display != engine.DisplayXvfb || !strings.HasPrefix(e.Info().Browser, "Chromium ") {
		t.Errorf("auto with Xvfb installed: %+v", e.Info())
	}
	if s := e.Settings(); s.ActionWait != engine.DefaultActionWait || s.ExplicitWait != engine.DefaultExplicitWait {
		t.Errorf("zero settings did not get the defaults: %+v", s)
	}
}
