package engine

import (
	"strings"
	"testing"
	"time"

	"waymark/engine/action"
)

func TestSettingsFromEnv(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

	s, err := settingsFrom(env(nil))
	if err != nil || s.MaxSteps != 20 || s.ActionWait != 1500*time.Millisecond || s.ExplicitWait != 3*time.Second ||
		s.ActionSet != action.SetDefault || s.Display != DisplayAuto {
		t.Fatalf("defaults: %+v %v", s, err)
	}
	s, err = settingsFrom(env(map[string]string{EnvMaxSteps: "200", EnvActionWait: "0", EnvExplicitWait: "10", EnvDisplay: "Headless"}))
	if err != nil || s.MaxSteps != 200 || s.ActionWait != 0 || s.ExplicitWait != 10*time.Second || s.Display != DisplayHeadless {
		t.Fatalf("edges: %+v %v", s, err)
	}
	s, err = settingsFrom(env(map[string]string{EnvHARBodyCap: "8M", EnvHAREpisodeCap: " 1073741824 "}))
	if err != nil || s.HARBodyCap != 8<<20 || s.HAREpisodeCap != 1<<30 {
		t.Fatalf("the capture's caps: %+v %v", s, err)
	}
	s, err = settingsFrom(env(map[string]string{EnvMaxSteps: " 1 ", EnvActionWait: "0.25"}))
	if err != nil || s.MaxSteps != 1 || s.ActionWait != 250*time.Millisecond {
		t.Fatalf("%+v %v", s, err)
	}
	bad := []struct{ k, v, msg string }{
		{EnvMaxSteps, "0", "BROWSER_MAX_STEPS must be an integer from 1 to 200, got \"0\""},
		{EnvMaxSteps, "201", "BROWSER_MAX_STEPS must be an integer from 1 to 200"},
		{EnvMaxSteps, "2.5", "BROWSER_MAX_STEPS must be an integer from 1 to 200"},
		{EnvMaxSteps, "many", "BROWSER_MAX_STEPS must be an integer"},
		{EnvActionWait, "-0.1", "BROWSER_ACTION_WAIT_SECONDS must be a number of seconds from 0 to 10, got \"-0.1\""},
		{EnvActionWait, "10.5", "BROWSER_ACTION_WAIT_SECONDS must be a number of seconds from 0 to 10"},
		{EnvActionWait, "NaN", "BROWSER_ACTION_WAIT_SECONDS must be a number"},
		{EnvExplicitWait, "soon", "BROWSER_EXPLICIT_WAIT_SECONDS must be a number of seconds from 0 to 10"},
		{EnvDisplay, "wayland", "WAYMARK_DISPLAY: unknown display \"wayland\""},
		{EnvHARBodyCap, "0", "WAYMARK_HAR_BODY_CAP must be a size in bytes from 1 to 1T"},
		{EnvHAREpisodeCap, "lots", "WAYMARK_HAR_EPISODE_CAP must be a size in bytes"},
	}
	for _, b := range bad {
		_, err := settingsFrom(env(map[string]string{b.k: b.v}))
		if err == nil || !strings.Contains(err.Error(), b.msg) {
			t.Errorf("%s=%q: %v", b.k, b.v, err)
		}
	}
	// Every bad variable is reported at once.
	_, err = settingsFrom(env(map[string]string{EnvMaxSteps: "0", EnvExplicitWait: "11"}))
	if err == nil || !strings.Contains(err.Error(), EnvMaxSteps) || !strings.Contains(err.Error(), EnvExplicitWait) {
		t.Errorf("joined: %v", err)
	}
	t.Setenv(EnvMaxSteps, "7")
	if s, err := SettingsFromEnv(); err != nil || s.MaxSteps != 7 {
		t.Errorf("SettingsFromEnv: %+v %v", s, err)
	}
}

func TestSettingsValidate(t *testing.T) {
	s := DefaultSettings()
	s.ActionSet, s.OpTimeout, s.PageLoadTimeout = "", 0, 0
	if err := s.Validate(); err != nil || s.ActionSet != action.SetDefault || s.OpTimeout != DefaultOpTimeout || s.PageLoadTimeout != DefaultPageLoadTimeout {
		t.Fatalf("%+v %v", s, err)
	}
	for _, mod := range []func(*Settings){
		func(s *Settings) { s.MaxSteps = 0 },
		func(s *Settings) { s.MaxSteps = 201 },
		func(s *Settings) { s.ActionWait = -time.Second },
		func(s *Settings) { s.ExplicitWait = 11 * time.Second },
		func(s *Settings) { s.Display = "x11" },
		func(s *Settings) { s.ActionSet = "big" },
	} {
		s := DefaultSettings()
		mod(&s)
		if err := s.Validate(); err == nil {
			t.Errorf("accepted %+v", s)
		}
	}
}
