package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"waymark/dataset"
	"waymark/engine"
	"waymark/engine/action"
	"waymark/engine/openenv"
)

// `serve --record --task-pack`: an agent's episodes land in the store as
// agent:NAME, step by step, with the practice task and its reward.
func TestServeRecordsAgentEpisodes(t *testing.T) {
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<title>p</title><body style="margin:0;height:2000px"><a href="/next" style="display:block;height:300px">next</a>%s</body>`, r.URL.Path)
	}))
	defer site.Close()
	db := filepath.Join(t.TempDir(), "w.db")
	set := engine.DefaultSettings()
	set.ActionWait = 300 * time.Millisecond
	sv, err := newServing(&Env{DBPath: db}, serveConfig{MaxSessions: 1, Record: true, TaskPack: true,
		ActionSet: action.SetDefault, Settings: set, Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(sv.srv)
	defer func() {
		sv.Close()
		hs.Close()
	}()

	ctx := context.Background()
	c, err := openenv.Dial(ctx, hs.URL, openenv.ClientOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	// Episode 1: ad-hoc start URL; the agent names itself in metadata.
	if _, err := c.Reset(ctx, engine.ResetOptions{StartURL: site.URL + "/"}); err != nil {
		t.Fatal(err)
	}
	click := action.ClickAt(100, 100)
	click.Metadata = map[string]any{"agent": "bot-7"}
	if o, err := c.Step(ctx, click); err != nil || o.URL != site.URL+"/next" {
		t.Fatalf("click: %v %q", err, o.URL)
	}
	if _, err := c.Step(ctx, action.ScrollBy(300)); err != nil {
		t.Fatal(err)
	}
	if o, err := c.Step(ctx, action.FinishWith("seen")); err != nil || !o.Done {
		t.Fatalf("finish: %v", err)
	}
	// Episode 2: a practice task by key; finishing at once fails its check.
	o, err := c.ResetWith(ctx, engine.ResetOptions{}, map[string]any{"task_id": "shop-search-red-shoes"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(o.URL, "http://shop.waymark.test/") {
		t.Fatalf("practice task start: %q", o.URL)
	}
	o, err = c.Step(ctx, action.FinishWith(""))
	if err != nil || o.Reward == nil || *o.Reward != 0 {
		t.Fatalf("practice finish: reward %v err %v", o.Reward, err)
	}
	c.Close()
	waitUntil(t, func() bool { return sv.srv.ActiveSessions() == 0 })
	// Episode 3: another connection with no name hint: named by address.
	c2, err := openenv.Dial(ctx, hs.URL, openenv.ClientOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c2.Reset(ctx, engine.ResetOptions{StartURL: site.URL + "/"}); err != nil {
		t.Fatal(err)
	}
	c2.Close()
	waitUntil(t, func() bool { return sv.srv.ActiveSessions() == 0 })

	st, err := dataset.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	eps, err := st.ListEpisodes(ctx, dataset.EpisodeFilter{OldestFirst: true})
	if err != nil || len(eps) != 3 {
		t.Fatalf("%d episodes (%v), want 3", len(eps), err)
	}
	if eps[2].Annotator != "agent:127.0.0.1" || eps[2].Status != dataset.StatusInterrupted {
		t.Errorf("episode 3 (no hint, left open): %+v", eps[2])
	}
	first, second := eps[0], eps[1]
	if first.Annotator != "agent:bot-7" || first.Status != dataset.StatusFinished || first.NumSteps != 3 || first.FinalAnswer != "seen" {
		t.Errorf("episode 1: %+v", first)
	}
	steps, err := st.Steps(ctx, first.ID)
	if err != nil || len(steps) != 4 {
		t.Fatalf("episode 1 steps: %d %v", len(steps), err)
	}
	if steps[1].Action == nil || steps[1].Action.Op != action.Click || steps[1].URL != site.URL+"/next" ||
		!strings.Contains(steps[1].ActionJSON, `"agent":"bot-7"`) || !steps[3].Done {
		t.Errorf("episode 1 step 1: %+v", steps[1])
	}
	if png, err := st.Screenshot(ctx, first.ID, 2); err != nil || len(png) < 100 {
		t.Errorf("step 2 screenshot: %d bytes, %v", len(png), err)
	}
	task, err := st.GetTask(ctx, first.TaskID)
	if err != nil || task.Source != dataset.SourceAdhoc || task.Category != dataset.Navigation || task.StartURL != site.URL+"/" {
		t.Errorf("ad-hoc task: %+v %v", task, err)
	}
	if second.Annotator != "agent:bot-7" || second.AutoReward == nil || *second.AutoReward != 0 {
		t.Errorf("episode 2: %+v", second)
	}
	task, err = st.GetTask(ctx, second.TaskID)
	if err != nil || task.Source != "waymark-practice" || task.Check == nil {
		t.Errorf("practice task: %+v %v", task, err)
	}
}

func TestServeListenAddr(t *testing.T) {
	for in, want := range map[string]string{":8000": "127.0.0.1:8000", "9000": "127.0.0.1:9000", "0.0.0.0:1": "0.0.0.0:1", "": "127.0.0.1:8000"} {
		if got, err := listenAddr(in); err != nil || got != want {
			t.Errorf("listenAddr(%q) = %q %v, want %q", in, got, err, want)
		}
	}
}

func waitUntil(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("timed out")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// `waymark play --server URL` plays an episode on an OpenEnv server (here
// `waymark serve`'s), printing one JSON line per observation.
func TestPlayOnAServer(t *testing.T) {
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<title>p</title><body style="margin:0"><a href="/next" style="display:block;height:300px">next</a>%s</body>`, r.URL.Path)
	}))
	defer site.Close()
	set := engine.DefaultSettings()
	set.ActionWait = 300 * time.Millisecond
	sv, err := newServing(&Env{}, serveConfig{MaxSessions: 1, ActionSet: action.SetDefault, Settings: set, Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(sv.srv)
	defer func() {
		sv.Close()
		hs.Close()
	}()
	shots := t.TempDir()
	in := strings.NewReader(`{"op":"click","x":50,"y":50}
{"op":"click"}
{"op":"finish","text":"ok"}
`)
	var out, errOut strings.Builder
	code := Main([]string{"play", "--server", hs.URL, "--start-url", site.URL + "/", "--shots", shots}, in, &out, &errOut)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 4 {
		t.Fatalf("%d lines: %s", len(lines), out.String())
	}
	for i, want := range []string{`"step":0,"url":"` + site.URL + `/"`, `"step":1,"url":"` + site.URL + `/next"`,
		`"line":2,"error":"click needs x and y"`, `"step":2,`} {
		if !strings.Contains(lines[i], want) {
			t.Errorf("line %d: %s, want …%s…", i, lines[i], want)
		}
	}
	if !strings.Contains(lines[3], `"done":true,"end_reason":"finished","answer":"ok"`) || !strings.Contains(lines[3], shots) {
		t.Errorf("last line %s", lines[3])
	}
	waitUntil(t, func() bool { return sv.srv.ActiveSessions() == 0 })
}

// --allow-host and --allow-origin (repeatable, comma-separated) reach the
// server; a host name given to --addr is served; a bad value is a usage
// error naming its flag.
func TestServeAllowFlags(t *testing.T) {
	env := &Env{Stdout: io.Discard, Stderr: io.Discard}
	cfg, addr, err := parseServe(env, []string{"--addr", "box.lan:8123", "--allow-host", "a.lan, b.lan:9000",
		"--allow-host", "c.lan", "--allow-origin", "http://localhost:3000,*.tools.lan"})
	if err != nil {
		t.Fatal(err)
	}
	if addr != "box.lan:8123" || strings.Join(cfg.AllowHosts, " ") != "a.lan b.lan:9000 c.lan box.lan" ||
		strings.Join(cfg.AllowOrigins, " ") != "http://localhost:3000 *.tools.lan" {
		t.Errorf("parsed: addr %s hosts %q origins %q", addr, cfg.AllowHosts, cfg.AllowOrigins)
	}
	for _, args := range [][]string{{"--allow-host", "http://a.lan/"}, {"--allow-host", "a.lan:http"}, {"--allow-origin", "http://[x"}} {
		_, _, err := parseServe(env, args)
		if !errors.Is(err, errUsage) || !strings.Contains(err.Error(), args[0]) {
			t.Errorf("%q: %v, want a usage error naming %s", args, err, args[0])
		}
	}

	cfg.MaxSessions, cfg.ActionSet, cfg.Logf = 1, action.SetDefault, t.Logf
	sv, err := newServing(env, cfg)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(sv.srv)
	defer func() {
		sv.Close()
		hs.Close()
	}()
	for _, c := range []struct {
		host, origin string
		want         int
	}{
		{"", "", 200}, {"b.lan:9000", "", 200}, {"box.lan:8123", "", 200}, {"b.lan:1", "", 403}, {"evil.example", "", 403},
		{"", "http://localhost:3000", 200}, {"", "https://x.tools.lan", 200}, {"", "http://evil.example", 403},
	} {
		req, _ := http.NewRequest("GET", hs.URL+"/health", nil)
		if c.host != "" {
			req.Host = c.host
		}
		if c.origin != "" {
			req.Header.Set("Origin", c.origin)
		}
		resp, err := hs.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != c.want {
			t.Errorf("Host %q Origin %q: %d, want %d", c.host, c.origin, resp.StatusCode, c.want)
		}
	}
}

// Hand-testing through `serve --record`: the app's store and the server's
// agree on who did what (same episode id, task goal and category,
// annotator, steps), so merging them never collides on one id with two
// stories.
func TestServeRecordsTheClientsFacts(t *testing.T) {
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<title>p</title><body style="margin:0"><a href="/next" style="display:block;height:300px">next</a></body>`)
	}))
	defer site.Close()
	dir := t.TempDir()
	set := engine.DefaultSettings()
	set.ActionWait = 300 * time.Millisecond
	sv, err := newServing(&Env{DBPath: filepath.Join(dir, "server.db")}, serveConfig{MaxSessions: 1, Record: true,
		ActionSet: action.SetDefault, Settings: set, Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(sv.srv)
	defer func() { sv.Close(); hs.Close() }()

	mine, err := dataset.Open(filepath.Join(dir, "app.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer mine.Close()
	task, err := mine.AddTask(t.Context(), dataset.Task{Goal: "Open the next page", Category: dataset.Interaction, StartURL: site.URL + "/", Source: "mine"})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	c, err := openenv.Dial(ctx, hs.URL, openenv.ClientOptions{StepDetails: true,
		ResetExtra: openenv.FactsMetadata(openenv.EpisodeFacts{Goal: task.Goal, Category: task.Category, Annotator: "Ada"})})
	if err != nil {
		t.Fatal(err)
	}
	rec := dataset.NewRecorder(mine, c, dataset.RecorderOptions{TaskID: task.ID, Annotator: "Ada"})
	if _, err := rec.Reset(ctx, engine.ResetOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := rec.Step(ctx, action.ClickAt(100, 100)); err != nil {
		t.Fatal(err)
	}
	if _, err := rec.Step(ctx, action.FinishWith("")); err != nil {
		t.Fatal(err)
	}
	rec.Close()
	waitUntil(t, func() bool { return sv.srv.ActiveSessions() == 0 })

	theirs, err := dataset.Open(filepath.Join(dir, "server.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer theirs.Close()
	a, err := mine.GetEpisode(ctx, rec.EpisodeID())
	if err != nil {
		t.Fatal(err)
	}
	b, err := theirs.GetEpisode(ctx, rec.EpisodeID())
	if err != nil {
		t.Fatalf("the server's store has no episode %s: %v", rec.EpisodeID(), err)
	}
	ta, _ := mine.GetTask(ctx, a.TaskID)
	tb, _ := theirs.GetTask(ctx, b.TaskID)
	if a.Annotator != "Ada" || b.Annotator != a.Annotator || tb.Goal != ta.Goal || tb.Category != ta.Category || b.NumSteps != a.NumSteps || b.Status != a.Status {
		t.Fatalf("the two stores disagree:\n app:    %s, %q (%s), %d steps, %s\n server: %s, %q (%s), %d steps, %s",
			a.Annotator, ta.Goal, ta.Category, a.NumSteps, a.Status, b.Annotator, tb.Goal, tb.Category, b.NumSteps, b.Status)
	}
	if a.AutoReward != nil || b.AutoReward != nil {
		t.Errorf("a task with no check got a reward: app %v, server %v", a.AutoReward, b.AutoReward)
	}
	// Each step's page title and timings are the server's, in both stores.
	sa, err := mine.Steps(ctx, a.ID)
	if err != nil {
		t.Fatal(err)
	}
	sb, err := theirs.Steps(ctx, b.ID)
	if err != nil {
		t.Fatal(err)
	}
	for i := range min(len(sa), len(sb)) {
		if sa[i].Title != sb[i].Title || sa[i].Timings != sb[i].Timings {
			t.Errorf("step %d: app %q %+v, server %q %+v", i, sa[i].Title, sa[i].Timings, sb[i].Title, sb[i].Timings)
		}
	}
	if sb[0].Title != "p" || sb[1].Timings.SettleMS == 0 && sb[1].Timings.ActionMS == 0 {
		t.Errorf("the server's store has no title or timings: %q %+v", sb[0].Title, sb[1].Timings)
	}
}

// An episode the app discards on a server is discarded in the server's
// store too (the client says so as it closes), and one it leaves open is
// interrupted in both.
func TestServeAgreesOnADiscardedEpisode(t *testing.T) {
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<title>p</title><body style="margin:0"><a href="/next" style="display:block;height:300px">next</a></body>`)
	}))
	defer site.Close()
	dir := t.TempDir()
	set := engine.DefaultSettings()
	set.ActionWait = 300 * time.Millisecond
	sv, err := newServing(&Env{DBPath: filepath.Join(dir, "server.db")}, serveConfig{MaxSessions: 1, Record: true,
		ActionSet: action.SetDefault, Settings: set, Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(sv.srv)
	defer func() { sv.Close(); hs.Close() }()
	mine, err := dataset.Open(filepath.Join(dir, "app.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer mine.Close()
	task, err := mine.AddTask(t.Context(), dataset.Task{Goal: "Open the next page", Category: dataset.Interaction, StartURL: site.URL + "/", Source: "mine"})
	if err != nil {
		t.Fatal(err)
	}
	theirs, err := dataset.Open(filepath.Join(dir, "server.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer theirs.Close()
	ctx := context.Background()
	for _, discard := range []bool{true, false} {
		c, err := openenv.Dial(ctx, hs.URL, openenv.ClientOptions{StepDetails: true,
			ResetExtra: openenv.FactsMetadata(openenv.EpisodeFacts{Goal: task.Goal, Category: task.Category, Annotator: "Ada"})})
		if err != nil {
			t.Fatal(err)
		}
		rec := dataset.NewRecorder(mine, c, dataset.RecorderOptions{TaskID: task.ID, Annotator: "Ada"})
		if _, err := rec.Reset(ctx, engine.ResetOptions{}); err != nil {
			t.Fatal(err)
		}
		if _, err := rec.Step(ctx, action.ClickAt(100, 100)); err != nil {
			t.Fatal(err)
		}
		if discard {
			if err := rec.Discard(); err != nil {
				t.Fatal(err)
			}
		}
		rec.Close()
		waitUntil(t, func() bool { return sv.srv.ActiveSessions() == 0 })
		a, err := mine.GetEpisode(ctx, rec.EpisodeID())
		if err != nil {
			t.Fatal(err)
		}
		b, err := theirs.GetEpisode(ctx, rec.EpisodeID())
		if err != nil {
			t.Fatalf("the server's store has no episode %s: %v", rec.EpisodeID(), err)
		}
		want := dataset.StatusInterrupted
		if discard {
			want = dataset.StatusDiscarded
		}
		if a.Status != want || b.Status != want || b.NumSteps != a.NumSteps {
			t.Errorf("discard %v: app %s %q (%d steps), server %s %q (%d steps); want both %s", discard, a.Status, a.EndReason, a.NumSteps, b.Status, b.EndReason, b.NumSteps, want)
		}
	}
}

// A practice-site page asked of a server started without --task-pack says
// that those hosts need --task-pack, not a bare ERR_NAME_NOT_RESOLVED.
func TestServeWithoutTaskPackExplainsPracticeHosts(t *testing.T) {
	set := engine.DefaultSettings()
	sv, err := newServing(&Env{DBPath: filepath.Join(t.TempDir(), "server.db")}, serveConfig{MaxSessions: 1,
		ActionSet: action.SetDefault, Settings: set, Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(sv.srv)
	defer func() { sv.Close(); hs.Close() }()
	ctx := context.Background()
	c, err := openenv.Dial(ctx, hs.URL, openenv.ClientOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	obs, err := c.Reset(ctx, engine.ResetOptions{StartURL: "http://shop.waymark.test/"})
	msg := string(obs.Error)
	if err != nil {
		msg = err.Error()
	}
	if !strings.Contains(msg, "--task-pack") || !strings.Contains(msg, "shop.waymark.test") {
		t.Fatalf("reset of a practice page without --task-pack: %q", msg)
	}
}
