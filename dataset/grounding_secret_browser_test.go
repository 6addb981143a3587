package dataset_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"database/sql"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"

	"waymark/dataset"
	"waymark/dataset/hfexport"
	"waymark/engine"
	"waymark/engine/action"
	"waymark/engine/browser"
)

// groundSecretPage has a password field, a card number field and a plain
// field at fixed places.
const groundSecretPage = `<!doctype html><html><head><title>grounded sign-in</title><style>
body { margin: 0; font: 14px sans-serif; }
input { position: absolute; left: 20px; width: 200px; height: 24px; }
</style></head><body>
<input id="user" style="top:10px" aria-label="User">
<input id="pw" type="password" style="top:50px" aria-label="Password">
<input id="cc" style="top:90px" autocomplete="cc-number" aria-label="Card">
</body></html>`

// Typed in the test; nothing else in the page or the store holds them.
const (
	groundUser = "robin-PLAIN-VISIBLE"
	groundPass = "grounded-SECRET-pw-61"
	groundCard = "4000056655665556"
)

// A password and a card number typed in real Chromium with grounding
// (Grounding dom: accessibility tree and DOM snapshot) and recorded by the
// real Recorder into a SQLite file are in no column of the steps rows (the
// extras searched decompressed), in no byte of the database files and in no
// value of the Hugging Face export, while the plain text typed next to them
// is in the stored extras.
func TestGroundingSecretsNeverStored(t *testing.T) {
	if testing.Short() {
		t.Skip("starts Chromium")
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, groundSecretPage)
	})
	site := httptest.NewServer(mux)
	defer site.Close()

	set := engine.DefaultSettings()
	set.Display = engine.DisplayHeadless
	set.Grounding = engine.GroundingDOM
	eng, err := browser.New(browser.Options{Settings: set})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	dir := t.TempDir()
	dbPath := filepath.Join(dir, "w.db")
	s, err := dataset.Open(dbPath)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	task, err := s.AddTask(t.Context(), dataset.Task{Goal: "Sign in and pay", Category: dataset.Interaction, StartURL: site.URL + "/"})
	if err != nil {
		t.Fatal(err)
	}
	rec := dataset.NewRecorder(s, eng, dataset.RecorderOptions{TaskID: task.ID, Annotator: "alice"})
	defer rec.Close()
	obs := record(t, rec, engine.ResetOptions{}, []action.Action{
		action.ClickAt(100, 22), action.TypeText(groundUser),
		action.ClickAt(100, 62), action.TypeText(groundPass),
		action.ClickAt(100, 102), action.TypeText(groundCard),
		action.ClickAt(400, 300), action.FinishWith(""),
	})
	if obs[2].Redacted || !obs[4].Redacted || !obs[6].Redacted {
		t.Fatalf("redacted %v %v %v, want false true true (did a click miss its field?)", obs[2].Redacted, obs[4].Redacted, obs[6].Redacted)
	}
	ep := rec.EpisodeID()

	secrets := map[string][]byte{"password": []byte(groundPass), "card number": []byte(groundCard), "password's SECRET": []byte("SECRET")}
	check := func(where string, b []byte) {
		t.Helper()
		for what, sec := range secrets {
			if bytes.Contains(b, sec) {
				t.Errorf("the %s is in %s", what, where)
			}
		}
	}

	// Every column of every step row, gzip blobs decompressed.
	db, err := sql.Open("sqlite3", "file:"+dbPath+"?_busy_timeout=5000")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query(`SELECT * FROM steps WHERE episode_id=? ORDER BY idx`, ep)
	if err != nil {
		t.Fatal(err)
	}
	cols, _ := rows.Columns()
	var nrows, nextras int
	var allExtras []byte
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		for i, v := range vals {
			var b []byte
			switch v := v.(type) {
			case []byte:
				b = v
			case string:
				b = []byte(v)
			default:
				continue
			}
			where := fmt.Sprintf("steps row %d column %s", nrows, cols[i])
			check(where, b)
			if len(b) > 2 && b[0] == 0x1f && b[1] == 0x8b {
				zr, err := gzip.NewReader(bytes.NewReader(b))
				if err != nil {
					t.Fatalf("%s: %v", where, err)
				}
				js, err := io.ReadAll(zr)
				if err != nil {
					t.Fatalf("%s: %v", where, err)
				}
				check(where+" (decompressed)", js)
				if cols[i] == "extras" {
					nextras++
					allExtras = append(allExtras, js...)
				}
			}
		}
		nrows++
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	rows.Close()
	if nrows != 9 || nextras != 9 {
		t.Fatalf("%d step rows, %d with extras; want 9 and 9", nrows, nextras)
	}
	// The check reads something: the plain text is in the stored extras
	// (accessibility tree and DOM snapshot), as BrowserGym keeps it.
	if n := bytes.Count(allExtras, []byte(groundUser)); n < 2 {
		t.Errorf("the plain text is %d times in the stored extras, want it in the trees and snapshots", n)
	}
	if !bytes.Contains(allExtras, []byte(`"dom_object"`)) || !bytes.Contains(allExtras, []byte(action.RedactedText)) {
		t.Error("the stored extras lack the DOM snapshot or any masked value")
	}

	out := filepath.Join(dir, "export")
	if _, err := hfexport.Export(context.Background(), s, hfexport.Options{Out: out, License: "cc-by-4.0", IncludeUnreviewed: true}, nil); err != nil {
		t.Fatal(err)
	}
	exp := exportText(t, out)
	if !bytes.Contains(exp, []byte(groundUser)) {
		t.Fatal("the export's decoded text lacks the plain typed text: the check reads nothing")
	}
	check("the export", exp)
	rec.Close()
	s.Close()
	check("the database files", storeFiles(t, dbPath))
}
