package replay_test

import (
	"context"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"text/tabwriter"
	"time"

	"waymark/assets/practice"
	"waymark/dataset"
	"waymark/dataset/replay"
	"waymark/engine"
	"waymark/engine/action"
	"waymark/engine/browser"
)

// The reproducibility figure: every practice task's scripted solution is
// recorded through the Recorder over a real Chromium into a real store, then
// replayed with replay.Load and replay.Run; the share of steps (and of URLs)
// that match is the figure. TestReproducibleHandful replays a few on every
// `make test`; BenchmarkReproducibility records all of them and replays each
// three times in both display modes.

func clk(x, y int) action.Action   { return action.ClickAt(x, y) }
func txt(s string) action.Action   { return action.TypeText(s) }
func kbd(k string) action.Action   { return action.PressKey(k) }
func whl(dy int) action.Action     { return action.ScrollBy(dy) }
func fin(ans string) action.Action { return action.FinishWith(ans) }

// wt waits: after a saved form the practice site shows a toast that hides
// itself 3 s later, so a screenshot taken soon after the save shows it or not
// depending on how busy the machine was while recording and while
// replaying. A wait of toastGone after the save makes both take it when the
// toast has certainly gone (only a lower bound on the time matters, and load
// only makes steps slower).
func wt() action.Action { return action.Action{Op: action.Wait} }

// toastGone is the engine's wait in the reproducibility runs: past the
// practice site's 3 s toast with a second to spare for a starved renderer.
const toastGone = 4 * time.Second

