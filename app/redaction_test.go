package app

import (
	"context"
	"fmt"
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

// serve --record stores what the default redaction policy leaves when no
// --redact is given: the episode names its policy, its steps their boxes,
// and the agent's own observation is the redacted one; --redact off
// records none, and export --require-redaction then refuses the store,
// naming that episode.
func TestServeRecordRedactsByDefault(t *testing.T) {
	if testing.Short() {
		t.Skip("starts Chromium")
	}
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<title>account</title><body style="font:22px sans-serif"><p>Signed in as ada.lovelace@example.org</p><input type=tel value="020 7946 0958"></body>`)
	}))
	defer site.Close()
	db := filepath.Join(t.TempDir(), "w.db")
	record := func(args ...string) (string, engine.Observation) {
		t.Helper()
		cfg, _, err := parseServe(&Env{DBPath: db}, append([]string{"--record", "--display", "headless"}, args...))
		if err != nil {
			t.Fatal(err)
		}
		cfg.Logf = t.Logf
		sv, err := newServing(&Env{DBPath: db}, cfg)
		if err != nil {
			t.Fatal(err)
		}
		hs := httptest.NewServer(sv.srv)
		defer func() { sv.Close(); hs.Close() }()
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		c, err := openenv.Dial(ctx, hs.URL, openenv.ClientOptions{})
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		if _, err := c.Reset(ctx, engine.ResetOptions{StartURL: site.URL + "/"}); err != nil {
			t.Fatal(err)
		}
		obs, err := c.Step(ctx, action.Action{Op: action.Wait})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.Step(ctx, action.FinishWith("")); err != nil {
			t.Fatal(err)
		}
		return c.State().EpisodeID, obs
	}
	id, obs := record()
	st, err := dataset.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	ep, err := st.GetEpisode(t.Context(), id)
	if err != nil || !strings.Contains(ep.EngineJSON, `"redaction":{"name":"default"`) {
		t.Fatalf("the episode's engine: %s %v", ep.EngineJSON, err)
	}
	steps, err := st.Steps(t.Context(), id)
	if err != nil || len(steps) < 2 {
		t.Fatal(err)
	}
	whys := map[string]bool{}
	for _, b := range steps[1].Redaction {
		whys[b.Why] = true
	}
	if !whys["pattern email"] || !whys["input type=tel"] {
		t.Fatalf("step 1's boxes: %+v", steps[1].Redaction)
	}
	shot, err := st.Screenshot(t.Context(), id, 1)
	if err != nil || string(shot) != string(obs.Screenshot) {
		t.Errorf("the agent's observation is not the stored, redacted screenshot (%v)", err)
	}
	st.Close()

	off, _ := record("--redact", "off")
	out := filepath.Join(t.TempDir(), "ds")
	code, _, stderr := runMain("export", "--db", db, "--out", out, "--license", "mit", "--include-unreviewed", "--require-redaction")
	if code == 0 || !strings.Contains(stderr, "recorded without a redaction policy") || !strings.Contains(stderr, off) || strings.Contains(stderr, id) {
		t.Errorf("export --require-redaction: exit %d %s", code, stderr)
	}
}
