package ui

import (
	"bytes"
	"io"
	"log"
	"sync"
)

// quietReasons are Fyne's log reports that say nothing a person can act
// on. "Getting favorite locations" is logged by every file dialog on a
// computer without one of the XDG folders (Desktop, Music, Videos…); the
// dialog just leaves that place out.
var quietReasons = [][]byte{[]byte("Fyne error:  Getting favorite locations")}

// QuietFyneLog sends the standard logger (where Fyne reports) through a
// filter that drops quietReasons' reports (the "Fyne error:" line and its
// "Cause:" and "At:" lines) and passes everything else to w.
func QuietFyneLog(w io.Writer) {
	log.SetOutput(&fyneLogFilter{w: w})
}

type fyneLogFilter struct {
	mu       sync.Mutex
	w        io.Writer
	dropping bool
}

// Write gets one log line per call (the log package writes each entry at
// once).
func (f *fyneLogFilter) Write(p []byte) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	switch {
	case bytes.Contains(p, []byte("Fyne error: ")):
		f.dropping = false
		for _, r := range quietReasons {
			if bytes.Contains(p, r) {
				f.dropping = true
			}
		}
	case bytes.Contains(p, []byte("  Cause: ")) || bytes.Contains(p, []byte("  At: ")):
	default:
		f.dropping = false
	}
	if f.dropping {
		return len(p), nil
	}
	return f.w.Write(p)
}