// practiceSolutions are the solutions of assets/practice/browser_test.go
// (navSolutions, interactionSolutions; for the information tasks a path to
// the page of infoSolutions and the answer) as a person gives them to the
// engine: clicks at the element's centre in the 800×600 viewport, typing
// into the focused field, a select's option picked in the engine's in-page
// list, a date typed into the field's first segment, a wheel scroll to what
// is below the fold (after a click on blank page when the pointer rests on
// a field, where a wheel would change a number instead of scrolling). The
// coordinates were measured in Chromium at 800×600 with the engine's page
// script; every recording checks that its episode gets reward 1, so a
// moved button fails the test rather than the figure.
var practiceSolutions = map[string][]action.Action{
	// information
	"wiki-varnholm-population": {clk(240, 471), fin("412,300")},
	"wiki-marrow-prize-year":   {clk(613, 21), txt("Elsa Marrow"), kbd("ENTER"), clk(207, 197), fin("1974")},
	"wiki-sella-length":        {clk(240, 471), clk(654, 538), fin("612 km")},
	"wiki-third-largest-city":  {clk(613, 21), txt("Kaldoria"), clk(739, 21), clk(191, 197), whl(700), fin("Lisk")},
	"wiki-krona-code":          {clk(613, 21), txt("krona"), kbd("ENTER"), clk(221, 197), fin("KDK")},
	"wiki-observatory-founder": {clk(613, 21), txt("observatory"), clk(739, 21), clk(248, 197), fin("Tobias Quell")},
	"wiki-ardent-elevation":    {clk(613, 21), txt("Mount Ardent"), kbd("ENTER"), clk(213, 197), fin("3,412 m")},
	"wiki-orvin-mouth":         {clk(613, 21), txt("Orvin"), kbd("ENTER"), clk(203, 197), fin("Lake Mirren")},
	"shop-summit-price":        {whl(600), clk(107, 328), fin("$189.00")},
	"shop-ridgeline-weight":    {whl(300), clk(487, 343), whl(300), fin("1.2 kg")},
	"shop-cheapest-tent-brand": {clk(389, 26), txt("tent"), kbd("ENTER"), clk(103, 368), clk(103, 417), clk(103, 407), clk(296, 290), fin("Northpeak")},
	"shop-stormshell-reviews":  {clk(156, 67), clk(293, 296), whl(600), fin("128")},
	"forms-pottery-price":      {clk(85, 301), fin("$60")},
	"forms-refund-days":        {clk(723, 25), clk(324, 214), fin("7")},
	"forms-today-date":         {clk(85, 301), fin("2026-06-15")},
	// navigation
	"shop-cheapest-waterproof-boots":   {clk(67, 67), clk(40, 314), clk(103, 368), clk(103, 417), clk(103, 407), clk(293, 296), fin("")},
	"shop-search-red-shoes":            {clk(389, 26), txt("red shoes"), clk(648, 26), fin("")},
	"shop-jackets-100-200":             {clk(156, 67), clk(65, 223), txt("100"), clk(141, 223), txt("200"), clk(103, 407), fin("")},
	"shop-backpacks-price-asc":         {clk(233, 67), clk(103, 368), clk(103, 417), clk(103, 407), fin("")},
	"shop-highest-rated-jacket":        {clk(156, 67), clk(103, 368), clk(103, 463), clk(103, 407), clk(293, 296), fin("")},
	"shop-cheapest-camping":            {clk(314, 67), clk(103, 368), clk(103, 417), clk(103, 407), clk(293, 288), fin("")},
	"wiki-river-through-varnholm":      {clk(240, 471), clk(654, 538), fin("")},
	"wiki-observatory-founder-article": {clk(613, 21), txt("observatory"), clk(739, 21), clk(248, 197), clk(674, 388), fin("")},
	"wiki-search-railway":              {clk(613, 21), txt("railway"), clk(739, 21), fin("")},
	"wiki-rivers-category":             {clk(499, 472), fin("")},
	"wiki-marrow-birthplace":           {clk(613, 21), txt("Elsa Marrow"), clk(739, 21), clk(207, 197), clk(725, 335), fin("")},
	"forms-security-page":              {clk(85, 175), fin("")},
	"forms-help-reset-password":        {clk(723, 25), clk(314, 148), fin("")},
	// interaction
	"shop-cart-trail-runner-42": {whl(300), clk(107, 343), clk(542, 364), clk(451, 422), clk(396, 465), fin("")},
	"shop-cart-ridgeline":       {clk(725, 26), clk(78, 26), whl(300), clk(487, 343), clk(396, 406), fin("")},
	"shop-cart-boot-and-jacket": {whl(600), clk(107, 328), clk(396, 465), clk(586, 364), clk(396, 465), clk(156, 67), clk(293, 296), clk(454, 364), clk(396, 465), fin("")},
	"shop-cart-three-socks": {clk(389, 26), txt("socks"), clk(648, 26), clk(296, 290), clk(454, 343), clk(451, 402), clk(451, 402), clk(361, 402), clk(396, 445),
		clk(725, 26), clk(466, 197), kbd("CTRL+A"), txt("3"), kbd("TAB"), fin("")},
	"shop-order-thermos-express": {whl(600), clk(297, 328), clk(396, 386), clk(725, 26), clk(681, 262),
		clk(269, 210), txt("Jane Doe"), clk(269, 268), txt("jane@example.com"), clk(269, 326), txt("5 Fjord Street"), clk(148, 392), txt("Varnholm"), clk(390, 392), txt("10115"),
		clk(20, 120), whl(400), clk(269, 185), clk(269, 263), clk(269, 305), txt("4242 4242 4242 4241"), clk(148, 371), txt("12/30"), clk(390, 371), txt("123"),
		clk(84, 490), clk(269, 305), kbd("CTRL+A"), txt("4242 4242 4242 4242"), clk(20, 120), whl(300), clk(84, 490), fin("")},
	"forms-2fa-timeout":       {clk(85, 175), clk(742, 151), clk(639, 262), clk(639, 316), clk(729, 378), wt(), fin("")},
	"forms-name-language":     {clk(85, 143), clk(639, 151), kbd("CTRL+A"), txt("Sam Rivera"), clk(639, 319), clk(639, 373), clk(729, 524), wt(), fin("")},
	"forms-newsletter-weekly": {clk(85, 207), clk(742, 151), clk(639, 317), clk(639, 371), clk(729, 437), wt(), fin("")},
	"forms-birthday":          {clk(85, 143), clk(526, 262), txt("03141990"), clk(729, 524), wt(), fin("")},
	"forms-dark-monday":       {clk(85, 239), clk(635, 144), clk(639, 251), clk(639, 305), clk(729, 369), wt(), fin("")},
	"forms-quiet-hours":       {clk(85, 207), clk(536, 375), txt("1000P"), clk(729, 437), clk(666, 375), txt("0700A"), clk(729, 479), wt(), fin("")},
	"forms-book-bread": {clk(85, 301), clk(360, 212), clk(218, 516), txt("12112026"), clk(381, 515), kbd("CTRL+A"), txt("3"), clk(20, 120), whl(400), clk(715, 525),
		clk(218, 443), txt("12122026"), clk(160, 120), whl(400), clk(715, 525), clk(376, 230), txt("Alex Kim"), clk(376, 287), txt("alex.kim@example.com"), clk(730, 451),
		clk(555, 531), clk(730, 451), clk(216, 489), clk(675, 531), fin("")},
}

