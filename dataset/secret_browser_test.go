package dataset_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"io/fs"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"

	"waymark/assets/practice"
	"waymark/dataset"
	"waymark/dataset/hfexport"
	"waymark/engine"
	"waymark/engine/action"
	"waymark/engine/browser"
	"waymark/engine/openenv"
)

// Secrets typed in the test: each is a string no page, screenshot or
// stored file holds by chance.
const (
	cardNumber = "4000056655665556" // a test Visa number (passes the Luhn check)
	cardCVC    = "7319"
	password   = "hunter2-SECRET-Xq9"
	viaOpenEnv = "via-OpenEnv-SECRET-51"
	keptSecret = "kept-KEEP-7781"
)

// fnvCheck is a page check that passes when the fields hold the given texts,
// compared by FNV-1a hash so the check stored with the task does not hold
// them: it reads back, in the page, what the page received.
func fnvCheck(fields map[string]string) *action.Check {
	h := func(s string) uint32 {
		f := fnv.New32a()
		f.Write([]byte(s))
		return f.Sum32()
	}
	var conds []string
	for id, v := range fields {
		conds = append(conds, fmt.Sprintf("h(document.getElementById(%q).value) === %d", id, h(v)))
	}
	return &action.Check{Kind: action.CheckKindJS, JS: `(() => {
  const h = s => { let x = 0x811c9dc5; for (const c of new TextEncoder().encode(s)) { x ^= c; x = Math.imul(x, 0x01000193) >>> 0; } return x; };
  return ` + strings.Join(conds, " && ") + `; })()`}
}

// record runs one episode through rec and returns the observations.
func record(t *testing.T, rec *dataset.Recorder, opts engine.ResetOptions, acts []action.Action) []engine.Observation {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	obs, err := rec.Reset(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	out := []engine.Observation{obs}
	for _, a := range acts {
		o, err := rec.Step(ctx, a)
		if err != nil {
			t.Fatalf("%s: %v", a, err)
		}
		if o.Error != "" {
			t.Fatalf("%s: observation error %q", a, o.Error)
		}
		out = append(out, o)
	}
	return out
}

// storeFiles is the raw bytes of a store's database file, its write-ahead
// log and its shared-memory index, as they are on disk now.
func storeFiles(t *testing.T, path string) []byte {
	t.Helper()
	var all []byte
	for _, p := range []string{path, path + "-wal", path + "-shm", path + "-journal"} {
		b, err := os.ReadFile(p)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			t.Fatal(err)
		}
		all = append(all, b...)
	}
	return all
}

