package exporttab

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2/test"

	"waymark/dataset"
	"waymark/engine/action"
	"waymark/ui"
)

// colleagueStore writes another annotator's store ("zoe", episodes of
// steps+1 stored steps) and returns its path, closed.
func colleagueStore(t *testing.T, episodes, steps int) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "zoe.db")
	s, err := dataset.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	task, err := s.AddTask(t.Context(), dataset.Task{Goal: "Zoe's task", Category: dataset.Navigation, StartURL: "http://127.0.0.1/zoe"})
	if err != nil {
		t.Fatal(err)
	}
	pic := noisyPNG(t)
	for e := 0; e < episodes; e++ {
		ep, err := s.CreateEpisode(t.Context(), dataset.Episode{TaskID: task.ID, Annotator: "zoe"})
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i <= steps; i++ {
			st := dataset.Step{EpisodeID: ep.ID, Index: i, URL: fmt.Sprintf("http://127.0.0.1/zoe/%d", i), Screenshot: pic}
			if i > 0 {
				a := action.ClickAt(i, i)
				st.Action = &a
			}
			if err := s.AppendStep(t.Context(), st); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.FinishEpisode(t.Context(), ep.ID, dataset.EpisodeEnd{}); err != nil {
			t.Fatal(err)
		}
	}
	return path
}

type mergeRun struct {
	rep dataset.MergeReport
	err error
}

func startMerge(t *testing.T, tab *Tab, path string) mergeRun {
	t.Helper()
	ch := make(chan mergeRun, 1)
	tab.merge.finished = func(r dataset.MergeReport, err error) { ch <- mergeRun{r, err} }
	tab.merge.Start(path)
	select {
	case r := <-ch:
		return r
	case <-time.After(60 * time.Second):
		t.Fatal("merge did not finish")
	}
	return mergeRun{}
}

// "Merge a colleague's database" merges the file on a goroutine, fills the
// bar, shows the report, offers the colleague in the annotator filter and
// notifies; a refused file says why and changes nothing.
func TestExportTabMergesAColleaguesDatabase(t *testing.T) {
	s := store(t, 2, 1)
	tab, n, _ := newTab(t, s)
	src := colleagueStore(t, 3, 20)
	r := startMerge(t, tab, src)
	if r.err != nil {
		t.Fatal(r.err)
	}
	if r.rep.Added["episodes"] != 3 || r.rep.Added["steps"] != 63 {
		t.Errorf("added %v", r.rep.Added)
	}
	if tab.merge.Running() || tab.merge.btn.Disabled() || tab.merge.bar.Value != 1 {
		t.Errorf("after the merge: running %v, button disabled %v, bar %v", tab.merge.Running(), tab.merge.btn.Disabled(), tab.merge.bar.Value)
	}
	if !strings.Contains(tab.merge.status.Text, "added: 1 tasks, 3 episodes, 63 steps") || !strings.Contains(tab.merge.status.Text, "could not reconcile: nothing") {
		t.Errorf("status %q", tab.merge.status.Text)
	}
	if !slices.Contains(tab.annotators.Options, "zoe") {
		t.Errorf("annotators offered after the merge: %v", tab.annotators.Options)
	}
	if notes := n.all(); len(notes) != 1 || !strings.Contains(notes[0], "Merge finished: zoe.db: 3 episodes added, 0 to look at") {
		t.Errorf("notifications %q", notes)
	}

	r = startMerge(t, tab, s.Path())
	if r.err == nil || !strings.HasPrefix(tab.merge.status.Text, "Not merged: ") || !strings.Contains(tab.merge.status.Text, "the database Waymark has open") {
		t.Errorf("merging the open store: %v, status %q", r.err, tab.merge.status.Text)
	}
	if tab.merge.bar.Visible() {
		t.Error("the bar stays shown after a refusal")
	}
}

// The panel sits on the Export screen under the export's own controls.
func TestExportTabShowsTheMergePanel(t *testing.T) {
	test.NewTempApp(t)
	tab := New(&ui.Context{Store: store(t, 1, 1)})
	test.NewTempWindow(t, tab.Content())
	found := false
	for _, o := range test.LaidOutObjects(tab.Content()) {
		if o == tab.merge.btn {
			found = true
		}
	}
	if !found || tab.merge.btn.Text != "Merge a colleague's database…" {
		t.Error("no merge button on the Export screen")
	}
}
