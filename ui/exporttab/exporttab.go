// Package exporttab is the Export screen: the choices of `waymark export`
// (format, folder, filters, split, licence, name), a progress bar over episodes,
// steps and bytes, Cancel, and a desktop notification when the export ends.
// The work is done by dataset/hfexport (or dataset/benchexport for a
// benchmark's layout, benchtab.go) on a goroutine; every widget change
// goes through the window's bridge (ui.Context.UI), and closing the screen
// cancels the export.
package exporttab

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"waymark/dataset"
	"waymark/dataset/hfexport"
	"waymark/ui"
)

// Licences offered in the licence field (any Hub id may be typed).
var Licences = []string{"cc-by-4.0", "cc-by-sa-4.0", "cc-by-nc-4.0", "cc0-1.0", "odc-by", "mit", "apache-2.0", "other"}

// Tab is the Export screen.
type Tab struct {
	ctx *ui.Context

	// format is the Hugging Face dataset or a benchmark's layout
	// (benchtab.go); bench is set while a benchmark export runs.
	format       *widget.Select
	bench        benchRun
	out          *widget.Entry
	choose       *widget.Button
	categories   *widget.CheckGroup
	outcomes     *widget.CheckGroup
	annotators   *widget.CheckGroup
	unreviewed   *widget.Check
	redactedOnly *widget.Check // hfexport.Options.RequireRedaction
	testFraction *widget.Entry
	licence      *widget.SelectEntry
	name         *widget.Entry
	force        *widget.Check
	exportBtn    *widget.Button
	cancelBtn    *widget.Button
	bar          *ui.ProgressBar
	counts       *widget.Label
	status       *widget.Label
	merge        *mergePanel
	content      fyne.CanvasObject

	// life ends when the screen closes: a running export is cancelled and
	// shows nothing more.
	life    context.Context
	endLife context.CancelFunc

	mu       sync.Mutex
	cancel   context.CancelFunc // non-nil while an export runs
	progress hfexport.Progress  // the latest report
	// finished, if set, is called (on the Fyne goroutine) when a run ends;
	// tests wait on it.
	finished func(hfexport.Result, error)
	// runs counts export goroutines still going, and returned, if set, gets
	// each run's error on its goroutine (tests: a closed screen shows no
	// end).
	runs     sync.WaitGroup
	returned func(error)
}

// New builds the Export tab.
func New(ctx *ui.Context) *Tab {
	t := &Tab{ctx: ctx}
	t.life, t.endLife = context.WithCancel(context.Background())
	t.out = widget.NewEntry()
	t.out.SetPlaceHolder("folder to create, e.g. ~/datasets/waymark-demos")
	t.choose = widget.NewButton("Choose…", t.chooseFolder)
	t.categories = widget.NewCheckGroup(dataset.Categories, nil)
	t.categories.Horizontal = true
	t.outcomes = widget.NewCheckGroup(outcomeLabels(), nil)
	t.outcomes.Horizontal = true
	t.annotators = widget.NewCheckGroup(nil, nil)
	t.annotators.Horizontal = true
	t.unreviewed = widget.NewCheck("Include finished episodes without an outcome (outcome left empty)", nil)
	t.testFraction = widget.NewEntry()
	t.testFraction.SetText(strconv.FormatFloat(hfexport.DefaultTestFraction, 'f', -1, 64))
	t.testFraction.Validator = func(s string) error {
		_, err := parseFraction(s)
		return err
	}
	t.licence = widget.NewSelectEntry(Licences)
	t.licence.SetPlaceHolder("choose a licence (Hub id), or other")
	t.licence.Validator = func(s string) error {
		if strings.TrimSpace(s) == "" {
			return nil // said on Export; no red field before anything is typed
		}
		return licenceErr(s)
	}
	t.name = widget.NewEntry()
	t.name.SetText(hfexport.DefaultName)
	t.force = widget.NewCheck("Replace a previous Waymark export in this folder", nil)
	t.redactedOnly = widget.NewCheck("Only redacted episodes: refuse if one was recorded without a redaction policy", nil)
	t.exportBtn = widget.NewButton("Export", t.start)
	t.exportBtn.Importance = widget.HighImportance
	t.cancelBtn = widget.NewButton("Cancel", t.Cancel)
	t.cancelBtn.Disable()
	t.bar = ui.NewProgressBar()
	t.counts = widget.NewLabel("")
	t.status = widget.NewLabel("Choose a folder and a licence, then Export. Without filters, every finished episode with an outcome is exported, and every interrupted one a reviewer labelled.")
	t.status.Wrapping = fyne.TextWrapWord

	t.format = newFormatSelect(t)
	form := widget.NewForm(
		widget.NewFormItem("Format", t.format),
		widget.NewFormItem("Folder", container.NewBorder(nil, nil, nil, t.choose, t.out)),
		widget.NewFormItem("Name", t.name),
		widget.NewFormItem("Licence", t.licence),
		widget.NewFormItem("Categories", t.categories),
		widget.NewFormItem("Outcomes", t.outcomes),
		widget.NewFormItem("Annotators", t.annotators),
		widget.NewFormItem("", t.unreviewed),
		widget.NewFormItem("", t.redactedOnly),
		widget.NewFormItem("Test share of tasks", t.testFraction),
		widget.NewFormItem("", t.force),
	)
	t.merge = newMergePanel(t)
	t.content = container.NewVScroll(container.NewVBox(
		widget.NewLabelWithStyle("Export reviewed episodes", fyne.TextAlignLeading, fyne.TextStyle{Bold: true}),
		form,
		widget.NewLabel("No box ticked in a group means no filter on it."),
		container.NewHBox(t.exportBtn, t.cancelBtn),
		t.bar,
		t.counts,
		t.status,
		t.merge.box,
	))
	t.refreshAnnotators()
	return t
}

