package review

import "testing"

// Saving edited guidelines on the Review screen records who edited them:
// the reviewer name in Settings becomes the new version's editor.
func TestGuidelinesEditRecordsEditor(t *testing.T) {
	e := newEnv(t) // the reviewer is rita
	f := &e.tab.form
	f.guides.btn.OnTapped()
	f.guides.edit.SetText("# House rules\nA purchase counts only when the cart shows it.")
	f.guides.btn.OnTapped()
	vs, err := e.s.GuidelineVersions(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if len(vs) == 0 || vs[len(vs)-1].Text != "# House rules\nA purchase counts only when the cart shows it." {
		t.Fatalf("guidelines versions %+v: the edit is not the newest", vs)
	}
	if got := vs[len(vs)-1].Editor; got != "rita" {
		t.Errorf("the edited guidelines' editor is %q, want the reviewer rita", got)
	}
}
