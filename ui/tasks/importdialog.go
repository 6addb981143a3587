package tasks

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"waymark/dataset"
	"waymark/engine/action"
	"waymark/ui"
)

// noColumn is the column choice that gives a field no column.
const noColumn = "(none)"

// skipNoCategory is the default category choice that skips rows without a
// category.
const skipNoCategory = "skip rows without one"

// fieldWords names the importer's fields for people; a field the importer
// gains later shows its own name until it gets words here.
var fieldWords = map[string]string{
	dataset.FieldGoal:        "goal",
	dataset.FieldURL:         "start URL",
	dataset.FieldCategory:    "category",
	dataset.FieldAnswer:      "expected answer",
	dataset.FieldURLPattern:  "URL pattern check",
	dataset.FieldCheckJS:     "JavaScript check",
	dataset.FieldID:          "ID in the source",
	dataset.FieldKeepSecrets: "keep secrets",
	"reference_time":         "reference time",
	"timezone":               "time zone",
	"locale":                 "locale",
}

func fieldWord(f string) string {
	if w, ok := fieldWords[f]; ok {
		return w
	}
	return strings.ReplaceAll(f, "_", " ")
}

// capital writes s with its first letter in upper case.
func capital(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	if n == 0 {
		return s
	}
	return string(unicode.ToUpper(r)) + s[n:]
}

// mappingKey is the preference that remembers a source's column choices.
func mappingKey(source string) string { return "tasks.import.columns." + source }

// rememberedMapping returns the column choices last imported from source
// (field → column, "" for a field given no column), or nil.
func (t *Tab) rememberedMapping(source string) map[string]string {
	if t.ctx.App == nil {
		return nil
	}
	s := t.ctx.App.Preferences().String(mappingKey(source))
	if s == "" {
		return nil
	}
	var m map[string]string
	if json.Unmarshal([]byte(s), &m) != nil {
		return nil
	}
	return m
}

func (t *Tab) rememberMapping(source string, m map[string]string) {
	if t.ctx.App == nil {
		return
	}
	b, err := json.Marshal(m)
	if err != nil {
		return
	}
	t.ctx.App.Preferences().SetString(mappingKey(source), string(b))
}

// usableMapping keeps of remembered choices those for fields the importer
// knows and columns the file has ("": no column).
func usableMapping(m map[string]string, columns []string) map[string]string {
	if len(columns) == 0 {
		return nil
	}
	out := map[string]string{}
	for f, c := range m {
		if slices.Contains(dataset.ImportFields, f) && (c == "" || slices.Contains(columns, c)) {
			out[f] = c
		}
	}
	return out
}

// previewRow is one data row of the file as the import would take it.
type previewRow struct {
	row                         int
	goal, category, url, check  string
	issue                       string
	skipped, duplicate, hasTask bool
}

// previewRows lays out the file's rows in order: the tasks, and the rows
// left out with why.
func previewRows(rep dataset.ImportReport) []previewRow {
	issues := map[int]previewRow{}
	for _, s := range rep.Skipped {
		issues[s.Row] = previewRow{row: s.Row, goal: s.Goal, issue: rowReason(s.Reason), skipped: true}
	}
	for _, s := range rep.Duplicates {
		issues[s.Row] = previewRow{row: s.Row, goal: s.Goal, issue: s.Reason, duplicate: true}
	}
	rows := make([]previewRow, 0, rep.Rows)
	k := 0
	for r := 1; r <= rep.Rows; r++ {
		if is, ok := issues[r]; ok {
			rows = append(rows, is)
			continue
		}
		if k == len(rep.Tasks) {
			continue
		}
		task := rep.Tasks[k]
		k++
		rows = append(rows, previewRow{row: r, goal: task.Goal, category: task.Category, url: task.StartURL, check: checkWords(task.Check), hasTask: true})
	}
	return rows
}