// Title implements ui.Tab.
func (t *Tab) Title() string { return "Export" }

// Content implements ui.Tab.
func (t *Tab) Content() fyne.CanvasObject { return t.content }

// Shown refreshes the annotator list (episodes may have been recorded since).
func (t *Tab) Shown() { t.refreshAnnotators() }

// Close cancels a running export (its temporary folder is removed); its
// progress and end are not shown.
func (t *Tab) Close() { t.endLife() }

// Running reports whether an export is in progress.
func (t *Tab) Running() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.cancel != nil
}

func (t *Tab) refreshAnnotators() {
	if t.ctx == nil || t.ctx.Store == nil {
		return
	}
	names, err := t.ctx.Store.Annotators(t.life)
	if err != nil {
		t.status.SetText("Cannot list annotators: " + err.Error())
		return
	}
	ticked := map[string]bool{}
	for _, s := range t.annotators.Selected {
		ticked[s] = true
	}
	t.annotators.Options = names
	var keep []string
	for _, n := range names {
		if ticked[n] {
			keep = append(keep, n)
		}
	}
	t.annotators.Selected = keep
	t.annotators.Horizontal = len(names) <= 6 // a long list stacks instead of widening the form
	t.annotators.Refresh()
}

func (t *Tab) chooseFolder() {
	if t.ctx == nil || t.ctx.Window == nil {
		return
	}
	// Opens where the typed folder is (or would be created).
	start := filepath.Dir(ui.ExpandHome(strings.TrimSpace(t.out.Text)))
	if strings.TrimSpace(t.out.Text) == "" {
		start = ""
	}
	ui.BrowseFolder(t.ctx.Window, "Folder to export into", start, func(dir string) {
		name := strings.TrimSpace(t.name.Text)
		if name == "" {
			name = hfexport.DefaultName
		}
		t.out.SetText(filepath.Join(dir, slug(name)))
	})
}

// slug turns a dataset name into a folder name.
func slug(s string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(s) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
			dash = false
		} else if !dash && b.Len() > 0 {
			b.WriteByte('-')
			dash = true
		}
	}
	return strings.TrimSuffix(b.String(), "-")
}

func parseFraction(s string) (float64, error) {
	f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || f < 0 || f > 1 {
		return 0, errors.New("a number from 0 to 1, e.g. 0.1")
	}
	return f, nil
}