// practiceStore opens a new store at path with the practice pack's tasks,
// stored as the app stores them, with keep_secrets on: the pack's card
// numbers are test data, and a secret that is not stored cannot be typed
// again (the checkout task's replay would stop at the card number).
func practiceStore(tb testing.TB, path string) (*dataset.Store, map[string]dataset.Task) {
	tb.Helper()
	st, err := dataset.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { st.Close() })
	tasks := map[string]dataset.Task{}
	for _, p := range practice.Tasks() {
		c := p.Check
		t, err := st.EnsureTask(tb.Context(), dataset.Task{Goal: p.Goal, Category: p.Category, StartURL: p.StartURL, Source: practice.Source, SourceID: p.Key,
			Check: &c, ReferenceTime: p.ReferenceTime, Timezone: p.Timezone, Locale: p.Locale, KeepSecrets: true})
		if err != nil {
			tb.Fatal(err)
		}
		tasks[p.Key] = t
	}
	return st, tasks
}

// practiceEngine starts an engine in a display mode pointed at sites.
func practiceEngine(tb testing.TB, display string, set engine.Settings, sites *practice.Server) *browser.Engine {
	tb.Helper()
	set.Display = display
	eng, err := browser.New(browser.Options{Settings: set, HostRules: sites.HostRules()})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { eng.Close() })
	return eng
}

// recordSolution records a task's solution and checks that it solved the
// task (reward 1); it returns the episode id.
func recordSolution(tb testing.TB, st *dataset.Store, eng engine.Engine, task dataset.Task, sol []action.Action) string {
	tb.Helper()
	// Not closed: Close would close eng, which records the next task.
	rec := dataset.NewRecorder(st, eng, dataset.RecorderOptions{TaskID: task.ID, Annotator: "script"})
	ctx := context.Background()
	if _, err := rec.Reset(ctx, engine.ResetOptions{}); err != nil {
		tb.Fatalf("%s: reset: %v", task.SourceID, err)
	}
	for i, a := range sol {
		obs, err := rec.Step(ctx, a)
		if err != nil {
			tb.Fatalf("%s: step %d (%s): %v", task.SourceID, i+1, a, err)
		}
		if obs.Done != (i == len(sol)-1) {
			tb.Fatalf("%s: step %d (%s): done %v (%s) with %d actions", task.SourceID, i+1, a, obs.Done, obs.EndReason, len(sol))
		}
	}
	ep, err := st.GetEpisode(ctx, rec.EpisodeID())
	if err != nil {
		tb.Fatal(err)
	}
	if ep.AutoReward == nil || *ep.AutoReward != 1 {
		tb.Fatalf("%s: the scripted solution did not solve the task: reward %v, final URL %s (were the page's buttons moved? measure the coordinates again)",
			task.SourceID, ep.AutoReward, ep.FinalURL)
	}
	return ep.ID
}

// tap passes everything to the engine and keeps what each observation
// showed and how long it took, so a diverged step's replayed screenshot can
// be saved beside the stored one.
type tap struct {
	engine.Engine
	shots [][]byte
	reset time.Duration
	steps []time.Duration
}

func (t *tap) Reset(ctx context.Context, o engine.ResetOptions) (engine.Observation, error) {
	t0 := time.Now()
	obs, err := t.Engine.Reset(ctx, o)
	t.reset, t.shots, t.steps = time.Since(t0), [][]byte{obs.Screenshot}, nil
	return obs, err
}

func (t *tap) Step(ctx context.Context, a engine.Action) (engine.Observation, error) {
	t0 := time.Now()
	obs, err := t.Engine.Step(ctx, a)
	t.steps = append(t.steps, time.Since(t0))
	t.shots = append(t.shots, obs.Screenshot)
	return obs, err
}

// tally counts the steps of replays.
type tally struct {
	steps, matched, urls, urlsMatched int
	replays, ok                       int
	resets, stepTime                  time.Duration
	stepCount                         int
	diverged                          []string // "task run N step K: why"
	// maxDiff is the most differing pixels among matched steps, and
	// diffs counts matched steps by differing pixels: 0, 1–16, 17–48,
	// 49 and more: how far below the match limit the noise stays.
	maxDiff int
	diffs   [4]int
}