// rowReason says why a row is skipped in the dialog's words.
func rowReason(reason string) string {
	if reason == dataset.ReasonNoCategory {
		return "the category is empty; choose a category for rows without one above"
	}
	return reason
}

func checkWords(c *action.Check) string {
	if c == nil {
		return ""
	}
	switch c.Kind {
	case action.CheckKindAnswer:
		return "answer " + ui.ExpectedAnswers(c.Answer)
	case action.CheckKindURL:
		return "URL " + c.URL
	case action.CheckKindJS:
		return "JavaScript"
	}
	return c.Kind
}

// The preview table's columns: a fixed width, or a share of what the
// fixed ones leave.
var previewCols = []struct {
	title string
	width float32 // fixed, or 0 for a share
	share float32
}{{"Row", 50, 0}, {"Goal", 0, 0.38}, {"Category", 105, 0}, {"Start URL", 0, 0.27}, {"Check", 150, 0}, {"Issue", 0, 0.35}}

// fitColumns lays out the preview table and gives its columns the table's
// width, so the issue column is not cut off at the dialog's edge.
type fitColumns struct {
	table *widget.Table
	last  float32
}

func (f *fitColumns) MinSize(objs []fyne.CanvasObject) fyne.Size { return objs[0].MinSize() }

func (f *fitColumns) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	objs[0].Resize(size)
	objs[0].Move(fyne.NewPos(0, 0))
	if size.Width == f.last {
		return
	}
	f.last = size.Width
	pad := theme.Padding()
	free := size.Width - theme.ScrollBarSize() - pad*float32(len(previewCols))
	for _, c := range previewCols {
		free -= c.width
	}
	for i, c := range previewCols {
		w := c.width
		if w == 0 {
			w = max(80, free*c.share)
		}
		f.table.SetColumnWidth(i, w)
	}
}

// importDialog is the import preview of one file read: a column choice per
// field, a category for rows without one, a line that counts what would be
// imported (or says what to choose), and the rows as a table.
type importDialog struct {
	t    *Tab
	name string // the file name the importer reads the format from
	data []byte
	// chosen are the person's column choices (and the remembered ones):
	// field → column, "" for no column. Other fields take the columns the
	// importer recognises.
	chosen map[string]string

	rep  dataset.ImportReport
	err  error
	rows []previewRow

	names   map[string]*widget.Label
	selects map[string]*ui.DialogSelect
	defCat  *ui.DialogSelect
	status  *widget.Label
	// columns says which columns rows are read through and which not.
	columns   *widget.Label
	table     *widget.Table
	detail    *widget.Label
	importBtn *ui.DialogButton
	dlg       *dialog.CustomDialog
	// setting is true while the choices are set from a preview.
	setting bool
}

