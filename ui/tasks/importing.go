package tasks

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"waymark/dataset"
	"waymark/ui"
)

// TaskFileExtensions are the task file formats the importer reads.
var TaskFileExtensions = []string{".jsonl", ".ndjson", ".json", ".csv", ".tsv", ".tab", ".txt", ".parquet", ".pq"}

// chooseImport asks for a task file: a typed or pasted path, or Browse…,
// whose file dialog lists only task files (JSON Lines, JSON, CSV, TSV,
// Parquet, and .txt, read by content) and opens on the folder of the last
// file imported.
func (t *Tab) chooseImport() {
	if t.ctx.Window == nil {
		return
	}
	start := ""
	if t.lastImport != "" {
		start = filepath.Dir(t.lastImport) + string(filepath.Separator)
	}
	ui.ShowOpenPath(t.ctx.Window, "Import tasks", "Open", TaskFileExtensions, start, func(path string) {
		t.lastImport = path
		t.ImportFile(path)
	})
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
// importer guesses the format from, and its base name the source whose
// remembered column choices are preset. When the screen closes, the
// reading stops and nothing is shown.
func (t *Tab) load(label, name string, read func(context.Context) ([]byte, error)) {
	ctx, store := t.life, t.ctx.Store
	remembered := t.rememberedMapping(filepath.Base(name))
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
		rep, err := store.PreviewImport(ctx, bytes.NewReader(data), name, dataset.ImportOptions{})
		chosen := usableMapping(remembered, rep.Columns)
		if len(chosen) > 0 && ctx.Err() == nil {
			rep, err = store.PreviewImport(ctx, bytes.NewReader(data), name, dataset.ImportOptions{Map: chosen})
		}
		if ctx.Err() != nil {
			return
		}
		t.post(func() {
			var missing *dataset.MissingColumnError
			if err != nil && !errors.As(err, &missing) {
				t.showErr(importError(name, err))
				return
			}
			t.previewImport(name, data, chosen, rep, err)
		})
	}()
}

// importError says why a whole file cannot be imported, once: the
// importer's reasons already start "cannot import the file" and often
// name the file.
func importError(name string, err error) error {
	base := filepath.Base(name)
	reason := strings.TrimPrefix(err.Error(), dataset.ErrImportFile.Error()+": ")
	switch {
	case strings.HasPrefix(reason, base):
		return errors.New("the file " + reason)
	case strings.Contains(reason, base):
		return errors.New(reason)
	}
	return fmt.Errorf("cannot import %s: %s", base, reason)
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
