package browser

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"waymark/engine/action"
)

// Keys held with key_down (BrowserGym's keyboard_down) modify every key
// pressed until their key_up, as Playwright's keyboard does, whether the
// key is pressed as a named key or typed as a character (keyboard_press('a')
// is a type action): Shift held, Left five times selects "world"; Control
// held, 'a' selects all, and Backspace then clears the field (BrowserGym's
// own test keyboard_down_up_clear).
func TestGymHeldModifierModifiesLaterKeys(t *testing.T) {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<title>k</title><body style="margin:0"><input id="q" value="hello world" style="position:absolute;left:0;top:0;width:300px;height:30px">
<script>window.log = []; addEventListener('keydown', e => log.push(e.key + (e.ctrlKey ? '^' : '') + (e.shiftKey ? 'S' : '')));</script></body>`)
	}))
	defer ts.Close()
	e := newEngine(t, "headless", func(o *Options) { o.Settings.ActionSet = action.SetBrowserGym })
	reset(t, e, ts.URL+"/")
	step(t, e, action.ClickAt(150, 15))
	run := func(as ...action.Action) {
		t.Helper()
		for _, a := range as {
			if o := step(t, e, a); o.Error != "" {
				t.Fatalf("%s: %s", a, o.Error)
			}
		}
	}
	value := func() string { return eval[string](t, e, `document.getElementById('q').value`) }
	down := func(k string) action.Action { return action.Action{Op: action.KeyDown, Text: k} }
	up := func(k string) action.Action { return action.Action{Op: action.KeyUp, Text: k} }
	left := action.PressKey("LEFT")
	run(action.PressKey("END"), down("Shift"), left, left, left, left, left, up("Shift"), action.TypeText("x"))
	if v := value(); v != "hello x" {
		t.Errorf("Shift held over five Left presses, then x: the field holds %q, want \"hello x\" (keys: %s)", v, eval[string](t, e, `log.join(' ')`))
	}
	run(down("Control"), action.TypeText("a"), up("Control"), action.PressKey("BACKSPACE"))
	if v := value(); v != "" {
		t.Errorf("Control held over a, then Backspace: the field holds %q, want nothing (keys: %s)", v, eval[string](t, e, `log.join(' ')`))
	}
	// Released, the keys type again.
	run(action.TypeText("ok"))
	if v := value(); v != "ok" {
		t.Errorf("after the keys were released, typing ok: the field holds %q", v)
	}
}
