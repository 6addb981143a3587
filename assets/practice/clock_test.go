package practice

import (
	"context"
	"os"
	"strconv"
	"strings"
	"testing"

	"waymark/engine"
	"waymark/engine/action"
	localengine "waymark/engine/browser"
)

// Information tasks whose answer depends on the page's clock: the page, the
// text it shows with the task's reference time and time zone, and the
// answer. TestClockTask solves them through the local engine.
var clockSolutions = map[string]struct{ path, text, answer string }{
	"forms-today-date": {"/book", "15 June 2026", "2026-06-15"},
}

// TestClockTask solves the date task in the local engine, reset with the
// task's reference time and time zone (as the recorder and the OpenEnv
// server reset it), and shows that without them the page gives another date
// and the answer fails.
func TestClockTask(t *testing.T) {
	if _, err := os.Stat("/usr/bin/chromium"); err != nil {
		t.Skip("no Chromium at /usr/bin/chromium: install it with `make deps`")
	}
	s, err := Start()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	set := engine.DefaultSettings()
	set.Display = engine.DisplayHeadless
	e, err := localengine.New(localengine.Options{Settings: set, HostRules: s.HostRules()})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	ctx := context.Background()
	// episode opens the task's page with opts, checks it with check, and
	// finishes with answer; it returns the reward.
	episode := func(start string, opts engine.ResetOptions, check action.Check, answer string) float64 {
		t.Helper()
		opts.StartURL, opts.Check = start, &check
		if _, err := e.Reset(ctx, opts); err != nil {
			t.Fatal(err)
		}
		obs, err := e.Step(ctx, action.FinishWith(answer))
		if err != nil || obs.Reward == nil {
			t.Fatalf("finish: %+v %v", obs, err)
		}
		return *obs.Reward
	}
	n := 0
	for _, tk := range Tasks() {
		sol, ok := clockSolutions[tk.Key]
		if !ok {
			continue
		}
		n++
		if tk.ReferenceTime == nil || tk.Category != Information || tk.Check.Kind != action.CheckKindAnswer {
			t.Fatalf("%s: an information task with a reference time and an answer check, please", tk.Key)
		}
		withClock := engine.ResetOptions{ReferenceTime: tk.ReferenceTime, Timezone: tk.Timezone, Locale: tk.Locale}
		page := strings.TrimSuffix(tk.StartURL, "/") + sol.path
		shows := action.Check{Kind: action.CheckKindJS, JS: "document.body.innerText.includes(" + strconv.Quote(sol.text) + ")"}
		if r := episode(page, withClock, shows, ""); r != 1 {
			t.Errorf("%s: with the task's clock %s does not show %q", tk.Key, sol.path, sol.text)
		}
		// The person's episode: from the start page, answer what the page said.
		if r := episode(tk.StartURL, withClock, tk.Check, sol.answer); r != 1 {
			t.Errorf("%s: the answer %q got reward %v", tk.Key, sol.answer, r)
		}
		// Without the clock the page shows today's real date, and with the
		// clock but the browser's time zone the day before (the reference
		// instant is 23:30 UTC).
		if r := episode(page, engine.ResetOptions{}, shows, ""); r != 0 {
			t.Errorf("%s: the page shows %q without the task's clock", tk.Key, sol.text)
		}
		noZone := withClock
		noZone.Timezone = "UTC"
		if r := episode(page, noZone, shows, ""); r != 0 {
			t.Errorf("%s: the page shows %q in UTC", tk.Key, sol.text)
		}
	}
	if n != len(clockSolutions) {
		t.Errorf("%d of %d clock tasks found in the pack", n, len(clockSolutions))
	}
}