func (t *tally) add(o tally) {
	t.steps += o.steps
	t.matched += o.matched
	t.urls += o.urls
	t.urlsMatched += o.urlsMatched
	t.replays += o.replays
	t.ok += o.ok
	t.resets += o.resets
	t.stepTime += o.stepTime
	t.stepCount += o.stepCount
	t.diverged = append(t.diverged, o.diverged...)
	t.maxDiff = max(t.maxDiff, o.maxDiff)
	for i := range t.diffs {
		t.diffs[i] += o.diffs[i]
	}
}

func pct(n, d int) float64 {
	if d == 0 {
		return 0
	}
	return 100 * float64(n) / float64(d)
}

// replayOnce replays an episode in eng (Continue, so every step is
// compared) and counts it; a diverged step's screenshots (stored, replayed
// and their difference) go to shots/ when shots is not "".
func replayOnce(tb testing.TB, st *dataset.Store, eng engine.Engine, id, label, shots string) (tally, *replay.Report) {
	tb.Helper()
	ctx := context.Background()
	rec, err := replay.Load(ctx, st, id)
	if err != nil {
		tb.Fatal(err)
	}
	tp := &tap{Engine: eng}
	rep, err := replay.Run(ctx, tp, rec, replay.Options{Continue: true, PracticeHosts: practice.Hosts})
	if err != nil {
		tb.Fatalf("%s: %v", label, err)
	}
	var c tally
	c.replays, c.resets, c.stepCount = 1, tp.reset, len(tp.steps)
	for _, d := range tp.steps {
		c.stepTime += d
	}
	if rep.OK {
		c.ok = 1
	}
	if len(rep.Warnings) > 0 {
		c.diverged = append(c.diverged, fmt.Sprintf("%s: warnings %q", label, rep.Warnings))
	}
	if rep.Stopped != "" {
		c.diverged = append(c.diverged, fmt.Sprintf("%s: stopped: %s", label, rep.Stopped))
	}
	for _, r := range rep.Steps {
		if r.Verdict != dataset.VerdictSecret {
			c.steps++
		}
		if r.Verdict == dataset.VerdictMatch {
			c.matched++
			if r.DiffPixels != nil {
				d := *r.DiffPixels
				c.maxDiff = max(c.maxDiff, d)
				switch {
				case d == 0:
					c.diffs[0]++
				case d <= 16:
					c.diffs[1]++
				case d <= 48:
					c.diffs[2]++
				default:
					c.diffs[3]++
				}
			}
		}
		if r.Replayed != nil {
			c.urls++
			if r.Replayed.URL == r.Stored.URL {
				c.urlsMatched++
			}
		}
		if r.Verdict == dataset.VerdictMatch {
			continue
		}
		c.diverged = append(c.diverged, fmt.Sprintf("%s step %d (%s): %s: %s", label, r.Step, r.Action, r.Verdict, r.Why))
		if shots != "" && r.Step < len(tp.shots) && r.Step < len(rec.Steps) {
			saveDivergence(tb, shots, fmt.Sprintf("%s-step%02d", label, r.Step), rec.Steps[r.Step].Screenshot, tp.shots[r.Step])
		}
	}
	// A replay that stopped early left stored steps uncompared: they count
	// as not matched.
	if missing := len(rec.Steps) - len(rep.Steps); missing > 0 {
		c.steps += missing
	}
	return c, rep
}

// saveDivergence writes name-stored.png, name-replayed.png and
// name-diff.png (the pixels differing by more than the measure's channel
// tolerance in red over a faded stored image).
func saveDivergence(tb testing.TB, dir, name string, stored, replayed []byte) {
	tb.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		tb.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, name+"-stored.png"), stored, 0o644)
	os.WriteFile(filepath.Join(dir, name+"-replayed.png"), replayed, 0o644)
	a, err1 := decodePNG(stored)
	b, err2 := decodePNG(replayed)
	if err1 != nil || err2 != nil || a.Bounds() != b.Bounds() {
		return
	}
	out := image.NewRGBA(a.Bounds())
	for y := a.Bounds().Min.Y; y < a.Bounds().Max.Y; y++ {
		for x := a.Bounds().Min.X; x < a.Bounds().Max.X; x++ {
			r1, g1, b1, _ := a.At(x, y).RGBA()
			r2, g2, b2, _ := b.At(x, y).RGBA()
			d := max(absDiff(r1, r2), absDiff(g1, g2), absDiff(b1, b2)) >> 8
			if d > replay.ChannelTolerance {
				out.Set(x, y, color.RGBA{255, 0, 0, 255})
			} else {
				l := uint8((r1>>8 + g1>>8 + b1>>8) / 3)
				out.Set(x, y, color.RGBA{l/2 + 127, l/2 + 127, l/2 + 127, 255})
			}
		}
	}
	f, err := os.Create(filepath.Join(dir, name+"-diff.png"))
	if err != nil {
		return
	}
	png.Encode(f, out)
	f.Close()
}

