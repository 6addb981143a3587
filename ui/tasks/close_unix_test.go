//go:build unix

package tasks

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// Closing the screen while a task file is being read stops the reading:
// nothing is shown afterwards, neither the preview nor an error. The file
// is a named pipe, so the reading waits until the test writes to it.
func TestCloseStopsReadingATaskFile(t *testing.T) {
	tab, _, _, loop := newTasksFixtureLoop(t)
	pipe := filepath.Join(t.TempDir(), "batch.csv")
	if err := syscall.Mkfifo(pipe, 0o600); err != nil {
		t.Skipf("no named pipes here: %v", err)
	}
	tab.ImportFile(pipe) // its goroutine waits for a writer
	time.Sleep(50 * time.Millisecond)
	tab.Close()
	w, err := os.OpenFile(pipe, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	// The reader may already have given up: a write error is fine.
	_, _ = w.WriteString("instruction,website,type\nFind the cheapest tent,http://shop.test/,info\n")
	w.Close()
	done := make(chan struct{})
	go func() { tab.work.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the reading did not stop after Close")
	}
	loop.Run()
	if top := tab.ctx.Window.Canvas().Overlays().Top(); top != nil {
		t.Fatalf("something was shown after Close (preview %q)", previewText(tab.ctx.Window))
	}
}
