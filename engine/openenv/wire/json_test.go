package wire

import "testing"

// Python's position words: offsets past the end are clamped; columns
// restart after a newline; characters are counted, not bytes.
func TestPyJSONErrorPosition(t *testing.T) {
	// Offsets past the end are clamped; columns restart after a newline.
	if got := pyJSONError("X", []byte("ab\ncd"), 99).Error(); got != "X: line 2 column 3 (char 5)" {
		t.Errorf("clamped offset: %s", got)
	}
	if got := pyJSONError("X", []byte("é\néé"), 5).Error(); got != "X: line 2 column 2 (char 3)" {
		t.Errorf("characters, not bytes: %s", got)
	}
}
