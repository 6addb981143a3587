package exporttab

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"fyne.io/fyne/v2/widget"

	"waymark/dataset/benchexport"
	"waymark/dataset/hfexport"
	"waymark/ui"
)

// The Export screen's benchmark layouts (`waymark export --format`): the
// Format field offers the Hugging Face dataset and each benchmark; a
// benchmark export uses the folder, filters and Replace box, and has no
// licence, name or test share (those fields are disabled while one is
// chosen).

// hfFormat is the Format field's Hugging Face choice.
const hfFormat = "Hugging Face dataset"

// benchRun holds what the screen knows of benchmark exports.
type benchRun struct {
	// finished, if set, is called (on the Fyne goroutine) when a
	// benchmark export ends; tests wait on it.
	finished func(benchexport.Result, error)
	progress benchexport.Progress
}

func formatChoices() []string {
	c := []string{hfFormat}
	for _, f := range benchexport.Formats {
		c = append(c, f.Title()+" (judge calibration)")
	}
	return c
}

func newFormatSelect(t *Tab) *widget.Select {
	s := widget.NewSelect(formatChoices(), func(string) { t.formatChanged() })
	s.SetSelected(hfFormat)
	return s
}

// benchFormat is the benchmark chosen, if one is.
func (t *Tab) benchFormat() (benchexport.Format, bool) {
	if t.format == nil {
		return "", false
	}
	for _, f := range benchexport.Formats {
		if strings.HasPrefix(t.format.Selected, f.Title()+" ") {
			return f, true
		}
	}
	return "", false
}

// formatChanged enables the Hugging Face fields only for the Hugging Face
// dataset and says what the chosen layout writes.
func (t *Tab) formatChanged() {
	if t.licence == nil {
		return // still being built
	}
	f, bench := t.benchFormat()
	for _, w := range []interface {
		Enable()
		Disable()
	}{t.licence, t.name, t.testFraction} {
		if bench {
			w.Disable()
		} else {
			w.Enable()
		}
	}
	if !bench {
		t.status.SetText("Choose a folder and a licence, then Export. Without filters, every finished episode with an outcome is exported, and every interrupted one a reviewer labelled.")
		return
	}
	what := map[benchexport.Format]string{
		benchexport.AgentRewardBench: "a trajectory JSON and screenshots per episode, annotations.csv with one row per reviewer (primary first) and the settled labels",
		benchexport.OnlineMind2Web:   "a v2 result.json and screenshots per episode, with key points where the task has them, human_label.json (0 failure, 1 success, 2 not executable) and each reviewer's key screenshots",
		benchexport.WebArenaVerified: "agent_response.json and network.har (the episode's own traffic) per episode",
	}[f]
	t.status.SetText(fmt.Sprintf("%s: %s; labels.jsonl has every reviewer's own label beside the settled one. Licence, name and test share are the Hugging Face dataset's.", f.Title(), what))
}

// startBench runs a benchmark export on a goroutine.
func (t *Tab) startBench(f benchexport.Format) {
	c := t.choices()
	o := benchexport.Options{Format: f, Out: c.out, Categories: c.categories, Outcomes: c.outcomes, Annotators: c.annotators,
		IncludeUnreviewed: c.unreviewed, Force: c.force}
	if o.Out == "" {
		t.status.SetText("Choose the folder to write the export to.")
		return
	}
	store := t.ctx.Store
	runExport(t, fmt.Sprintf("Exporting %s to %s…", f.Title(), o.Out), func(ctx context.Context) (benchexport.Result, error) {
		return benchexport.Export(ctx, store, o, func(p benchexport.Progress) {
			t.post(func() {
				t.mu.Lock()
				t.bench.progress = p
				t.mu.Unlock()
				t.bar.SetValue(p.Fraction())
				t.counts.SetText(fmt.Sprintf("%d / %s · %s written", p.Episodes, ui.Plural(p.TotalEpisodes, "episode"), hfexport.FormatBytes(p.Bytes)))
			})
		})
	}, func(res benchexport.Result, err error) { t.doneBench(o, res, err) })
}

func (t *Tab) doneBench(o benchexport.Options, res benchexport.Result, err error) {
	switch {
	case err == nil:
		t.bar.SetValue(1)
		msg := fmt.Sprintf("Exported %s in %s's layout (%s with a settled label, %s) to %s, with labels.jsonl.",
			ui.Plural(res.Episodes, "episode"), res.Format.Title(), ui.Plural(res.Settled, "episode"), ui.Plural(res.Labels, "reviewer's label"), res.Dir)
		if n := len(res.NoTraffic); n > 0 {
			msg += fmt.Sprintf(" %s no network.har: recorded without network capture.", ui.Plural(n, "episode")+map[bool]string{true: " has", false: " have"}[n == 1])
		}
		t.status.SetText(msg + "\nMeasure a judge's verdicts on it with: waymark review stats --judge RESULTS")
		t.force.SetChecked(false)
		t.ctx.Notifyf("Export finished", fmt.Sprintf("%s (%s) in %s", ui.Plural(res.Episodes, "episode"), res.Format.Title(), filepath.Base(res.Dir)))
	default:
		t.failed(o.Out, err, errors.Is(err, benchexport.ErrCancelled))
	}
	if t.bench.finished != nil {
		t.bench.finished(res, err)
	}
}
