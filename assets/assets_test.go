package assets

import (
	"bytes"
	"image/png"
	"testing"
)

func TestIconIsA512PNGWithTransparentCorners(t *testing.T) {
	img, err := png.Decode(bytes.NewReader(Icon))
	if err != nil {
		t.Fatalf("Icon is not a PNG: %v", err)
	}
	if b := img.Bounds(); b.Dx() != 512 || b.Dy() != 512 {
		t.Fatalf("Icon is %dx%d, want 512x512", b.Dx(), b.Dy())
	}
	if _, _, _, a := img.At(2, 2).RGBA(); a != 0 {
		t.Errorf("corner pixel alpha = %d, want 0 (rounded square)", a)
	}
	// The pin head is white; the background is not.
	if r, g, b, _ := img.At(160, 200).RGBA(); r>>8 < 240 || g>>8 < 240 || b>>8 < 240 {
		t.Errorf("pin pixel = %d,%d,%d, want white", r>>8, g>>8, b>>8)
	}
	if r, g, b, _ := img.At(60, 250).RGBA(); r>>8 > 100 || g>>8 < 80 || b>>8 < 80 {
		t.Errorf("background pixel = %d,%d,%d, want teal", r>>8, g>>8, b>>8)
	}
}