// exportText is every byte of an export folder, and every string value of
// its Parquet files decoded (their pages are compressed, so the raw bytes
// alone could hide a secret).
func exportText(t *testing.T, dir string) []byte {
	t.Helper()
	var all bytes.Buffer
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		all.Write(b)
		if !strings.HasSuffix(p, ".parquet") {
			return nil
		}
		f, err := parquet.OpenFile(bytes.NewReader(b), int64(len(b)))
		if err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		for _, rg := range f.RowGroups() {
			rows := rg.Rows()
			buf := make([]parquet.Row, 16)
			for {
				n, err := rows.ReadRows(buf)
				for _, row := range buf[:n] {
					for _, v := range row {
						if v.Kind() == parquet.ByteArray {
							all.Write(v.ByteArray())
							all.WriteByte(0)
						}
					}
				}
				if errors.Is(err, io.EOF) {
					break
				}
				if err != nil {
					rows.Close()
					return fmt.Errorf("%s: %w", p, err)
				}
			}
			rows.Close()
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return all.Bytes()
}

// Passwords and card data typed in real Chromium through the real Recorder
// (locally and over OpenEnv) are stored as "[redacted]" and are nowhere in
// the database files or the Hugging Face export, while the pages received
// them; a task that keeps secrets keeps them.
func TestSecretsNeverStored(t *testing.T) {
	if testing.Short() {
		t.Skip("starts Chromium")
	}
	site, err := practice.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer site.Close()
	newEngine := func(display string) *browser.Engine {
		set := engine.DefaultSettings()
		set.Display = display
		eng, err := browser.New(browser.Options{Settings: set, HostRules: site.HostRules()})
		if err != nil {
			t.Fatal(err)
		}
		return eng
	}
	dir := t.TempDir()
	dbPath := filepath.Join(dir, "w.db")
	s, err := dataset.Open(dbPath)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	addTask := func(tk dataset.Task) dataset.Task {
		tk.Category = dataset.Interaction
		got, err := s.AddTask(t.Context(), tk)
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	checkout := addTask(dataset.Task{Goal: "Fill in the payment details at checkout", StartURL: "http://shop.waymark.test/checkout",
		Check: fnvCheck(map[string]string{"name": "Jane Doe", "card": cardNumber, "cvc": cardCVC})})
	signin := addTask(dataset.Task{Goal: "Sign in to Nimbus", StartURL: "http://forms.waymark.test/signin",
		Check: fnvCheck(map[string]string{"signinEmail": "robin.vale@example.com", "signinPassword": password})})
	kept := addTask(dataset.Task{Goal: "Sign in to Nimbus (secrets kept)", StartURL: "http://forms.waymark.test/signin", KeepSecrets: true,
		Check: fnvCheck(map[string]string{"signinPassword": keptSecret})})

	// The app's display (Xvfb) here; the OpenEnv server below runs headless.
	eng := newEngine(engine.DisplayXvfb)
	rec := dataset.NewRecorder(s, eng, dataset.RecorderOptions{Annotator: "alice"})
	defer rec.Close()

	// Where the fields are at 800×600: the checkout's name at the top, its
	// card number and CVC once the page is scrolled to the end; the
	// sign-in page's email and password.
	name, card, cvc := action.ClickAt(277, 210), action.ClickAt(277, 305), action.ClickAt(402, 371)
	email, pass := action.ClickAt(398, 210), action.ClickAt(398, 267)
	type episode struct {
		task    dataset.Task
		acts    []action.Action
		secrets []int // indexes of acts that type a secret
	}
	eps := []episode{
		{checkout, []action.Action{name, action.TypeText("Jane Doe"), action.ScrollBy(600),
			card, action.TypeText(cardNumber), cvc, action.TypeText(cardCVC), action.FinishWith("")}, []int{4, 6}},
		{signin, []action.Action{email, action.TypeText("robin.vale@example.com"), pass, action.TypeText(password), action.FinishWith("")}, []int{3}},
		{kept, []action.Action{pass, action.TypeText(keptSecret), action.FinishWith("")}, []int{1}},
	}
	var ids []string
	for _, ep := range eps {
		rec.SetTask(ep.task.ID)
		obs := record(t, rec, engine.ResetOptions{}, ep.acts)
		for i, a := range ep.acts {
			want := a.Op == action.Type && contains(ep.secrets, i)
			if obs[i+1].Redacted != want {
				t.Errorf("%s, %s: the engine says redacted %v, want %v (did the click miss the field?)", ep.task.Goal, a, obs[i+1].Redacted, want)
			}
		}
		last := obs[len(obs)-1]
		if !last.Done || last.Reward == nil || *last.Reward != 1 {
			t.Errorf("%s: the page check (the fields hold the typed text) gave %v", ep.task.Goal, last.Reward)
		}
		ids = append(ids, rec.EpisodeID())
	}

	// Over OpenEnv: the server records too (serve --record) and its page
	// check reads the password back; the app's recorder gets the fact over
	// the wire.
	srvStorePath := filepath.Join(dir, "server.db")
	srvStore, err := dataset.Open(srvStorePath)
	if err != nil {
		t.Fatal(err)
	}
	defer srvStore.Close()
	srvTask, err := srvStore.AddTask(t.Context(), dataset.Task{Goal: "Sign in to Nimbus", Category: dataset.Interaction,
		StartURL: "http://forms.waymark.test/signin", Check: fnvCheck(map[string]string{"signinPassword": viaOpenEnv})})
	if err != nil {
		t.Fatal(err)
	}
	srv, err := openenv.NewServer(openenv.Options{NewEngine: func(context.Context) (engine.Engine, error) {
		return dataset.NewRecorder(srvStore, newEngine(engine.DisplayHeadless), dataset.RecorderOptions{TaskID: srvTask.ID, Annotator: "agent:test"}), nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv)
	defer func() { srv.Close(); hs.Close() }()
	client, err := openenv.Dial(context.Background(), hs.URL, openenv.ClientOptions{})
	if err != nil {
		t.Fatal(err)
	}
	crec := dataset.NewRecorder(s, client, dataset.RecorderOptions{Annotator: "bob"})
	defer crec.Close()
	obs := record(t, crec, engine.ResetOptions{StartURL: "http://forms.waymark.test/signin"},
		[]action.Action{pass, action.TypeText(viaOpenEnv), action.FinishWith("")})
	if !obs[2].Redacted || obs[1].Redacted {
		t.Errorf("over OpenEnv the client reads redacted %v for the password and %v for the click", obs[2].Redacted, obs[1].Redacted)
	}
	if r := obs[3].Reward; r == nil || *r != 1 {
		t.Errorf("over OpenEnv the page check (the password field holds the text) gave %v", r)
	}
	ids = append(ids, crec.EpisodeID())

	// What the stores hold.
	for i, id := range ids {
		steps, err := s.Steps(t.Context(), id)
		if err != nil {
			t.Fatal(err)
		}
		for _, st := range steps {
			if st.Action != nil && st.Action.Op == action.Type && st.Action.Text == action.RedactedText &&
				!strings.Contains(st.ActionJSON, `"text":"[redacted]"`) {
				t.Errorf("episode %d step %d: action_json %s", i, st.Index, st.ActionJSON)
			}
		}
	}
	redacted := func(id string) int {
		steps, _ := s.Steps(t.Context(), id)
		n := 0
		for _, st := range steps {
			if st.Action != nil && st.Action.IsRedacted() {
				n++
			}
		}
		return n
	}
	if n := redacted(ids[0]); n != 2 {
		t.Errorf("the checkout episode has %d redacted steps, want 2", n)
	}
	if n := redacted(ids[1]) + redacted(ids[3]); n != 2 {
		t.Errorf("the sign-in episodes have %d redacted steps, want 2", n)
	}
	if n := redacted(ids[2]); n != 0 {
		t.Errorf("the episode whose task keeps secrets has %d redacted steps", n)
	}

	out := filepath.Join(dir, "export")
	if _, err := hfexport.Export(context.Background(), s, hfexport.Options{Out: out, License: "cc-by-4.0", IncludeUnreviewed: true}, nil); err != nil {
		t.Fatal(err)
	}
	gone := map[string][]byte{"card number": []byte(cardNumber), "CVC": []byte(`"` + cardCVC + `"`),
		"password": []byte(password), "password typed over OpenEnv": []byte(viaOpenEnv)}
	check := func(where string, b []byte, keptWant bool) {
		for what, sec := range gone {
			if bytes.Contains(b, sec) {
				t.Errorf("the %s is in %s", what, where)
			}
		}
		if bytes.Contains(b, []byte(keptSecret)) != keptWant {
			t.Errorf("the kept secret in %s: %v, want %v", where, !keptWant, keptWant)
		}
	}
	exp := exportText(t, out)
	if !bytes.Contains(exp, []byte("Jane Doe")) {
		t.Fatal("the export's decoded text lacks the plain typed text: the check reads nothing")
	}
	if !bytes.Contains(exp, []byte(`"text":"[redacted]"`)) {
		t.Error("the export has no redacted action")
	}
	check("the export", exp, true)
	check("the database files (open)", storeFiles(t, dbPath), true)
	check("the OpenEnv server's database files (open)", storeFiles(t, srvStorePath), false)
	rec.Close()
	crec.Close()
	srv.Close()
	s.Close()
	srvStore.Close()
	check("the database files (closed)", storeFiles(t, dbPath), true)
	check("the OpenEnv server's database files (closed)", storeFiles(t, srvStorePath), false)
}

func contains(xs []int, x int) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}
