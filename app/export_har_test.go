package app

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"waymark/dataset"
	"waymark/engine/har"
)

// TestExportHARFlag: export --har writes the file of episode e1 in the har folder for the captured
// episode and says how many HAR files it wrote.
func TestExportHARFlag(t *testing.T) {
	db := exportFixture(t)
	s, err := dataset.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	e := har.Entry{StartedDateTime: "2026-11-02T09:00:01.000Z", Step: 1, ResourceType: "fetch",
		Request:  har.Request{Method: "GET", URL: "http://127.0.0.1/api/stock/TH-1"},
		Response: har.Response{Status: 200, Content: har.Content{Size: 9, MimeType: "application/json", Text: `{"n":1}`}}}
	if err := s.SaveHARChunk(t.Context(), "e1", []har.Entry{e}, har.Summary{Redacted: true, RedactHeaders: har.DefaultHeaders, RedactKeys: har.DefaultKeys}, nil); err != nil {
		t.Fatal(err)
	}
	s.Close()
	dir := filepath.Join(t.TempDir(), "ds")
	code, stdout, stderr := runMain("--db", db, "export", "--out", dir, "--license", "mit", "--har", "--quiet")
	if code != 0 || !strings.Contains(stdout, "HAR files: 1 in "+dir+"/har") {
		t.Fatalf("export --har: exit %d\nstdout %s\nstderr %s", code, stdout, stderr)
	}
	b, err := os.ReadFile(filepath.Join(dir, "har", "e1.har"))
	if err != nil {
		t.Fatal(err)
	}
	var f har.File
	if err := json.Unmarshal(b, &f); err != nil || f.Log == nil || len(f.Log.Entries) != 1 || f.Log.Entries[0].Request.URL != e.Request.URL {
		t.Fatalf("har/e1.har: %v %s", err, b)
	}
}
