package openenv

import (
	"strings"
	"testing"
)

// Invalid UTF-8 in a message is refused, not typed as U+FFFD.
func TestInvalidUTF8MessageRefused(t *testing.T) {
	_, err := decodeJSON([]byte("{\"type\":\"step\",\"data\":{\"op\":\"type\",\"text\":\"a\xffb\"}}"))
	if err == nil || !strings.Contains(err.Error(), "not valid UTF-8 (byte 0xff)") || !strings.Contains(err.Error(), "(char 44)") {
		t.Fatalf("invalid UTF-8: %v", err)
	}
	if _, err := decodeJSON([]byte(`{"type":"step","data":{"op":"type","text":"héllo ✓"}}`)); err != nil {
		t.Fatalf("valid UTF-8 refused: %v", err)
	}
}
