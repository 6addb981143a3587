package app

import "github.com/go-gl/glfw/v3.3/glfw"

// workArea is the primary monitor's work area (the screen less panels and
// docks) in screen pixels, or its whole video mode when the window manager
// names no work area. It must run on the main thread with GLFW running;
// anything else (no GLFW, no monitor) reports !ok. It lives here, with the
// desktop driver, so the ui packages build without GLFW's C code.
func workArea() (w, h int, ok bool) {
	defer func() {
		if recover() != nil {
			w, h, ok = 0, 0, false
		}
	}()
	m := glfw.GetPrimaryMonitor()
	if m == nil {
		return 0, 0, false
	}
	if _, _, ww, wh := m.GetWorkarea(); ww > 0 && wh > 0 {
		return ww, wh, true
	}
	if v := m.GetVideoMode(); v != nil && v.Width > 0 && v.Height > 0 {
		return v.Width, v.Height, true
	}
	return 0, 0, false
}