func absDiff(a, b uint32) uint32 {
	if a > b {
		return a - b
	}
	return b - a
}

// TestReproducibleHandful records a few practice tasks of different kinds
// (a search with Enter and an answer, a drop-down in the engine's list,
// time fields and a refused save) and replays each once in headless
// Chromium: every step must match.
func TestReproducibleHandful(t *testing.T) {
	if testing.Short() {
		t.Skip("starts Chromium")
	}
	sites, err := practice.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer sites.Close()
	st, tasks := practiceStore(t, filepath.Join(t.TempDir(), "w.db"))
	set := engine.DefaultSettings()
	set.ExplicitWait = toastGone
	eng := practiceEngine(t, engine.DisplayHeadless, set, sites)
	keys := []string{"wiki-marrow-prize-year", "shop-highest-rated-jacket", "forms-quiet-hours"}
	ids := map[string]string{}
	for _, k := range keys {
		ids[k] = recordSolution(t, st, eng, tasks[k], practiceSolutions[k])
	}
	// The replay runs against its own server, on another port, as
	// `waymark replay` does.
	sites2, err := practice.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer sites2.Close()
	eng2 := practiceEngine(t, engine.DisplayHeadless, set, sites2)
	shots := os.Getenv("WAYMARK_REPRO_SHOTS")
	for _, k := range keys {
		c, rep := replayOnce(t, st, eng2, ids[k], k, shots)
		if !rep.OK || c.matched != c.steps || c.steps != len(practiceSolutions[k])+1 {
			t.Errorf("%s: %d of %d steps matched:\n%s", k, c.matched, c.steps, strings.Join(c.diverged, "\n"))
		}
	}
}