// outcomeLabels are the outcome choices, in dataset.Outcomes order and the
// words of ui.OutcomeName.
func outcomeLabels() []string {
	var l []string
	for _, o := range dataset.Outcomes {
		l = append(l, ui.OutcomeName(o))
	}
	return l
}

// outcomesOf turns the chosen outcome labels back into the outcomes'
// names, in the order chosen.
func outcomesOf(labels []string) []string {
	var out []string
	for _, l := range labels {
		for _, o := range dataset.Outcomes {
			if ui.OutcomeName(o) == l {
				out = append(out, string(o))
			}
		}
	}
	return out
}

// Options reads the form into export options.
func (t *Tab) Options() (hfexport.Options, error) {
	c := t.choices()
	o := hfexport.Options{Out: c.out, Categories: c.categories, Outcomes: c.outcomes, Annotators: c.annotators,
		IncludeUnreviewed: c.unreviewed, Force: c.force,
		License:          strings.TrimSpace(t.licence.Text),
		Name:             strings.TrimSpace(t.name.Text),
		RequireRedaction: t.redactedOnly.Checked,
	}
	if o.Out == "" {
		return o, errors.New("choose the folder to write the dataset to")
	}
	if o.License == "" {
		return o, errors.New("choose a licence for the dataset (for example cc-by-4.0), or \"other\"")
	}
	if err := licenceErr(o.License); err != nil {
		return o, fmt.Errorf("licence: %v", err)
	}
	f, err := parseFraction(t.testFraction.Text)
	if err != nil {
		return o, fmt.Errorf("test share of tasks: %v", err)
	}
	o.TestFraction = f
	return o, nil
}

// licenceErr is hfexport.CheckLicense without its "invalid export options" prefix.
func licenceErr(s string) error {
	if err := hfexport.CheckLicense(s); err != nil {
		return errors.New(strings.TrimPrefix(err.Error(), hfexport.ErrBadOptions.Error()+": "))
	}
	return nil
}

// choices are the form's fields both kinds of export read.
type choices struct {
	out                              string
	categories, outcomes, annotators []string
	unreviewed, force                bool
}

func (t *Tab) choices() choices {
	return choices{
		out:        ui.ExpandHome(strings.TrimSpace(t.out.Text)),
		categories: append([]string(nil), t.categories.Selected...),
		outcomes:   outcomesOf(t.outcomes.Selected),
		annotators: append([]string(nil), t.annotators.Selected...),
		unreviewed: t.unreviewed.Checked,
		force:      t.force.Checked,
	}
}

// start runs the export on a goroutine.
func (t *Tab) start() {
	if t.Running() || t.ctx == nil || t.ctx.Store == nil {
		return
	}
	if f, ok := t.benchFormat(); ok {
		t.startBench(f)
		return
	}
	o, err := t.Options()
	if err != nil {
		t.status.SetText(err.Error())
		return
	}
	store := t.ctx.Store
	runExport(t, "Exporting to "+o.Out+"…", func(ctx context.Context) (hfexport.Result, error) {
		return hfexport.Export(ctx, store, o, func(p hfexport.Progress) {
			t.post(func() { t.showProgress(p) })
		})
	}, func(res hfexport.Result, err error) { t.done(o, res, err) })
}

// runExport runs export on a goroutine, cancelled by Cancel or by closing
// the screen: until it ends, Export is off, Cancel on, the bar and counts
// cleared and the status says status; then Export is on again and done
// gets the result on the Fyne goroutine (nothing is shown once the screen
// has closed).
func runExport[R any](t *Tab, status string, export func(context.Context) (R, error), done func(R, error)) {
	ctx, cancel := context.WithCancel(t.life)
	t.mu.Lock()
	t.cancel = cancel
	t.mu.Unlock()
	t.exportBtn.Disable()
	t.cancelBtn.Enable()
	t.bar.SetValue(0)
	t.counts.SetText("")
	t.status.SetText(status)
	t.runs.Add(1)
	go func() {
		defer t.runs.Done()
		res, err := export(ctx)
		cancel()
		if t.returned != nil {
			t.returned(err)
		}
		t.post(func() {
			t.mu.Lock()
			t.cancel = nil
			t.mu.Unlock()
			t.exportBtn.Enable()
			t.cancelBtn.Disable()
			done(res, err)
		})
	}()
}

