package app

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"waymark/dataset"
	"waymark/engine/har"
)

func TestHARCommand(t *testing.T) {
	db := filepath.Join(t.TempDir(), "w.db")
	st, err := dataset.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	task, err := st.AddTask(t.Context(), dataset.Task{Goal: "Buy shoes", Category: dataset.Navigation, StartURL: "http://shop.waymark.test/"})
	if err != nil {
		t.Fatal(err)
	}
	with, err := st.CreateEpisode(t.Context(), dataset.Episode{TaskID: task.ID, Annotator: "alice", EngineJSON: `{"kind":"local","browser":"Chromium 150.0.1"}`})
	if err != nil {
		t.Fatal(err)
	}
	without, err := st.CreateEpisode(t.Context(), dataset.Episode{TaskID: task.ID, Annotator: "alice"})
	if err != nil {
		t.Fatal(err)
	}
	entry := har.Entry{StartedDateTime: "2026-01-01T00:00:01.000Z", Pageref: "page_1", Step: 2, ResourceType: "fetch",
		Request:  har.Request{Method: "GET", URL: "http://shop.waymark.test/api/products/7"},
		Response: har.Response{Status: 200, Content: har.Content{MimeType: "application/json", Text: `{"id":7}`}}}
	pages := []har.Page{{ID: "page_1", Title: "http://shop.waymark.test/", StartedDateTime: "2026-01-01T00:00:00.000Z", PageTimings: har.PageTimings{OnContentLoad: 5, OnLoad: 9}}}
	if err := st.SaveHARChunk(t.Context(), with.ID, []har.Entry{entry}, har.Summary{Redacted: true, BodyCap: 1 << 20, EpisodeCap: 64 << 20}, pages); err != nil {
		t.Fatal(err)
	}
	st.Close()

	out := filepath.Join(t.TempDir(), "ep.har")
	var stdout, stderr bytes.Buffer
	if code := Main([]string{"--db", db, "har", with.ID, "-o", out}, nil, &stdout, &stderr); code != 0 {
		t.Fatalf("waymark har: exit %d: %s", code, stderr.String())
	}
	if !strings.Contains(stderr.String(), "1 requests on 1 pages written to") {
		t.Errorf("stderr = %q", stderr.String())
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Log struct {
			Version string
			Browser struct{ Name, Version string }
			Pages   []struct{ ID string }
			Entries []map[string]any
		}
	}
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	if f.Log.Version != "1.2" || f.Log.Browser.Name != "Chromium" || f.Log.Browser.Version != "150.0.1" || len(f.Log.Pages) != 1 ||
		len(f.Log.Entries) != 1 || f.Log.Entries[0]["_step"] != 2.0 || f.Log.Entries[0]["_resourceType"] != "fetch" {
		t.Errorf("HAR file:\n%s", b)
	}

	// To standard output, the episode after the option.
	stdout.Reset()
	if code := Main([]string{"--db", db, "har", with.ID}, nil, &stdout, &stderr); code != 0 || !strings.Contains(stdout.String(), `"/api/products/7"`) && !strings.Contains(stdout.String(), "api/products/7") {
		t.Errorf("waymark har to stdout: exit %d, %q", code, stdout.String())
	}
	stderr.Reset()
	if code := Main([]string{"--db", db, "har", without.ID}, nil, &stdout, &stderr); code != 1 || !strings.Contains(stderr.String(), "recorded without network capture") {
		t.Errorf("an episode without capture: exit %d, %q", code, stderr.String())
	}
	stderr.Reset()
	if code := Main([]string{"--db", db, "har"}, nil, &stdout, &stderr); code != 2 || !strings.Contains(stderr.String(), "give one episode id") {
		t.Errorf("no episode: exit %d, %q", code, stderr.String())
	}
}

func TestServeHARFlags(t *testing.T) {
	t.Setenv(EnvHARRedactKeys, "pin,cvv")
	t.Setenv(EnvHARRedactHeaders, "")
	env := &Env{Stdout: io.Discard, Stderr: io.Discard}
	for _, c := range []struct {
		args         []string
		har, noRedct bool
	}{
		{nil, false, false},
		{[]string{"--record"}, true, false},
		{[]string{"--record", "--har=false"}, false, false},
		{[]string{"--record", "--no-redact"}, true, true},
	} {
		cfg, _, err := parseServe(env, c.args)
		if err != nil {
			t.Fatalf("%v: %v", c.args, err)
		}
		if cfg.Settings.HAR != c.har || cfg.Settings.HARNoRedact != c.noRedct || cfg.Settings.HARRedactKeys != "pin,cvv" {
			t.Errorf("serve %v: HAR %v, no-redact %v, keys %q; want %v, %v, \"pin,cvv\"", c.args, cfg.Settings.HAR, cfg.Settings.HARNoRedact, cfg.Settings.HARRedactKeys, c.har, c.noRedct)
		}
	}
}