// BenchmarkReproducibility is the reproducibility figure: every practice
// task's solution is recorded, then replayed three times, in each display
// mode (Xvfb when installed, and headless); it reports the share of steps
// and of URLs that matched, per task and overall. The measure runs once,
// whatever b.N: run it with -benchtime 1x (`make bench` does). Diverged
// steps' screenshots go to $WAYMARK_REPRO_SHOTS when set;
// $WAYMARK_REPRO_MODES=headless (or xvfb) measures one mode.
func BenchmarkReproducibility(b *testing.B) {
	const rounds = 3
	modes := []string{engine.DisplayXvfb, engine.DisplayHeadless}
	if _, err := exec.LookPath("Xvfb"); err != nil {
		b.Logf("no Xvfb: the figure is for headless only")
		modes = modes[1:]
	}
	if v := os.Getenv("WAYMARK_REPRO_MODES"); v != "" {
		modes = strings.Split(v, ",") // one mode at a time, e.g. headless
	}
	var keys []string
	for _, p := range practice.Tasks() {
		if _, ok := practiceSolutions[p.Key]; !ok {
			b.Fatalf("practice task %s has no scripted solution in practiceSolutions", p.Key)
		}
		keys = append(keys, p.Key)
	}
	shots := os.Getenv("WAYMARK_REPRO_SHOTS")
	set := engine.DefaultSettings()
	set.MaxSteps = 50 // the checkout's solution takes 33 actions, the default limit is 20
	set.ExplicitWait = toastGone
	var all tally
	var out strings.Builder
	tw := tabwriter.NewWriter(&out, 0, 0, 2, ' ', tabwriter.AlignRight)
	b.ResetTimer()
	for _, mode := range modes {
		sites, err := practice.Start()
		if err != nil {
			b.Fatal(err)
		}
		st, tasks := practiceStore(b, filepath.Join(b.TempDir(), mode+".db"))
		eng := practiceEngine(b, mode, set, sites)
		ids := map[string]string{}
		t0 := time.Now()
		for _, k := range keys {
			ids[k] = recordSolution(b, st, eng, tasks[k], practiceSolutions[k])
		}
		recTime := time.Since(t0)
		fmt.Fprintf(os.Stderr, "%s: %d episodes recorded in %.0f s\n", mode, len(ids), recTime.Seconds())
		eng.Close()
		sites.Close()

		per := map[string]*tally{}
		for _, k := range keys {
			per[k] = &tally{}
		}
		for round := 1; round <= rounds; round++ {
			// Each round: a new server on a new port and a new browser, as
			// `waymark replay` starts them.
			sites, err := practice.Start()
			if err != nil {
				b.Fatal(err)
			}
			eng := practiceEngine(b, mode, set, sites)
			for _, k := range keys {
				rec, err := replay.Load(context.Background(), st, ids[k])
				if err != nil {
					b.Fatal(err)
				}
				if s := rec.Settings(set); s.MaxSteps != eng.Settings().MaxSteps || s.ActionSet != eng.Settings().ActionSet {
					b.Fatalf("%s: recorded with other settings (%+v) than the replay's engine", k, s)
				}
				c, _ := replayOnce(b, st, eng, ids[k], fmt.Sprintf("%s-%s-run%d", mode, k, round), shots)
				per[k].add(c)
				// Progress, for a run that is stopped before the table.
				fmt.Fprintf(os.Stderr, "%s run %d %s: %d/%d steps matched, %d/%d URLs %s\n", mode, round, k, c.matched, c.steps, c.urlsMatched, c.urls, strings.Join(c.diverged, "; "))
			}
			eng.Close()
			sites.Close()
		}

		var m tally
		fmt.Fprintf(tw, "%s task\tactions\tsteps matched\tURLs matched\treplays OK\t\n", mode)
		for _, k := range keys {
			c := per[k]
			fmt.Fprintf(tw, "%s\t%d\t%d/%d\t%d/%d\t%d/%d\t\n", k, len(practiceSolutions[k]), c.matched, c.steps, c.urlsMatched, c.urls, c.ok, c.replays)
			m.add(*c)
		}
		fmt.Fprintf(tw, "%s all\t\t%d/%d (%.2f%%)\t%d/%d (%.2f%%)\t%d/%d\t\n", mode, m.matched, m.steps, pct(m.matched, m.steps), m.urlsMatched, m.urls, pct(m.urlsMatched, m.urls), m.ok, m.replays)
		fmt.Fprintf(tw, "%s time\trecording %.1f s;\treset %.0f ms;\tstep %.0f ms;\t20-step episode %.1f s\t\n", mode, recTime.Seconds(),
			float64(m.resets.Milliseconds())/float64(m.replays), float64(m.stepTime.Milliseconds())/float64(max(1, m.stepCount)),
			(float64(m.resets.Milliseconds())/float64(m.replays)+20*float64(m.stepTime.Milliseconds())/float64(max(1, m.stepCount)))/1000)
		fmt.Fprintf(tw, "%s noise	matched steps by differing pixels: 0: %d;	1-16: %d;	17-48: %d;	49+: %d;	largest %d (a match allows %d)	\n", mode,
			m.diffs[0], m.diffs[1], m.diffs[2], m.diffs[3], m.maxDiff, int(replay.MaxDiffShare*800*600))
		b.ReportMetric(float64(m.maxDiff), "maxdiffpx-"+mode)
		b.ReportMetric(pct(m.matched, m.steps), "%steps-"+mode)
		b.ReportMetric(pct(m.urlsMatched, m.urls), "%urls-"+mode)
		all.add(m)
	}
	tw.Flush()
	b.ReportMetric(pct(all.matched, all.steps), "%steps")
	b.ReportMetric(pct(all.urlsMatched, all.urls), "%urls")
	b.ReportMetric(float64(all.stepTime.Milliseconds())/float64(max(1, all.stepCount)), "ms/step")
	b.ReportMetric(float64(all.resets.Milliseconds())/float64(max(1, all.replays)), "ms/reset")
	slices.Sort(all.diverged)
	// To standard output: a benchmark's log is cut to its first lines.
	fmt.Printf("reproducibility of the practice pack (%d tasks, %d replays each per mode):\n%s\nall: %d of %d steps matched (%.2f%%), %d of %d URLs (%.2f%%)\ndivergences:\n%s\n",
		len(keys), rounds, out.String(), all.matched, all.steps, pct(all.matched, all.steps), all.urlsMatched, all.urls, pct(all.urlsMatched, all.urls),
		strings.Join(all.diverged, "\n"))
	b.Logf("%d of %d steps matched (%.2f%%), %d of %d URLs (%.2f%%); the table is on standard output", all.matched, all.steps, pct(all.matched, all.steps),
		all.urlsMatched, all.urls, pct(all.urlsMatched, all.urls))
}