// previewImport shows the import dialog for a file already read, with its
// first preview (err is nil or a *dataset.MissingColumnError); changing a
// choice previews it again.
func (t *Tab) previewImport(name string, data []byte, chosen map[string]string, first dataset.ImportReport, err error) {
	d := &importDialog{t: t, name: name, data: data, chosen: map[string]string{}, rep: first, err: err,
		names: map[string]*widget.Label{}, selects: map[string]*ui.DialogSelect{}}
	maps.Copy(d.chosen, chosen)
	options := append([]string{noColumn}, first.Columns...)
	grid := container.NewGridWithColumns(3)
	for _, f := range dataset.ImportFields {
		label := widget.NewLabel(capital(fieldWord(f)))
		label.Truncation = fyne.TextTruncateEllipsis
		sel := ui.NewDialogSelect(options, func(c string) {
			if d.setting {
				return
			}
			if c == noColumn {
				c = ""
			}
			d.chosen[f] = c
			d.refresh()
		})
		d.names[f], d.selects[f] = label, sel
		grid.Add(container.NewBorder(nil, nil, ui.NewFixedWidth(140, label), nil, sel))
	}
	d.defCat = ui.NewDialogSelect(append([]string{skipNoCategory}, dataset.Categories...), nil)
	d.defCat.SetSelectedIndex(0)
	d.defCat.OnChanged = func(string) { d.refresh() }
	d.columns = widget.NewLabel("")
	d.columns.Wrapping = fyne.TextWrapWord
	d.status = widget.NewLabel("")
	d.status.Wrapping = fyne.TextWrapWord
	d.status.TextStyle.Bold = true
	d.detail = widget.NewLabel("Select a row to read all of it.")
	d.detail.Wrapping = fyne.TextWrapWord
	d.table = d.newTable()

	top := container.NewVBox(
		widget.NewLabelWithStyle("Which column of the file holds each field", fyne.TextAlignLeading, fyne.TextStyle{Bold: true}),
		grid,
		container.NewHBox(widget.NewLabel("Rows with no category:"), ui.NewFixedWidth(240, d.defCat)),
		d.columns,
		widget.NewSeparator(),
		d.status,
	)
	body := container.NewBorder(top, d.detail, nil, nil, container.New(&fitColumns{table: d.table}, d.table))

	d.importBtn = ui.NewDialogButton("Import", theme.ConfirmIcon(), d.doImport)
	d.importBtn.Importance = widget.HighImportance
	cancel := ui.NewDialogButton("Cancel", theme.CancelIcon(), func() { d.dlg.Hide() })
	d.dlg = dialog.NewCustomWithoutButtons("Import "+filepath.Base(name), body, t.ctx.Window)
	d.dlg.SetButtons([]fyne.CanvasObject{cancel, d.importBtn})
	d.show()
	size := fyne.NewSize(1180, 760)
	if t.ctx.Window != nil {
		if c := t.ctx.Window.Canvas().Size(); c.Width > 0 && c.Height > 0 {
			size = fyne.NewSize(min(size.Width, c.Width-40), min(size.Height, c.Height-40))
		}
	}
	d.dlg.Resize(size)
	d.dlg.Show()
	ui.WithKeys(t.ctx.Window, d.dlg, func() {
		if !d.importBtn.Disabled() {
			d.doImport()
		}
	}, top, cancel, d.importBtn)
}

func (d *importDialog) newTable() *widget.Table {
	tb := widget.NewTable(
		func() (int, int) { return len(d.rows), len(previewCols) },
		func() fyne.CanvasObject {
			l := widget.NewLabel("")
			l.Truncation = fyne.TextTruncateEllipsis
			return l
		},
		func(id widget.TableCellID, o fyne.CanvasObject) {
			l := o.(*widget.Label)
			if id.Row >= len(d.rows) {
				l.SetText("")
				return
			}
			r := d.rows[id.Row]
			l.Importance = widget.MediumImportance
			var s string
			switch id.Col {
			case 0:
				s = fmt.Sprint(r.row)
			case 1:
				s = r.goal
			case 2:
				s = r.category
			case 3:
				s = r.url
			case 4:
				s = r.check
			case 5:
				s = r.issue
				switch {
				case r.skipped:
					l.Importance = widget.DangerImportance
				case r.duplicate:
					l.Importance = widget.WarningImportance
				}
			}
			l.SetText(s)
			l.Refresh()
		})
	tb.ShowHeaderRow = true
	tb.CreateHeader = func() fyne.CanvasObject {
		return widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	}
	tb.UpdateHeader = func(id widget.TableCellID, o fyne.CanvasObject) {
		if id.Col >= 0 && id.Col < len(previewCols) {
			o.(*widget.Label).SetText(previewCols[id.Col].title)
		}
	}
	tb.OnSelected = func(id widget.TableCellID) {
		if id.Row < 0 || id.Row >= len(d.rows) {
			return
		}
		r := d.rows[id.Row]
		var parts []string
		for _, p := range []string{r.goal, r.category, r.url, r.check} {
			if p != "" {
				parts = append(parts, p)
			}
		}
		text := fmt.Sprintf("Row %d: %s", r.row, strings.Join(parts, " · "))
		if r.issue != "" {
			text += "\nLeft out: " + r.issue
		}
		d.detail.SetText(text)
	}
	return tb
}

