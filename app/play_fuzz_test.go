package app

import (
	"bytes"
	"errors"
	"testing"
)

// FuzzPlayLines: play's line reader gives every line of any input, in order
// and numbered, each without its line ending; a line longer than the limit
// comes as nil with its size and does not stop the lines after it. Compared
// with bytes.Split. Seeds: below and testdata/fuzz/FuzzPlayLines/.
func FuzzPlayLines(f *testing.F) {
	f.Add([]byte("{\"op\":\"wait\"}\n\n{\"op\":\"finish\"}\n"), uint16(64))
	f.Add([]byte("a\r\nbb\r\n\r\nccc"), uint16(2))
	f.Add(bytes.Repeat([]byte("x"), 70000), uint16(100))
	f.Add(append(bytes.Repeat([]byte("y"), 65536), '\n', 'z'), uint16(65535))
	f.Add([]byte("\n\n\n"), uint16(0))
	f.Fuzz(func(t *testing.T, data []byte, max16 uint16) {
		max := int(max16)
		want := bytes.Split(data, []byte("\n"))
		if len(data) == 0 || data[len(data)-1] == '\n' {
			want = want[:len(want)-1]
		}
		got := 0
		stop := errors.New("stop")
		err := readActionLines(bytes.NewReader(data), max, func(n int, line []byte, size int) error {
			if n != got+1 || got >= len(want) {
				t.Fatalf("line %d after %d lines (want %d lines)", n, got, len(want))
			}
			w := want[got]
			got++
			if len(w) > max {
				if line != nil || size != len(w) {
					t.Fatalf("line %d (%d bytes, limit %d): got %q size %d, want nil and its size", n, len(w), max, line, size)
				}
				return nil
			}
			if line == nil || !bytes.Equal(line, bytes.TrimSuffix(w, []byte("\r"))) {
				t.Fatalf("line %d: got %q, want %q", n, line, w)
			}
			if n == 3 && len(want) > 4 && max == 7 {
				return stop // fn's error stops the reading
			}
			return nil
		})
		if errors.Is(err, stop) {
			return
		}
		if err != nil || got != len(want) {
			t.Fatalf("err %v after %d of %d lines", err, got, len(want))
		}
	})
}
