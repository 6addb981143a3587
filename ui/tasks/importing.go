package tasks

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/storage"
	"fyne.io/fyne/v2/widget"

	"waymark/dataset"
	"waymark/ui"
)

// TaskFileExtensions are the task file formats the importer reads.
var TaskFileExtensions = []string{".jsonl", ".ndjson", ".json", ".csv", ".tsv", ".tab", ".txt", ".parquet", ".pq"}

func (t *Tab) chooseImport() {
	if t.ctx.Window == nil {
		return
	}
	fd := dialog.NewFileOpen(func(rc fyne.URIReadCloser, err error) {
		if err != nil {
			t.showErr(err)
			return
		}
		if rc == nil {
			return
		}
		name := rc.URI().Name()
		t.load(name, name, func(ctx context.Context) ([]byte, error) {
			defer rc.Close()
			return readAll(ctx, rc)
		})
	}, t.ctx.Window)
	// Only task files are listed (JSON Lines, JSON, CSV, TSV, Parquet, and
	// .txt, read by content).
	fd.SetFilter(storage.NewExtensionFileFilter(TaskFileExtensions))
	fd.Resize(fyne.NewSize(900, 620))
	fd.Show()
}

// ImportFile reads a task file (for example one dropped on the window) and
// shows the import preview. The file is read on a goroutine; the preview
// shows when it has been read, unless the screen has closed meanwhile.
func (t *Tab) ImportFile(path string) {
	if dataset.IsStoreFile(path) {
		// Reading it would drop the open store's locks (see dataset.IsStoreFile).
		t.showErr(fmt.Errorf("%s is the Waymark database in use, not a task file; choose a .jsonl, .json, .csv, .tsv or .parquet file", path))
		return
	}
	t.load(path, filepath.Base(path), func(ctx context.Context) ([]byte, error) {
		f, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		return readAll(ctx, f)
	})
}

// load reads a task file and makes its first preview off the Fyne
// goroutine (a large file would freeze the window), then shows the import
// dialog. label names the file in a read error; name is the file name the
// importer guesses the format from. When the screen closes, the reading
// stops and nothing is shown.
func (t *Tab) load(label, name string, read func(context.Context) ([]byte, error)) {
	ctx, store := t.life, t.ctx.Store
	t.work.Add(1)
	go func() {
		defer t.work.Done()
		data, err := read(ctx)
		if ctx.Err() != nil {
			return
		}
		if err != nil {
			t.post(func() { t.showErr(fmt.Errorf("cannot read %s: %w", label, err)) })
			return
		}
		rep, err := store.PreviewImport(bytes.NewReader(data), name, dataset.ImportOptions{})
		if ctx.Err() != nil {
			return
		}
		t.post(func() {
			if err != nil {
				t.showErr(fmt.Errorf("cannot import %s: %w", filepath.Base(name), err))
				return
			}
			t.previewImport(name, data, rep)
		})
	}()
}

// post runs fn on the Fyne goroutine unless the screen has closed (by
// then, or by the time fn's turn comes).
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

// readAll reads r to its end, a piece at a time, and gives up when ctx
// ends.
func readAll(ctx context.Context, r io.Reader) ([]byte, error) {
	var b bytes.Buffer
	buf := make([]byte, 256<<10)
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		n, err := r.Read(buf)
		b.Write(buf[:n])
		if err == io.EOF {
			return b.Bytes(), nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// ImportPreviewText describes a preview: how columns map, what would be
// imported, and each skipped row with its reason.
func ImportPreviewText(rep dataset.ImportReport) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s (%s): %d rows\n\nColumns:\n", rep.File, rep.Format, rep.Rows)
	for _, f := range dataset.ImportFields {
		col := rep.Mapping[f]
		if col == "" {
			col = "— not found"
		}
		fmt.Fprintf(&b, "  %-12s ← %s\n", f, col)
	}
	fmt.Fprintf(&b, "\nWill import %d task(s)", len(rep.Tasks))
	if len(rep.ByCategory) > 0 {
		var parts []string
		for _, c := range dataset.Categories {
			if n := rep.ByCategory[c]; n > 0 {
				parts = append(parts, fmt.Sprintf("%s %d", c, n))
			}
		}
		fmt.Fprintf(&b, " (%s)", strings.Join(parts, ", "))
	}
	b.WriteString(".\n")
	if n := len(rep.Duplicates); n > 0 {
		fmt.Fprintf(&b, "%d already stored (same goal and start URL), left out.\n", n)
	}
	if n := len(rep.Skipped); n > 0 {
		fmt.Fprintf(&b, "\n%d row(s) will be skipped:\n", n)
		for i, s := range rep.Skipped {
			if i == 200 {
				fmt.Fprintf(&b, "  … and %d more\n", n-i)
				break
			}
			fmt.Fprintf(&b, "  %s\n", s.String())
		}
	}
	return b.String()
}

// previewImport shows the import dialog for a file already read, with its
// first preview (no default category); choosing a default category
// previews it again.
func (t *Tab) previewImport(name string, data []byte, first dataset.ImportReport) {
	opts := dataset.ImportOptions{}
	defCat := widget.NewSelect(append([]string{"skip rows without one"}, dataset.Categories...), nil)
	defCat.SetSelectedIndex(0)
	text := widget.NewTextGridFromString(ImportPreviewText(first))
	refresh := func() error {
		opts.DefaultCategory = ""
		if i := defCat.SelectedIndex(); i > 0 {
			opts.DefaultCategory = dataset.Categories[i-1]
		}
		rep, err := t.ctx.Store.PreviewImport(bytes.NewReader(data), name, opts)
		if err != nil {
			return err
		}
		text.SetText(ImportPreviewText(rep))
		return nil
	}
	defCat.OnChanged = func(string) {
		if err := refresh(); err != nil {
			text.SetText(err.Error())
		}
	}
	body := container.NewBorder(container.NewHBox(widget.NewLabel("Rows with no category:"), ui.NewFixedWidth(260, defCat)), nil, nil, nil, container.NewScroll(text))
	d := dialog.NewCustomConfirm("Import "+filepath.Base(name), "Import", "Cancel", body, func(ok bool) {
		if !ok {
			return
		}
		rep, err := t.ctx.Store.ImportTasks(bytes.NewReader(data), name, opts)
		if err != nil {
			t.showErr(fmt.Errorf("import failed: %w", err))
			return
		}
		t.Reload()
		msg := fmt.Sprintf("Imported %s; %d skipped, %d already stored.", ui.Plural(rep.Imported, "task"), len(rep.Skipped), len(rep.Duplicates))
		ui.ShowInformation(t.ctx.Window, "Import done", msg)
	}, t.ctx.Window)
	d.Resize(fyne.NewSize(760, 560))
	d.Show()
	ui.WithKeys(t.ctx.Window, d, d.Confirm)
}