// post runs fn on the Fyne goroutine through the window's bridge, unless
// the screen has closed (by then, or by the time fn's turn comes).
func (t *Tab) post(fn func()) {
	if t.life.Err() != nil {
		return
	}
	t.ctx.UI().Do(func() {
		if t.life.Err() == nil {
			fn()
		}
	})
}

// Progress is the latest progress report of the running (or last) export.
func (t *Tab) Progress() hfexport.Progress {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.progress
}

func (t *Tab) showProgress(p hfexport.Progress) {
	t.mu.Lock()
	t.progress = p
	t.mu.Unlock()
	t.bar.SetValue(p.Fraction())
	t.counts.SetText(fmt.Sprintf("%d / %s · %d / %s · %s written",
		p.Episodes, ui.Plural(p.TotalEpisodes, "episode"), p.Steps, ui.Plural(p.TotalSteps, "step"), hfexport.FormatBytes(p.Bytes)))
}

// Cancel stops a running export; nothing is left under the target name.
// Call it on the Fyne goroutine (it is the Cancel button's action).
func (t *Tab) Cancel() {
	if t.stop() {
		t.status.SetText("Cancelling…")
	}
}

// stop cancels the running export, if any, without touching widgets.
func (t *Tab) stop() bool {
	t.mu.Lock()
	c := t.cancel
	t.mu.Unlock()
	if c != nil {
		c()
	}
	return c != nil
}

func (t *Tab) done(o hfexport.Options, res hfexport.Result, err error) {
	switch {
	case err == nil:
		t.bar.SetValue(1)
		msg := fmt.Sprintf("Exported %s (%s, %s) to %s.", ui.Plural(res.Episodes, "episode"), ui.Plural(res.Steps, "step"), hfexport.FormatBytes(res.Bytes), res.Dir)
		var parts []string
		for _, s := range res.Splits {
			parts = append(parts, fmt.Sprintf("%s: %s of %s", s.Name, ui.Plural(s.Episodes, "episode"), ui.Plural(s.Tasks, "task")))
		}
		if res.BadImages > 0 {
			msg += fmt.Sprintf(" %s not PNG; %s empty.", ui.Plural(res.BadImages, "stored screenshot")+map[bool]string{true: " was", false: " were"}[res.BadImages == 1], map[bool]string{true: "its image cell is", false: "their image cells are"}[res.BadImages == 1])
		}
		if n := res.FailureStepsRemoved; n > 0 {
			msg += fmt.Sprintf(" %s an edit removed after the review: failure step and type left empty; review again.", ui.Plural(n, "failure label")+map[bool]string{true: " names a failing step", false: " name failing steps"}[n == 1])
		}
		t.status.SetText(msg + " " + strings.Join(parts, "; ") + ".\nLoad it with datasets.load_dataset(\"" + res.Dir + "\").")
		t.force.SetChecked(false)
		t.ctx.Notifyf("Export finished", fmt.Sprintf("%s, %s in %s", ui.Plural(res.Episodes, "episode"), ui.Plural(res.Steps, "step"), filepath.Base(res.Dir)))
	default:
		t.failed(o.Out, err, errors.Is(err, hfexport.ErrCancelled))
	}
	if t.finished != nil {
		t.finished(res, err)
	}
}

// failed shows an export that ended without a result: cancelled (nothing
// was written to out), or err in this screen's words, also as a
// notification.
func (t *Tab) failed(out string, err error, cancelled bool) {
	t.bar.SetValue(0)
	if cancelled {
		t.status.SetText("Export cancelled; nothing was written to " + out + ".")
		return
	}
	msg := screenWords(err.Error())
	t.status.SetText("Export failed: " + msg)
	t.ctx.Notifyf("Export failed", msg)
}

// screenWords names this screen's controls where the exporter's message
// names the command line's flags.
func screenWords(msg string) string {
	return strings.NewReplacer(
		"(--include-unreviewed)", "(tick “Include finished episodes without an outcome”)",
		"with --force (Force)", "by ticking “Replace a previous Waymark export in this folder”",
	).Replace(msg)
}
