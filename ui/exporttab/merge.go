package exporttab

import (
	"fmt"
	"path/filepath"
	"sync"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"waymark/dataset"
	"waymark/ui"
)

// mergePanel is the Export screen's "Merge a colleague's database": the
// file is chosen (typed, pasted or browsed), merged into the open store on a
// goroutine (dataset.Store.Merge: one transaction, nothing changed on a
// failure) with a progress bar over its steps, and the merge's report is
// shown: what was added, what was already here, and what differs.
type mergePanel struct {
	tab    *Tab
	btn    *widget.Button
	bar    *ui.ProgressBar
	status *widget.Label
	box    fyne.CanvasObject

	mu      sync.Mutex
	running bool
	// finished, if set, is called on the Fyne goroutine when a merge ends
	// (tests wait on it).
	finished func(dataset.MergeReport, error)
}

func newMergePanel(t *Tab) *mergePanel {
	m := &mergePanel{tab: t}
	m.btn = widget.NewButton("Merge a colleague's database…", m.choose)
	m.bar = ui.NewProgressBar()
	m.bar.Hide()
	m.status = widget.NewLabel("Copies another annotator's tasks, episodes, steps, network traffic, edits, reviews and replay runs " +
		"into this database. Merging the same file again adds nothing. Close Waymark on the other machine (or copy its file after closing it) first.")
	m.status.Wrapping = fyne.TextWrapWord
	m.box = container.NewVBox(
		widget.NewSeparator(),
		widget.NewLabelWithStyle("Merge a colleague's database", fyne.TextAlignLeading, fyne.TextStyle{Bold: true}),
		container.NewHBox(m.btn),
		m.bar,
		m.status,
	)
	return m
}

// Running reports whether a merge is in progress.
func (m *mergePanel) Running() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.running
}

func (m *mergePanel) choose() {
	if m.tab.ctx == nil || m.tab.ctx.Window == nil || m.Running() {
		return
	}
	start := ""
	if st := m.tab.ctx.Store; st != nil {
		start = filepath.Dir(st.Path()) + string(filepath.Separator)
	}
	ui.ShowOpenPath(m.tab.ctx.Window, "Merge a colleague's database", "Merge", []string{".db", ".sqlite", ".sqlite3"}, start, m.Start)
}

// Start merges the store at path into the open one on a goroutine. Call it
// on the Fyne goroutine.
func (m *mergePanel) Start(path string) {
	t := m.tab
	if t.ctx == nil || t.ctx.Store == nil {
		return
	}
	m.mu.Lock()
	if m.running {
		m.mu.Unlock()
		return
	}
	m.running = true
	m.mu.Unlock()
	m.btn.Disable()
	m.bar.SetValue(0)
	m.bar.Show()
	m.status.SetText("Merging " + path + "…")
	store := t.ctx.Store
	t.runs.Add(1)
	go func() {
		defer t.runs.Done()
		rep, err := store.Merge(t.life, path, dataset.MergeOptions{Progress: func(p dataset.MergeProgress) {
			if p.TotalSteps > 0 {
				t.post(func() {
					m.bar.SetValue(float64(p.Steps) / float64(p.TotalSteps))
					m.status.SetText(fmt.Sprintf("Merging %s: %d of %s copied…", path, p.Steps, ui.Plural(p.TotalSteps, "step")))
				})
			}
		}})
		t.post(func() { m.done(path, rep, err) })
	}()
}

func (m *mergePanel) done(path string, rep dataset.MergeReport, err error) {
	m.mu.Lock()
	m.running = false
	m.mu.Unlock()
	m.btn.Enable()
	if err != nil {
		m.bar.Hide()
		m.status.SetText("Not merged: " + err.Error())
		m.tab.ctx.Notifyf("Merge failed", err.Error())
	} else {
		m.bar.SetValue(1)
		m.status.SetText(rep.Summary())
		m.tab.ctx.Notifyf("Merge finished", fmt.Sprintf("%s: %s added, %d to look at", filepath.Base(path),
			ui.Plural(rep.Added["episodes"], "episode"), len(rep.Issues)))
		m.tab.refreshAnnotators()
	}
	if m.finished != nil {
		m.finished(rep, err)
	}
}
