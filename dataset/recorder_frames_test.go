package dataset_test

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/png"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"

	"waymark/dataset"
	"waymark/engine"
	"waymark/engine/action"
	"waymark/engine/browser"
)

// The screenshot stored for a step is the observation taken after the page
// settled, never a live frame from before the action's effect: a click whose
// effect (the page turns green) comes 150 ms later, while live frames stream,
// is stored green.
func TestStoredStepShowsTheSettledPage(t *testing.T) {
	if testing.Short() {
		t.Skip("starts Chromium")
	}
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<!doctype html><title>late</title><body style="margin:0;height:600px;background:rgb(200,0,0)"
			onclick="setTimeout(() => document.body.style.background = 'rgb(0,200,0)', 150)"></body>`)
	}))
	defer site.Close()
	s, err := dataset.Open(filepath.Join(t.TempDir(), "w.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	set := engine.DefaultSettings()
	set.Display = engine.DisplayHeadless
	eng, err := browser.New(browser.Options{Settings: set})
	if err != nil {
		t.Fatal(err)
	}
	rec := dataset.NewRecorder(s, eng, dataset.RecorderOptions{Annotator: "ada"})
	defer rec.Close()
	ctx := context.Background()
	if _, err := rec.Reset(ctx, engine.ResetOptions{StartURL: site.URL + "/"}); err != nil {
		t.Fatal(err)
	}
	frames := rec.Frames() // the live view's stream runs during the step
	drained := make(chan int)
	go func() {
		n := 0
		deadline := time.After(3 * time.Second)
		for {
			select {
			case _, ok := <-frames:
				if !ok {
					drained <- n
					return
				}
				n++
			case <-deadline:
				drained <- n
				return
			}
		}
	}()
	obs, err := rec.Step(ctx, action.ClickAt(400, 300))
	if err != nil {
		t.Fatal(err)
	}
	stored, err := s.Screenshot(ctx, rec.EpisodeID(), 1)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(stored, obs.Screenshot) {
		t.Fatal("the stored screenshot is not the step's observation")
	}
	img, err := png.Decode(bytes.NewReader(stored))
	if err != nil {
		t.Fatal(err)
	}
	if r, g := centre(img); g < 150 || r > 50 {
		t.Fatalf("the stored step shows rgb(%d,%d,…) at the centre: the page before the click's effect", r, g)
	}
	t.Logf("%d live frames during the step", <-drained)
}

func centre(img image.Image) (r, g uint32) {
	b := img.Bounds()
	cr, cg, _, _ := img.At(b.Dx()/2, b.Dy()/2).RGBA()
	return cr >> 8, cg >> 8
}
