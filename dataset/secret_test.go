package dataset

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"waymark/engine"
	"waymark/engine/action"
)

// secretFieldEngine is wmEngine whose page has a password field: a type
// action whose text starts with "pw:" goes into it, and the observation says
// Redacted, as the browser engine does.
type secretFieldEngine struct {
	*wmEngine
	typed []string // what the page received
}

func (e *secretFieldEngine) Step(ctx context.Context, a engine.Action) (engine.Observation, error) {
	obs, err := e.wmEngine.Step(ctx, a)
	if err == nil && a.Op == action.Type {
		e.typed = append(e.typed, a.Text)
		obs.Redacted = strings.HasPrefix(a.Text, "pw:")
	}
	return obs, err
}

// fileBytes is the store's database file and its write-ahead log, as they
// are on disk.
func fileBytes(t *testing.T, path string) []byte {
	t.Helper()
	var all []byte
	for _, p := range []string{path, path + "-wal", path + "-journal"} {
		b, err := os.ReadFile(p)
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		all = append(all, b...)
	}
	return all
}

// A type action into a password field is stored with the text
// "[redacted]" (action_json included), unless the task keeps secrets; other
// type actions keep their text.
func TestRecorderRedactsSecretText(t *testing.T) {
	for _, keep := range []bool{false, true} {
		t.Run(fmt.Sprintf("keep_secrets=%v", keep), func(t *testing.T) {
			s := wmStore(t)
			secret := fmt.Sprintf("pw:hunter2-SECRET-%v", keep)
			task, err := s.AddTask(t.Context(), Task{Goal: "Sign in", Category: Interaction, StartURL: "http://forms.waymark.test/signin", KeepSecrets: keep})
			if err != nil {
				t.Fatal(err)
			}
			if got, _ := s.GetTask(t.Context(), task.ID); got.KeepSecrets != keep {
				t.Fatalf("the task reads back keep_secrets=%v", got.KeepSecrets)
			}
			eng := &secretFieldEngine{wmEngine: newWMEngine(action.SetDefault, 0)}
			rec := NewRecorder(s, eng, RecorderOptions{TaskID: task.ID, Annotator: "alice"})
			defer rec.Close()
			ctx := context.Background()
			if _, err := rec.Reset(ctx, engine.ResetOptions{}); err != nil {
				t.Fatal(err)
			}
			for _, a := range []action.Action{action.TypeText("robin@example.com"), action.TypeText(secret), action.FinishWith("")} {
				obs, err := rec.Step(ctx, a)
				if err != nil {
					t.Fatal(err)
				}
				if want := a.Text == secret; obs.Redacted != want {
					t.Fatalf("%s: the observation says redacted %v", a, obs.Redacted)
				}
			}
			if len(eng.typed) != 2 || eng.typed[1] != secret {
				t.Fatalf("the page received %q", eng.typed)
			}
			steps, err := wmReopen(t, s).Steps(ctx, rec.EpisodeID())
			if err != nil || len(steps) != 4 {
				t.Fatalf("%d steps: %v", len(steps), err)
			}
			if steps[1].Action.Text != "robin@example.com" || !strings.Contains(steps[1].ActionJSON, `"robin@example.com"`) {
				t.Fatalf("a plain type step lost its text: %+v %s", steps[1].Action, steps[1].ActionJSON)
			}
			want := action.RedactedText
			if keep {
				want = secret
			}
			st := steps[2]
			if st.Action == nil || st.Action.Op != action.Type || st.Action.Text != want || !strings.Contains(st.ActionJSON, `"text":"`+want+`"`) {
				t.Fatalf("the password step is stored as %+v %s, want text %q", st.Action, st.ActionJSON, want)
			}
			if got := bytes.Contains(fileBytes(t, s.Path()), []byte(secret)); got != keep {
				t.Fatalf("the database file holds the secret: %v, want %v", got, keep)
			}
		})
	}
}

// Migration 2 → 3 adds tasks.keep_secrets (false for the tasks already
// there) to a store made by the previous version.
func TestMigrationAddsKeepSecrets(t *testing.T) {
	path := oldStore(t, 2, `
		INSERT INTO tasks (id, goal, category, start_url, created_at, updated_at) VALUES ('t1', 'Sign in', 'interaction', 'http://forms.waymark.test/signin', '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z')`)
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var v int
	s.db.QueryRow(`PRAGMA user_version`).Scan(&v)
	if v != SchemaVersion {
		t.Fatalf("schema %d after the upgrade, want %d", v, SchemaVersion)
	}
	task, err := s.GetTask(t.Context(), "t1")
	if err != nil || task.KeepSecrets {
		t.Fatalf("old task: %+v %v", task, err)
	}
	task.KeepSecrets = true
	if err := s.UpdateTask(t.Context(), task); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.GetTask(t.Context(), "t1"); !got.KeepSecrets {
		t.Fatal("UpdateTask did not keep keep_secrets")
	}
}

// A task file may set keep_secrets per row (true/false, yes/no, 1/0); any
// other value skips the row and says why.
func TestImportKeepSecrets(t *testing.T) {
	s := wmStore(t)
	file := `{"goal":"Sign in A","url":"http://forms.waymark.test/signin","category":"interaction","keep_secrets":true}
{"goal":"Sign in B","url":"http://forms.waymark.test/signin","category":"interaction","keep_secrets":"no"}
{"goal":"Sign in C","url":"http://forms.waymark.test/signin","category":"interaction"}
{"goal":"Sign in D","url":"http://forms.waymark.test/signin","category":"interaction","keep_secrets":"Yes"}
{"goal":"Sign in E","url":"http://forms.waymark.test/signin","category":"interaction","keep_secrets":"maybe"}
`
	rep, err := s.ImportTasks(t.Context(), strings.NewReader(file), "tasks.jsonl", ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Mapping[FieldKeepSecrets] != "keep_secrets" || rep.Imported != 4 || len(rep.Skipped) != 1 {
		t.Fatalf("%s; mapping %v; skipped %v", rep.Summary(), rep.Mapping, rep.Skipped)
	}
	wmIssue(t, rep.Skipped, 5, `"maybe" is not a yes or no`)
	want := map[string]bool{"Sign in A": true, "Sign in B": false, "Sign in C": false, "Sign in D": true}
	items, err := s.ListTasks(t.Context(), TaskFilter{})
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range items {
		if it.KeepSecrets != want[it.Goal] {
			t.Errorf("%s: keep_secrets %v, want %v", it.Goal, it.KeepSecrets, want[it.Goal])
		}
	}
}
