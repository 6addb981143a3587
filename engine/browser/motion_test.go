package browser

import (
	"context"
	"fmt"
	"image"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"waymark/engine"
	"waymark/engine/action"
)

const motionPage = `<!doctype html><title>motion</title><style>
body { margin: 0; font: 16px sans-serif; }
#slow { position: absolute; left: 100px; top: 100px; width: 40px; height: 40px; background: #2563eb; animation: turn 20s linear infinite; }
#once { position: absolute; left: 300px; top: 100px; width: 40px; height: 40px; background: #16a34a; animation: turn 30s linear 1; }
@keyframes turn { to { transform: rotate(360deg); } }
#strip { position: absolute; left: 400px; top: 300px; width: 300px; height: 80px; overflow: hidden; }
#inner { position: absolute; left: 10px; top: 10px; width: 100px; height: 60px; background: #f97316; }
#field { position: absolute; left: 20px; top: 300px; width: 200px; height: 30px; }
</style>
<div id="slow"></div><div id="once"></div>
<div id="strip"><div id="inner"></div></div>
<input id="field" value="typed text">
<script>
window.ev = [];
for (const k of ['animationstart', 'animationiteration', 'animationend', 'animationcancel'])
  addEventListener(k, e => ev.push(k + ' ' + e.target.id));
</script>`

// Animated lists an endless CSS animation over its whole turn and leaves
// a finite one out, without disturbing the page: no animation event fires
// and the animation goes on from where it was. BoxesAt widens a point to
// its clipping ancestor and leaves editable fields and the bare page out.
// Both work after the episode ended.
func TestMotion(t *testing.T) {
	if testing.Short() {
		t.Skip("starts Chromium")
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, motionPage)
	}))
	defer srv.Close()
	e := newEngine(t, engine.DisplayHeadless, nil)
	ctx := context.Background()
	if _, err := e.Animated(ctx); err == nil {
		t.Error("Animated before a reset: no error")
	}
	reset(t, e, srv.URL+"/")
	startEvents := eval[[]string](t, e, `ev`)
	before := eval[float64](t, e, `document.getElementById('slow').getAnimations()[0].currentTime`)
	var regs []engine.Region
	for range 5 {
		var err error
		if regs, err = e.Animated(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if len(regs) != 1 || regs[0].Why != `CSS animation "turn" on div#slow, repeating forever` {
		t.Fatalf("regions %+v", regs)
	}
	// A 40×40 square turning about its centre sweeps a circle of radius
	// 28.3 around 120,120: its box is 92..148, and 2 pixels more.
	if r := regs[0].Rect(); !image.Rect(92, 92, 148, 148).In(r) || !r.In(image.Rect(88, 88, 152, 152)) {
		t.Errorf("region %v, want about 90..150", r)
	}
	after := eval[float64](t, e, `document.getElementById('slow').getAnimations()[0].currentTime`)
	events := eval[[]string](t, e, `ev`)
	if after < before || after > before+10000 || len(events) != len(startEvents) {
		t.Errorf("the page was disturbed: currentTime %.0f then %.0f, events %q then %q", before, after, startEvents, events)
	}
	if st := eval[string](t, e, `document.getElementById('slow').getAnimations()[0].playState`); st != "running" {
		t.Errorf("play state %q", st)
	}

	boxes, err := e.BoxesAt(ctx, []image.Point{{450, 330}, {50, 310}, {600, 550}})
	if err != nil {
		t.Fatal(err)
	}
	if len(boxes) != 3 || boxes[0] != (engine.Region{X: 400, Y: 300, W: 300, H: 80, Why: "div#inner inside div#strip"}) ||
		boxes[1] != (engine.Region{}) || boxes[2] != (engine.Region{}) {
		t.Errorf("boxes %+v", boxes)
	}

	if obs := step(t, e, action.FinishWith("done")); !obs.Done {
		t.Fatalf("finish: %+v", obs)
	}
	if regs, err := e.Animated(ctx); err != nil || len(regs) != 1 {
		t.Errorf("after the episode ended: %+v %v", regs, err)
	}
	shot, err := e.Screenshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if w, h := pngSize(t, shot); w != 800 || h != 600 || !strings.HasPrefix(string(shot), "\x89PNG") {
		t.Errorf("screenshot %d×%d", w, h)
	}
}
