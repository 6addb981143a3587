package dataset

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"waymark/engine"
)

// A task file's redact column gives a task its own redaction policy (off,
// default, or a policy object), which the task's recordings use instead of
// the recording's; a value that is none of them skips its row, saying why.
func TestTaskRedactColumn(t *testing.T) {
	s, err := Open(filepath.Join(t.TempDir(), "w.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	f := filepath.Join(t.TempDir(), "tasks.jsonl")
	os.WriteFile(f, []byte(`{"goal":"Open the public page","url":"https://example.com/","category":"navigation","redact":"off"}
{"goal":"Read the staff list","url":"https://example.com/staff","category":"information","redact":{"patterns":["email"],"selectors":[".user-name"]}}
{"goal":"Plain","url":"https://example.com/plain","category":"navigation"}
{"goal":"Broken","url":"https://example.com/b","category":"navigation","redact":"sometimes"}
`), 0o600)
	rep, err := s.ImportFile(t.Context(), f, ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Tasks) != 3 || len(rep.Skipped) != 1 || !strings.Contains(rep.Skipped[0].Reason, `"sometimes" is not off, default or a policy`) {
		t.Fatalf("imported %d, skipped %+v", len(rep.Tasks), rep.Skipped)
	}
	get := func(goal string) Task {
		t.Helper()
		for _, x := range rep.Tasks {
			if x.Goal == goal {
				tk, err := s.GetTask(t.Context(), x.ID)
				if err != nil {
					t.Fatal(err)
				}
				return tk
			}
		}
		t.Fatalf("no task %q", goal)
		return Task{}
	}
	var o engine.ResetOptions
	TaskResetOptions(get("Open the public page"), &o)
	if !o.RedactSet || o.Redact != nil {
		t.Errorf("redact off: %+v", o)
	}
	o = engine.ResetOptions{}
	TaskResetOptions(get("Read the staff list"), &o)
	if !o.RedactSet || o.Redact == nil || len(o.Redact.Selectors) != 1 || o.Redact.Text("mail bob@x.io", nil) != "mail [personal]" {
		t.Errorf("a policy object: %+v", o.Redact)
	}
	o = engine.ResetOptions{}
	TaskResetOptions(get("Plain"), &o)
	if o.RedactSet {
		t.Errorf("a task without redact chose a policy: %+v", o)
	}
}