// options are the import options the dialog's choices make.
func (d *importDialog) options() dataset.ImportOptions {
	opts := dataset.ImportOptions{Map: maps.Clone(d.chosen)}
	if i := d.defCat.SelectedIndex(); i > 0 {
		opts.DefaultCategory = dataset.Categories[i-1]
	}
	return opts
}

// refresh previews the file again with the dialog's choices. The file is
// read already and the preview is quick, so it runs on the Fyne goroutine.
func (d *importDialog) refresh() {
	d.rep, d.err = d.t.ctx.Store.PreviewImport(d.t.life, bytes.NewReader(d.data), d.name, d.options())
	d.show()
}

// show sets the choices, the count line and the table from the preview.
func (d *importDialog) show() {
	d.setting = true
	for f, sel := range d.selects {
		col := d.rep.Mapping[f]
		if col == "" {
			col = noColumn
		}
		sel.SetSelected(col)
	}
	d.setting = false
	for f, l := range d.names {
		l.Importance = widget.MediumImportance
		l.TextStyle.Bold = false
		l.SetText(capital(fieldWord(f)))
	}
	d.rows = nil
	d.columns.SetText("")
	if d.err == nil {
		d.columns.SetText(columnsLine(d.rep))
	}
	if d.columns.Text == "" {
		d.columns.Hide()
	} else {
		d.columns.Show()
	}
	var missing *dataset.MissingColumnError
	switch {
	case errors.As(d.err, &missing):
		if l := d.names[missing.Field]; l != nil {
			l.Importance = widget.DangerImportance
			l.TextStyle.Bold = true
			l.SetText(capital(fieldWord(missing.Field)) + " *")
		}
		msg := fmt.Sprintf("Choose the column that holds the %s (marked *): no column of this file is named like one.", fieldWord(missing.Field))
		if missing.Field == dataset.FieldCategory {
			msg = "Choose the column that holds the category (marked *), or a category for rows without one."
		}
		d.status.SetText(msg)
		d.status.Importance = widget.DangerImportance
	case d.err != nil:
		d.status.SetText(capital(importError(d.name, d.err).Error()))
		d.status.Importance = widget.DangerImportance
	default:
		d.rows = previewRows(d.rep)
		d.status.SetText(countLine(d.rep))
		d.status.Importance = widget.MediumImportance
		if len(d.rep.Tasks) == 0 {
			d.status.Importance = widget.WarningImportance
		}
	}
	d.status.Refresh()
	if d.err == nil && len(d.rep.Tasks) > 0 {
		d.importBtn.Enable()
	} else {
		d.importBtn.Disable()
	}
	d.table.UnselectAll()
	d.table.Refresh()
	d.table.ScrollToTop()
	d.detail.SetText("Select a row to read all of it.")
}

// remembered are the choices to preset next time: the columns used, and
// no column where the person chose none.
func (d *importDialog) remembered() map[string]string {
	m := map[string]string{}
	for f, c := range d.rep.Mapping {
		if c != "" {
			m[f] = c
		}
	}
	for f, c := range d.chosen {
		if c == "" {
			m[f] = ""
		}
	}
	return m
}

func (d *importDialog) doImport() {
	t := d.t
	rep, err := t.ctx.Store.ImportTasks(t.life, bytes.NewReader(d.data), d.name, d.options())
	if err != nil {
		if errors.Is(err, dataset.ErrImportFile) {
			err = importError(d.name, err)
		}
		t.showErr(err) // a store error says "nothing was imported"
		return
	}
	t.rememberMapping(rep.Source, d.remembered())
	d.dlg.Hide()
	t.Reload()
	msg := fmt.Sprintf("Imported %d of %s: %s.", rep.Imported, ui.Plural(rep.Rows, "row"), restLine(rep))
	ui.ShowInformation(t.ctx.Window, "Import done", msg)
}
